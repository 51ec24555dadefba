"""`StatusUpdate`: one observed status of a request, whichever way it arrived, and the merge rule.

A request's status reaches the client three ways: a v3 poll (`GET /intents/status/v3`), a
webhook (spec 6.1) and an event of the service's status websocket (quote-v3.md section 7). All
carry the same facts (status, hashes, reasons, `updatedAt`), so all become the same
`StatusUpdate`, and one rule decides whether an observation is news:

- a newer `updatedAt` wins;
- an older one is stale and dropped (a poll answered after a webhook of a later change);
- the same status change seen twice (webhook and poll, or a webhook retried) is dropped;
- a newer `updatedAt` with nothing new in it (same status, hashes, reasons, details: the server
  touched the record without a status change) is dropped as well, but remembered as the latest.

When two observations carry the same `updatedAt` but different statuses (two changes inside one
millisecond), the one further along the lifecycle wins, so `submitted` never replaces `success`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import InputError
from crossdeck.models.status import RequestStatus, StatusV3, parse_status

if TYPE_CHECKING:
    # the webhook's model and the history records it holds: a run without webhooks never
    # loads them
    from crossdeck.models.webhook import WebhookEvent

_REQUEST_ID = re.compile(r"^0x[0-9a-fA-F]{64}$")

known_status: Callable[[RequestStatus | str], RequestStatus | None] = {
    status.value: status for status in RequestStatus
}.get
"""The status as an enum member, or None when this client does not know it: `parse_status`
as one dict lookup (a member finds itself: a StrEnum hashes and compares as its text), for the
merge, which asks it of every update; `parse_status` goes through the enum's constructor."""
FINAL_STATUSES: frozenset[RequestStatus | None] = frozenset(s for s in RequestStatus if s.is_final)
"""`status in FINAL_STATUSES`: `known_status(...)` of it is final (None is not)."""


class Source(StrEnum):
    POLL = "poll"
    WEBHOOK = "webhook"
    SOCKET = "socket"
    """Pushed by the status websocket (a final one once a status read confirmed it)."""
    SETTLE = "settle"
    """Not an observation: `failure` held for the settle period and is now treated as final."""


class Verdict(StrEnum):
    NEWER = "newer"
    STALE = "stale"
    DUPLICATE = "duplicate"
    UNCHANGED = "unchanged"
    """Newer `updatedAt`, same content: remembered, not announced."""

    @property
    def is_news(self) -> bool:
        return self is Verdict.NEWER


# How far along the lifecycle a status is; only used to break ties of equal `updatedAt`.
_RANK: dict[str, int] = {
    "waiting": 0,
    "delayed": 0,
    "received": 1,
    "depositing": 1,
    "pending": 2,
    "submitted": 3,
    "failure": 4,
    "success": 5,
    "refund": 5,
    "fallback": 5,
}
_UNKNOWN_RANK = 2


def status_rank(status: RequestStatus | str | None) -> int:
    if status is None:
        return -1
    return _RANK.get(str(status), _UNKNOWN_RANK)


def normalise_request_id(request_id: str) -> str:
    """`0x` + 64 hex digits, lower-cased; `InputError` otherwise."""
    if not isinstance(request_id, str) or not _REQUEST_ID.fullmatch(request_id.strip()):
        raise InputError(
            f"request id {request_id!r} is not 0x followed by 64 hex digits",
            hint="copy it from the quote's steps[].requestId or `crossdeck requests`",
        )
    return request_id.strip().lower()


def _hashes(values: list[str] | None) -> tuple[str, ...]:
    return tuple(values or ())


@dataclass(frozen=True, slots=True)
class StatusUpdate:
    """One status of one request, from a poll, a webhook or the socket."""

    request_id: str
    status: RequestStatus | str
    updated_at_ms: int | None
    source: Source
    observed_at: float
    """`time.time()` when this client saw it."""
    in_tx_hashes: tuple[str, ...] = ()
    tx_hashes: tuple[str, ...] = ()
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    details: Any = field(default=None, compare=False)
    origin_chain_id: int | None = None
    destination_chain_id: int | None = None
    final: bool = False
    """success/refund (set when read from the service), or failure after its settle period (set
    by the tracker)."""

    @property
    def known_status(self) -> RequestStatus | None:
        return parse_status(self.status)

    def content(self) -> tuple[Any, ...]:
        """What makes two observations of the same request say different things."""
        details = self.details if _hashable(self.details) else repr(self.details)
        return (
            str(self.status),
            self.in_tx_hashes,
            self.tx_hashes,
            self.fail_reason,
            self.refund_fail_reason,
            details,
        )

    def freshness(self, now: float | None = None) -> str:
        """Where this status came from and how old it is, in words: `socket, 0.02 s old`
        (its age from the service's `updatedAt`, else from when this client saw it)."""
        return f"{self.source.value}, {age_words(self.updated_at_ms, self.observed_at, now)}"

    def with_final(self, final: bool) -> StatusUpdate:
        return replace(self, final=final)

    def to_json(self) -> dict[str, Any]:
        return {
            "requestId": self.request_id,
            "status": str(self.status),
            "updatedAt": self.updated_at_ms,
            "source": self.source.value,
            "final": self.final,
            "observedAt": int(self.observed_at * 1000),
            "inTxHashes": list(self.in_tx_hashes),
            "txHashes": list(self.tx_hashes),
            "failReason": self.fail_reason,
            "refundFailReason": self.refund_fail_reason,
            "details": self.details,
            "originChainId": self.origin_chain_id,
            "destinationChainId": self.destination_chain_id,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> StatusUpdate:
        status = raw["status"]
        return cls(
            request_id=raw["requestId"],
            status=parse_status(status) or status,
            updated_at_ms=raw.get("updatedAt"),
            source=Source(raw.get("source", Source.POLL)),
            observed_at=raw.get("observedAt", 0) / 1000,
            in_tx_hashes=tuple(raw.get("inTxHashes") or ()),
            tx_hashes=tuple(raw.get("txHashes") or ()),
            fail_reason=raw.get("failReason"),
            refund_fail_reason=raw.get("refundFailReason"),
            details=raw.get("details"),
            origin_chain_id=raw.get("originChainId"),
            destination_chain_id=raw.get("destinationChainId"),
            final=bool(raw.get("final", False)),
        )

    @classmethod
    def from_v3(
        cls, request_id: str, body: StatusV3, *, observed_at: float | None = None
    ) -> StatusUpdate:
        if body.status is None:
            raise ValueError("the v3 status body has no status")
        known = body.known_status
        return cls(
            request_id=request_id,
            status=known or body.status,
            updated_at_ms=body.updated_at,
            source=Source.POLL,
            observed_at=time.time() if observed_at is None else observed_at,
            in_tx_hashes=_hashes(body.in_tx_hashes),
            tx_hashes=_hashes(body.tx_hashes),
            fail_reason=body.fail_reason,
            refund_fail_reason=body.refund_fail_reason,
            details=body.details,
            origin_chain_id=body.origin_chain_id,
            destination_chain_id=body.destination_chain_id,
            final=known is not None and known.is_final,
        )

    @classmethod
    def from_webhook(cls, event: WebhookEvent, *, observed_at: float | None = None) -> StatusUpdate:
        data = event.data
        if data is None or not data.request_id or data.status is None:
            raise ValueError("the webhook event has no data.requestId or data.status")
        known = known_status(data.status)
        return cls(
            request_id=data.request_id.lower(),
            status=known or data.status,
            updated_at_ms=data.updated_at,
            source=Source.WEBHOOK,
            observed_at=time.time() if observed_at is None else observed_at,
            in_tx_hashes=_hashes(data.in_tx_hashes),
            tx_hashes=_hashes(data.tx_hashes),
            fail_reason=data.fail_reason,
            refund_fail_reason=data.refund_fail_reason,
            details=data.details,
            origin_chain_id=data.origin_chain_id,
            destination_chain_id=data.destination_chain_id,
            final=known in FINAL_STATUSES,
        )

    @classmethod
    def from_socket(cls, data: dict[str, Any], *, observed_at: float | None = None) -> StatusUpdate:
        """The `data` of a `request.status.updated` socket event; `ValueError` when it lacks
        what the AsyncAPI schema requires (`status`, `updatedAt`, `requestId`, the chain ids)
        or names a status this client does not know (such an event changes nothing)."""
        rid = data.get("requestId")
        if not isinstance(rid, str) or not _REQUEST_ID.fullmatch(rid):
            raise ValueError("requestId is not 0x followed by 64 hex digits")
        known = parse_status(data.get("status")) if isinstance(data.get("status"), str) else None
        if known is None:
            raise ValueError(f"unknown status {str(data.get('status'))[:40]!r}")
        updated = data.get("updatedAt")
        if not isinstance(updated, int) or isinstance(updated, bool) or updated < 0:
            raise ValueError("updatedAt is not a millisecond timestamp")
        origin, destination = data.get("originChainId"), data.get("destinationChainId")
        return cls(
            request_id=rid.lower(),
            status=known,
            updated_at_ms=updated,
            source=Source.SOCKET,
            observed_at=time.time() if observed_at is None else observed_at,
            in_tx_hashes=_strings(data.get("inTxHashes")),
            tx_hashes=_strings(data.get("txHashes")),
            fail_reason=_reason(data.get("failReason")),
            refund_fail_reason=_reason(data.get("refundFailReason")),
            origin_chain_id=origin if isinstance(origin, int) else None,
            destination_chain_id=destination if isinstance(destination, int) else None,
            final=known.is_final,
        )


def age_words(updated_at_ms: int | None, observed_at: float | None, now: float | None) -> str:
    """`0.02 s old`, `3 min old`: the age of a status changed at `updated_at_ms` (the
    service's clock), else seen at `observed_at`."""
    now = time.time() if now is None else now
    since = updated_at_ms / 1000 if updated_at_ms is not None else observed_at
    if since is None:
        return "age unknown"
    age = max(0.0, now - since)
    if age < 10:
        return f"{age:.2f} s old"
    if age < 120:
        return f"{age:.0f} s old"
    if age < 7200:
        return f"{age / 60:.0f} min old"
    return f"{age / 3600:.0f} h old"


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return ()
    return tuple(value)


def _reason(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def compare(new: StatusUpdate, old: StatusUpdate | None) -> Verdict:
    """Whether `new` is news relative to `old`, the latest accepted observation."""
    if old is None:
        return Verdict.NEWER
    same_content = new.content() == old.content()
    if new.updated_at_ms is not None and old.updated_at_ms is not None:
        if new.updated_at_ms < old.updated_at_ms:
            return Verdict.STALE
        if new.updated_at_ms > old.updated_at_ms:
            return Verdict.UNCHANGED if same_content else Verdict.NEWER
    # Same updatedAt (or one side lacks it): order by the lifecycle.
    if same_content:
        return Verdict.DUPLICATE
    if str(new.status) == str(old.status):
        # Same status, different facts at the same instant: keep what came first.
        return Verdict.DUPLICATE
    return Verdict.NEWER if status_rank(new.status) > status_rank(old.status) else Verdict.STALE
