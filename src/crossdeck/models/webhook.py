"""The webhook payload (spec 6.1)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from crossdeck.models.base import WireModel
from crossdeck.models.requests import DepositAddressInfo
from crossdeck.models.status import StatusReading, StatusValue

STATUS_UPDATED_EVENT = "request.status.updated"


class WebhookData(StatusReading, WireModel):
    status: StatusValue | None = None
    in_tx_hashes: list[str] | None = None
    tx_hashes: list[str] | None = None
    updated_at: int | None = None  # Unix milliseconds
    origin_chain_id: int | None = None
    destination_chain_id: int | None = None
    # an object in the contract; some public examples carry the bare address string
    deposit_address: DepositAddressInfo | str | None = Field(
        default=None, union_mode="left_to_right"
    )
    request_id: str | None = None
    details: Any = None
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    referrer: str | None = None  # seen in public; not in the spec table


class WebhookEvent(WireModel):
    event: str | None = None
    timestamp: int | None = None  # Unix milliseconds
    data: WebhookData | None = None

    @property
    def is_status_update(self) -> bool:
        return self.event == STATUS_UPDATED_EVENT
