"""Signing done independently of `crossdeck.track`, straight from the rule in spec 6.3."""

from __future__ import annotations

import json
import time
from typing import Any

from helpers.webhook_signing import independent_signature

API_KEY = "test-api-key-0123456789"


def signed_headers(
    body: bytes, *, key: str = API_KEY, timestamp: int | None = None
) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    return {
        "Content-Type": "application/json",
        "X-Signature-Timestamp": ts,
        "X-Signature-SHA256": independent_signature(key, ts, body),
    }


def status_payload(
    request_id: str = "0xrequest1",
    status: str = "pending",
    *,
    updated_at: int = 1_770_923_404_946,
    **data_overrides: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "status": status,
        "inTxHashes": ["0x" + "ab" * 32],
        "txHashes": [],
        "updatedAt": updated_at,
        "originChainId": 8453,
        "destinationChainId": 1337,
        "depositAddress": None,
        "requestId": request_id,
        "details": None,
        "failReason": "N/A",
        "refundFailReason": "N/A",
    }
    data.update(data_overrides)
    return {"event": "request.status.updated", "timestamp": updated_at + 100, "data": data}


def body_of(payload: Any) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()
