"""Request statuses (spec 3.1) and the two status endpoint bodies (facts: v1 and v3)."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from crossdeck.models.base import WireModel


class RequestStatus(StrEnum):
    WAITING = "waiting"
    DEPOSITING = "depositing"
    PENDING = "pending"
    SUBMITTED = "submitted"
    SUCCESS = "success"
    FAILURE = "failure"
    REFUND = "refund"
    DELAYED = "delayed"
    # the older /intents/status only
    RECEIVED = "received"
    FALLBACK = "fallback"  # = refund

    @property
    def is_final(self) -> bool:
        """success and refund end a request. failure does NOT: a request can go
        failure -> pending -> refund, so failure is final only after a settle period."""
        return self in _FINAL

    @property
    def is_refunded(self) -> bool:
        return self in (RequestStatus.REFUND, RequestStatus.FALLBACK)

    @property
    def is_success(self) -> bool:
        return self is RequestStatus.SUCCESS

    @property
    def is_failure(self) -> bool:
        """failure: final only after a settle period (see is_final)."""
        return self is RequestStatus.FAILURE

    @property
    def follows_a_deposit(self) -> bool:
        """Only a deposit leads here. failure does not count: a quote can expire unpaid."""
        return self in _AFTER_DEPOSIT


_FINAL = frozenset({RequestStatus.SUCCESS, RequestStatus.REFUND, RequestStatus.FALLBACK})
_AFTER_DEPOSIT = frozenset(
    {
        RequestStatus.DEPOSITING,
        RequestStatus.PENDING,
        RequestStatus.SUBMITTED,
        RequestStatus.SUCCESS,
        RequestStatus.REFUND,
    }
)


def parse_status(value: str | RequestStatus | None) -> RequestStatus | None:
    """The status as an enum member, or None when absent or not one this client knows."""
    if value is None:
        return None
    try:
        return RequestStatus(value)
    except ValueError:
        return None


def is_final(value: str | RequestStatus | None) -> bool:
    status = parse_status(value)
    return status is not None and status.is_final


# A status the client does not know stays a plain string instead of failing the parse.
StatusValue = Annotated[RequestStatus | str, Field(union_mode="left_to_right")]


class StatusReading:
    """What a model with a `status` member (a status answer, a request record, a webhook's
    data) says of it: the status as this client knows it, and whether it is final."""

    if TYPE_CHECKING:  # each model declares the field itself; pydantic must not see it here
        status: StatusValue | None

    @property
    def known_status(self) -> RequestStatus | None:
        return parse_status(self.status)

    @property
    def is_final(self) -> bool:
        return is_final(self.status)


class _StatusBody(StatusReading, WireModel):
    status: StatusValue | None = None

    @property
    def follows_a_deposit(self) -> bool:
        known = self.known_status
        return known is not None and known.follows_a_deposit


class StatusV1(_StatusBody):
    """GET /intents/status: statuses failure, fallback, pending, received, success."""

    details: Any = None
    in_tx_hashes: list[str] | None = None
    tx_hashes: list[str] | None = None
    time: int | None = None
    origin_chain_id: int | None = None
    destination_chain_id: int | None = None


class StatusV3(_StatusBody):
    """GET /intents/status/v3."""

    details: Any = None
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    in_tx_hashes: list[str] | None = None
    tx_hashes: list[str] | None = None
    updated_at: int | None = None  # Unix milliseconds
    origin_chain_id: int | None = None
    destination_chain_id: int | None = None
    quote_created_at: int | str | None = None
