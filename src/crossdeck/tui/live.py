"""The requests the app follows and their status timelines (no textual here).

`LiveBoard` keeps, per request, every status update the tracker accepted (polled or pushed by a
webhook, or settled: a `failure` that held), in arrival order, plus any tracking problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crossdeck.history.came_back import CameBack
    from crossdeck.track.store import StoredRequest
    from crossdeck.track.updates import StatusUpdate


def normalise_request_id(request_id: str) -> str:
    # imported on first use: the updates' status and webhook models are pydantic classes the
    # app's first frame does not need (issue 28)
    from crossdeck.track.updates import normalise_request_id as normalise

    return normalise(request_id)


@dataclass
class TrackedRequest:
    request_id: str
    timeline: list[StatusUpdate] = field(default_factory=list)
    problem: str | None = None
    given_up: bool = False
    came_back: CameBack | None = None
    """What was sent and received (and the fees), from the service's record of the request
    (`crossdeck.history.came_back`), read again when the status changes."""
    came_back_read_at: str | None = None
    """The status the record was last asked for at (None: not yet)."""

    def wants_came_back(self) -> bool:
        """Its record is worth reading (again): it has a status the last read was not made at."""
        return self.latest is not None and self.came_back_read_at != self.status

    @property
    def latest(self) -> StatusUpdate | None:
        return self.timeline[-1] if self.timeline else None

    @property
    def status(self) -> str:
        latest = self.latest
        if latest is None:
            return "given up" if self.given_up else "waiting for a status"
        return str(latest.status)

    @property
    def final(self) -> bool:
        latest = self.latest
        return latest is not None and latest.final


class LiveBoard:
    def __init__(self) -> None:
        self.requests: dict[str, TrackedRequest] = {}
        self.webhook_url: str | None = None
        self.webhook_note: str | None = None
        self.socket_note: str | None = None
        """The status socket's last change (live, or down with polling standing in)."""

    def add(self, request_id: str) -> TrackedRequest:
        rid = normalise_request_id(request_id)
        tracked = self.requests.get(rid)
        if tracked is None:
            tracked = self.requests[rid] = TrackedRequest(rid)
        return tracked

    def remove(self, request_id: str) -> None:
        self.requests.pop(normalise_request_id(request_id), None)

    def apply(self, update: StatusUpdate) -> TrackedRequest:
        tracked = self.add(update.request_id)
        last = tracked.latest
        if last is not None and last == update:
            return tracked  # the same accepted update handed over twice (store replay)
        tracked.timeline.append(update)
        tracked.problem = None
        return tracked

    def problem(self, request_id: str | None, message: str, *, given_up: bool) -> None:
        if request_id is None:
            self.webhook_note = message if "webhook" in message else self.webhook_note
            if message.startswith("status socket"):
                self.socket_note = message
            return
        tracked = self.add(request_id)
        tracked.problem = message
        tracked.given_up = tracked.given_up or given_up

    def get(self, request_id: str) -> TrackedRequest | None:
        try:
            return self.requests.get(normalise_request_id(request_id))
        except Exception:
            return None


# after a restart Live status shows what it was following and what finished within this long
FINISHED_SHOWN_SECONDS = 86_400


def shown_after_restart(stored: Iterable[StoredRequest], now: float) -> list[StoredRequest]:
    """Of the status store's requests, those Live status lists when the app starts again: every
    unfinished one (followed again) and those that finished within the last day, oldest first."""
    shown = []
    for request in stored:
        if not request.finished:
            shown.append(request)
            continue
        latest = request.latest
        updated = latest.updated_at_ms / 1000 if latest and latest.updated_at_ms else None
        if (updated or request.added_at) >= now - FINISHED_SHOWN_SECONDS:
            shown.append(request)
    return sorted(shown, key=lambda r: r.added_at)


def clock_text(unix_seconds: float) -> str:
    """'14:03:07' in UTC (the screen says UTC in its header)."""
    return datetime.fromtimestamp(unix_seconds, UTC).strftime("%H:%M:%S")


def updated_text(updated_at_ms: int | None) -> str:
    if updated_at_ms is None:
        return "-"
    return datetime.fromtimestamp(updated_at_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")
