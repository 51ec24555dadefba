"""How a run follows its request to a final status: through the `track` engine it is handed.

The executor does not poll by itself. It is handed a `Follower` (a started or startable
`crossdeck.track.tracker.StatusTracker`: the one `watch` and the app use, webhooks merged) and
reads the request's updates from it; after each of its own actions (deposit mined, signature
posted, venue transfer accepted) it `nudge`s the follower, which looks again within
`policy.first` seconds. The tracker keeps the rules: a 429 waits what the service asked, an
answer a later poll can outlive (5xx, malformed, no connection) is tried again, `failure` is
final only once it held for the settle period, an id answered 404 too often is given up.

What this module adds is the run's side: one overall deadline (`policy.timeout`, each poll
bounded by it too, since the deadline cuts the wait for the next update), and, however
following ends without a final status, one `TrackingTimeout` naming the last status, the last
bad answer and the commands that follow the request on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Literal, Protocol, TypeVar

from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.errors import TrackingTimeout
from crossdeck.execute.events import Finished, StatusChanged
from crossdeck.track.policy import PollPolicy
from crossdeck.track.updates import Source, StatusUpdate

T = TypeVar("T")

# a settled failure was last read by a poll
_SOURCES: dict[Source, Literal["poll", "webhook", "socket"]] = {
    Source.WEBHOOK: "webhook",
    Source.SOCKET: "socket",
}


class Follower(Protocol):
    """What a run needs to follow its request (`StatusTracker` fits)."""

    @property
    def policy(self) -> PollPolicy: ...

    def follow(self, request_id: str) -> AsyncIterator[StatusUpdate]:
        """The request's updates, ending after its final one (or when it is given up)."""
        ...

    def nudge(self, request_id: str, *, read: bool = False) -> None:
        """The client just acted on the request: look again soon (`read`: with one status
        read even while a socket pushes the request's changes)."""
        ...

    def last_problem(self, request_id: str) -> str | None:
        """Why following is stuck, in words (the last bad answer), if it is."""
        ...


def gave_up(request_id: str, reason: str) -> TrackingTimeout:
    """Following of a sent request ended without a final status: the error that says so, with
    the exact commands to follow it (the journal keeps the run resumable)."""
    return TrackingTimeout(
        f"tracking of request {request_id} stopped before a final status: {reason}",
        hint=f"the transfer was sent and goes on; follow it with `crossdeck watch {request_id}` "
        f"or continue it with `crossdeck resume {request_id}`; do not send it again",
    )


async def status_events(
    follower: Follower, request_id: str, updates: AsyncIterator[StatusUpdate]
) -> AsyncIterator[StatusChanged | Finished]:
    """A `StatusChanged` per update of `updates` (from `follower.follow`), then `Finished`;
    however following ends without a final status, `gave_up`'s `TrackingTimeout`."""
    last = None
    try:
        async for last in until_final(follower, request_id, updates):
            yield StatusChanged(
                status=str(last.status),
                in_tx_hashes=last.in_tx_hashes,
                tx_hashes=last.tx_hashes,
                source=_SOURCES.get(last.source, "poll"),
                fail_reason=last.fail_reason,
                refund_fail_reason=last.refund_fail_reason,
                updated_at_ms=last.updated_at_ms,
            )
    except TrackingTimeout as exc:
        raise gave_up(request_id, exc.message) from exc
    except CrossdeckError as exc:
        raise gave_up(request_id, str(exc)) from exc
    assert last is not None and last.final
    yield Finished(
        request_id=request_id,
        status=str(last.status),
        fail_reason=last.fail_reason,
        refund_fail_reason=last.refund_fail_reason,
        in_tx_hashes=last.in_tx_hashes,
        tx_hashes=last.tx_hashes,
    )


async def until_final(
    follower: Follower, request_id: str, updates: AsyncIterator[StatusUpdate]
) -> AsyncIterator[StatusUpdate]:
    """`updates` (from `follower.follow`) up to the final one, within `policy.timeout`;
    `TrackingTimeout` saying why otherwise."""
    timeout = follower.policy.timeout
    latest: StatusUpdate | None = None
    try:
        async for update in with_deadline(updates, timeout):
            latest = update
            yield update
            if update.final:
                return
        reason = "the status stream ended before a final status"
    except TrackingTimeout:
        reason = f"no final status after {timeout:g}s"
    if latest is not None:
        reason += f"; last status {latest.status}"
    problem = follower.last_problem(request_id)
    if problem is not None:
        reason += f"; last answer: {problem}"
    raise TrackingTimeout(
        reason, hint="the request goes on; follow it with `crossdeck status --v3 REQUEST_ID`"
    )


async def with_deadline(stream: AsyncIterator[T], seconds: float) -> AsyncIterator[T]:
    """`stream`'s items until it ends; `TrackingTimeout` once `seconds` have passed."""
    deadline = asyncio.get_running_loop().time() + seconds
    iterator = aiter(stream)
    while True:
        try:
            # not wait_for: on 3.11 it drops a cancel (the user's) that lands as an update comes
            async with asyncio.timeout_at(deadline):
                update = await anext(iterator)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise TrackingTimeout(
                f"no final status after {seconds:g}s",
                hint="the request goes on; follow it with `crossdeck status --v3 REQUEST_ID`",
            ) from None
        yield update
