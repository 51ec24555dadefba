"""What the status tracker keeps per request, what it reports, and what it needs of others.

Split from `crossdeck.track.tracker` (the engine) so each module holds one job.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from crossdeck.api.errors import ServiceError
from crossdeck.models.status import StatusV3
from crossdeck.track.updates import StatusUpdate


class StatusSource(Protocol):
    """What the tracker needs of the service: `ServiceClient` fits."""

    async def status_v3(self, request_id: str) -> StatusV3: ...


class EventSource(Protocol):
    """What `attach` needs at least: items with `.event` and `.received_at`."""

    def events(self) -> AsyncIterator[Any]: ...


@runtime_checkable
class PushingSource(Protocol):
    """A source that hands each item to a function as it comes: `WebhookReceiver` fits."""

    def deliver_to(self, sink: Callable[[Any], None] | None) -> None: ...


@dataclass(frozen=True)
class Problem:
    """Something went wrong tracking one request (or all of them, when `request_id` is None)."""

    request_id: str | None
    message: str
    given_up: bool = False
    error: BaseException | None = field(default=None, compare=False, repr=False)


@dataclass
class TrackerStats:
    """What a status tracker did: polls, webhooks and socket messages taken."""

    polls: int = 0
    """Status requests sent."""
    poll_errors: int = 0
    webhooks: int = 0
    """Webhook events fed in for tracked ids."""
    webhooks_ignored: int = 0
    """Webhook events for ids not tracked."""
    socket_events: int = 0
    """Socket events fed in for tracked ids."""
    socket_unconfirmed: int = 0
    """Final statuses the socket announced that the status read did not confirm."""
    emitted: int = 0
    stale: int = 0
    duplicates: int = 0
    unchanged: int = 0


@dataclass
class RequestState:
    """What the tracker knows of one request it follows."""

    request_id: str
    changed_at: float
    latest: StatusUpdate | None = None
    final: bool = False
    given_up: str | None = None
    last_webhook_at: float | None = None
    failure_since: float | None = None
    errors: int = 0
    not_found: int = 0
    polls: int = 0
    webhooks: int = 0
    heap_seq: int = -1
    due: float | None = None
    """When its next status read is scheduled (the clock's time of the latest heap entry)."""
    in_flight: bool = False
    following: bool = False
    """The client acts on this request (`nudge`): polls may come as soon as `policy.first`."""
    nudged: bool = False
    """Nudged while a poll was in flight (its answer may predate the action): poll again as
    soon as it is back."""
    problem: str | None = None
    """The last answer that was waited out (cleared by a good one)."""
    socket_acked: bool = False
    """The status socket acknowledged this request's subscription: its changes are pushed."""
    socket_claim: StatusUpdate | None = None
    """A final status the socket announced, waiting for the status read that confirms it."""
    catch_up: bool = False
    """Changes may have gone unseen (the client acted, or the socket was down, before the
    subscription was acknowledged): one status read once it is."""

    @property
    def finished(self) -> bool:
        return self.final or self.given_up is not None


# 4xx answers that say "not now" rather than "never" (with 404, counted apart, and 429)
_TRANSIENT_CLIENT_STATUSES = frozenset({404, 408, 425, 429})


def refused_for_good(exc: ServiceError) -> bool:
    """A 4xx that no later poll can outlive (a bad key, a request id the service refuses)."""
    status = exc.status
    return status is not None and 400 <= status < 500 and status not in _TRANSIENT_CLIENT_STATUSES


def short_reason(exc: BaseException) -> str:
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return text if len(text) <= 160 else text[:160] + "…"


@dataclass(frozen=True)
class FeedStatus:
    """How statuses reach the tracker now: `socket` is live, down (polls stand in), off (no
    socket configured); `reason` in words; `since` the monotonic time of the last change."""

    socket: str
    reason: str
    since: float

    def words(self) -> str:
        if self.socket == "live":
            return "status socket live"
        if self.socket == "off":
            return "polling (no status socket)"
        return f"status socket {self.socket} ({self.reason}): polling stands in"
