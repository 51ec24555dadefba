"""Follow one request to a final status by polling the v3 status endpoint.

Small on purpose (the richer `crossdeck.track.StatusTracker` merges webhooks too): a policy and
an async generator of status updates, so the executor can take any other source that yields
`StatusV3`-shaped updates.

- Backoff: `initial` seconds, times `factor` after every poll that shows no change, capped at
  `cap`; back to `initial` after a change.
- 429: wait what the service asked (`RateLimitedError.retry_after`), at least the interval.
- A lost connection, a timeout, a 5xx or a malformed answer: keep trying, waiting longer each
  time, until the overall timeout. By now something was signed or sent, and the request goes on
  without us: one bad answer must not end tracking (a user who sees an error may pay twice).
- Each poll is bounded by the overall deadline too, so a slow answer cannot hold past it.
- Final: `success` and `refund`. `failure` is final only once it has held for `failure_settle`
  seconds, because a failed request may still be refunded (facts.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from crossdeck.api.errors import (
    MalformedResponseError,
    RateLimitedError,
    ServiceConnectionError,
    ServiceError,
    ServiceUnavailableError,
)
from crossdeck.execute.errors import TrackingTimeout
from crossdeck.models import RequestStatus, StatusV3, parse_status

NOT_FOUND_LIMIT = 5
# the first look after the client's own action (the goal: within 0.25 s)
FOLLOW_UP_SECONDS = 0.25
# 4xx answers that say "not now" rather than "never": waited out like a 5xx
_TRANSIENT_CLIENT_STATUSES = frozenset({408, 425})


@dataclass(frozen=True)
class TrackingPolicy:
    initial: float = 1.0
    """First wait between polls (seconds)."""
    factor: float = 1.5
    """Growth of the wait after each poll without a change."""
    cap: float = 10.0
    """Longest wait between polls."""
    failure_settle: float = 30.0
    """How long `failure` must hold before it counts as final (a refund may follow)."""
    timeout: float = 600.0
    """Give up tracking after this long without a final status."""
    first: float | None = None
    """The first wait, right after the client's own last action (deposit confirmed, signature
    posted, transfer accepted): the service moves within moments of it, so look again soon;
    the wait then grows by `factor` as usual. None: `initial`."""

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.cap < self.initial or self.factor < 1:
            raise ValueError("need 0 < initial <= cap and factor >= 1")
        if self.failure_settle < 0 or self.timeout <= 0:
            raise ValueError("failure_settle must be >= 0 and timeout > 0")
        if self.first is not None and self.first <= 0:
            raise ValueError("first must be > 0")

    @classmethod
    def from_settings(cls, tracking: Any) -> TrackingPolicy:
        """From `Settings.tracking`."""
        initial = float(tracking.poll_interval_seconds)
        return cls(
            initial=initial,
            first=min(initial, FOLLOW_UP_SECONDS),
            cap=max(initial, float(tracking.poll_interval_cap_seconds)),
            failure_settle=float(tracking.failure_settle_seconds),
            timeout=float(tracking.timeout_seconds),
        )

    def next_interval(self, interval: float) -> float:
        return min(self.cap, interval * self.factor)


@dataclass(frozen=True)
class StatusUpdate:
    """One poll answer that differs from the previous one; `final` marks the last."""

    status: StatusV3
    final: bool


StatusFetch = Callable[[], Awaitable[StatusV3]]


def gave_up(request_id: str, reason: str) -> TrackingTimeout:
    """Tracking of a sent request ended without a final status: the error that says so, with
    the exact commands to follow it (the journal keeps the run resumable)."""
    return TrackingTimeout(
        f"tracking of request {request_id} stopped before a final status: {reason}",
        hint=f"the transfer was sent and goes on; follow it with `crossdeck watch {request_id}` "
        f"or continue it with `crossdeck resume {request_id}`; do not send it again",
    )


def _waited_out(exc: ServiceError) -> bool:
    """A status answer that a later poll can outlive."""
    if isinstance(exc, MalformedResponseError | ServiceUnavailableError):
        return True
    return exc.status is not None and (
        exc.status >= 500 or exc.status in _TRANSIENT_CLIENT_STATUSES
    )


def _signature(status: StatusV3) -> tuple[Any, ...]:
    return (
        status.status,
        tuple(status.in_tx_hashes or ()),
        tuple(status.tx_hashes or ()),
        status.fail_reason,
        status.refund_fail_reason,
    )


async def poll_status(
    fetch: StatusFetch,
    policy: TrackingPolicy,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> AsyncIterator[StatusUpdate]:
    """Yield each change of status until a final one; `TrackingTimeout` after `policy.timeout`.

    Errors that a later poll can outlive (429, 5xx, malformed answers, no connection, a
    timeout) are waited out with a growing wait; other service errors propagate, except a few
    404s right after a quote (the service may not list the request yet)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + policy.timeout
    follow_up = min(policy.initial, policy.first or policy.initial)
    interval = follow_up
    last: tuple[Any, ...] | None = None
    failure_since: float | None = None
    not_found = 0
    latest: StatusV3 | None = None
    problem: str | None = None  # the last answer that was waited out, for the timeout message
    while True:
        wait = interval
        try:
            async with asyncio.timeout_at(deadline):
                status = await fetch()
            not_found = 0
            problem = None
        except TimeoutError:
            # cut by the deadline: an earlier bad answer says more than this one
            status = None
            problem = problem or "the last status request was still unanswered"
        except RateLimitedError as exc:
            status, problem = None, _short(exc)
            wait = max(interval, exc.retry_after or 0.0)
        except ServiceConnectionError as exc:
            status, problem = None, _short(exc)
            interval = policy.next_interval(interval)
        except ServiceError as exc:
            if _waited_out(exc):
                status, problem = None, _short(exc)
                interval = policy.next_interval(interval)
            elif exc.status != 404 or not_found + 1 >= NOT_FOUND_LIMIT:
                raise
            else:
                not_found += 1
                status = None
        if status is not None:
            latest = status
            known = parse_status(status.status)
            now = loop.time()
            changed = _signature(status) != last
            if known is RequestStatus.FAILURE:
                failure_since = now if failure_since is None or changed else failure_since
            else:
                failure_since = None
            settled = failure_since is not None and now - failure_since >= policy.failure_settle
            final = status.is_final or settled
            if changed or final:
                # the first answer is the one right after the client's action: keep looking
                # soon; a later change starts the policy's back-off again
                interval = follow_up if last is None else policy.initial
                wait = interval
                last = _signature(status)
                yield StatusUpdate(status, final)
            else:
                interval = policy.next_interval(interval)
                wait = interval
            if final:
                return
            if failure_since is not None:
                # wake up in time to call the failure settled
                wait = min(wait, max(0.0, failure_since + policy.failure_settle - now))
        remaining = deadline - loop.time()
        if remaining <= 0:
            where = f"; last status {latest.status}" if latest is not None else ""
            if problem is not None:
                where += f"; last answer: {problem}"
            raise TrackingTimeout(
                f"no final status after {policy.timeout:g}s{where}",
                hint="the request goes on; follow it with `crossdeck status --v3 REQUEST_ID`",
            )
        await sleep(min(wait, remaining))


def _short(exc: Exception) -> str:
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return text if len(text) <= 160 else text[:160] + "…"
