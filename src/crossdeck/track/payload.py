"""Turning a verified webhook body into a `WebhookEvent` (spec 6.1) and its de-duplication key."""

from __future__ import annotations

import json
import re
from itertools import accumulate

from pydantic import ValidationError

from crossdeck.models.webhook import STATUS_UPDATED_EVENT, WebhookEvent


class PayloadError(ValueError):
    """The body is not a 6.1 payload; the message says which part is wrong."""


MAX_NESTING = 64
"""Deepest array/object nesting accepted. A 6.1 payload needs 3 (plus what `details` holds).

Checked before `json.loads`: its C decoder recurses once per level, and in a process that
imported eth-account (py_ecc raises the recursion limit to 100,000) a deeply nested body
overflows the C stack and kills the process instead of raising `RecursionError`."""

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def nesting_depth(body: bytes) -> int:
    """How deep arrays and objects nest in `body` (brackets inside strings do not count)."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    return max(accumulate(_STEP[b] for b in brackets), default=0)


def parse_event(body: bytes) -> WebhookEvent:
    """Decode and validate a delivery body; raise `PayloadError` when it is not a 6.1 payload.

    The model is lenient (every field optional, unknown ones kept) so a new field never breaks
    the receiver; on top of it the fields the receiver itself relies on are required here.
    """
    if nesting_depth(body) > MAX_NESTING:
        raise PayloadError(f"body nests deeper than {MAX_NESTING} levels")
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise PayloadError(f"body is not JSON: {type(exc).__name__}") from None
    if not isinstance(decoded, dict):
        raise PayloadError(f"body is a JSON {type(decoded).__name__}, expected an object")
    try:
        event = WebhookEvent.model_validate(decoded)
    except (ValidationError, RecursionError) as exc:
        raise PayloadError(f"body is not a 6.1 payload: {_first_error(exc)}") from None
    if event.event != STATUS_UPDATED_EVENT:
        got = repr(event.event)
        got = got if len(got) <= 60 else got[:57] + "..."
        raise PayloadError(f"event must be {STATUS_UPDATED_EVENT!r}, got {got}")
    data = event.data
    if data is None:
        raise PayloadError("data is missing")
    if not data.request_id:
        raise PayloadError("data.requestId is missing")
    if not data.status:
        raise PayloadError("data.status is missing")
    if data.updated_at is None:
        raise PayloadError("data.updatedAt is missing")
    return event


def delivery_key(event: WebhookEvent) -> str:
    """What makes two deliveries "the same": the status change they report.

    Not the signature: the sender signs every retry again with a fresh timestamp, so one status
    change arrives under many signatures. Not the body bytes: a gateway in between (6.4) may
    re-encode the JSON. A request's status change is identified by (requestId, status,
    updatedAt), whatever the envelope looks like.
    """
    data = event.data
    if data is None:
        raise PayloadError("data is missing")
    return f"{event.event}|{data.request_id}|{data.status}|{data.updated_at}"


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"]) or "body"
        return f"{where}: {err['msg']}"
    return type(exc).__name__
