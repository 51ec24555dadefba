"""`PollPolicy`: when to ask for one request's status next. Pure arithmetic, no I/O.

The wait between two polls grows with the time since the status last changed:

    interval = clamp(ramp * seconds_since_change, fast, cap)

so a request that just moved is polled every `fast` seconds and one that sits still is polled
ever less often, up to `cap`. Polls then fall on a geometric series (each about `1 + ramp` times
further from the last change than the one before), which finds a change quickly without spending
requests on a request that waits for its deposit for minutes. Ramp and cap depend on the status:
`depositing`, `pending`, `submitted` (the service is working, the end is seconds away) use `ramp`
and the short `active_cap`; `waiting` (the user has not paid yet; it can last minutes) uses the
steeper `idle_ramp` and the longer `idle_cap`. The idle cap still bounds how late a request that
goes from `waiting` to final between two polls is noticed, so it is not made longer than that
delay is worth (bench/status_polling_bench.py measures both).

Because the interval depends on time, not on a count of polls, it carries over a pause for
webhooks and a restart: after 20 quiet seconds the next polls are spaced as if they had been
made all along.

Webhooks: each delivery for a request postpones its next poll to `webhook_quiet` seconds after
the delivery. While deliveries keep coming no polls are made; once they stop, polling resumes
at the interval above. While deliveries arrive for *other* tracked requests (the feed is live),
a request still `waiting` is polled only every `idle_cap`: its next change will most likely be
pushed as well, and the slow polls remain as a safety net for requests of another API key.

`failure` is not final (facts.md: failure -> pending -> refund happens): it is polled every
`settle_interval` until it has held for `failure_settle` seconds, then treated as final.

Following up: right after the client's own action on a request (deposit mined, signature
posted, venue transfer accepted) the service moves within moments, so the tracker is told
(`StatusTracker.nudge`) and looks at once; from then on the same ramp applies, with `first`
instead of `fast` as the shortest interval (`first`, then polls about 1.5x further apart each
time), so a run sees its outcome soon without a fixed 2 s wait.

This is the one policy: `watch`, the app and every run (`bridge`, `resume`) read it from the
settings through `from_settings`; `timeout` is how long a run follows its request before it
hands it to `crossdeck watch` / `crossdeck resume`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crossdeck.models.status import RequestStatus, parse_status

_IDLE_STATUSES = frozenset({RequestStatus.WAITING, RequestStatus.DELAYED})

FOLLOW_UP_SECONDS = 0.02
"""The shortest wait between looks after the client's own action (issue 15: the first one
within 0.25 s; it comes at once). The service often settles within tens of milliseconds of
the action (the demo world at speed 0 in 20-30 ms after a venue transfer), and polls grow
about 1.5x apart from here, so a short start costs two or three polls more per action."""


@dataclass(frozen=True)
class PollPolicy:
    """How often a request's status is read, and for how long."""

    fast: float = 1.0
    """Interval right after a change (and the shortest one)."""
    ramp: float = 0.5
    """Interval = ramp x seconds since the last change, between `fast` and the cap."""
    idle_ramp: float = 1.0
    """`ramp` for `waiting` (and statuses not known)."""
    active_cap: float = 5.0
    """Longest interval while the service works on the request (depositing/pending/submitted)."""
    idle_cap: float = 15.0
    """Longest interval while `waiting` for the user's deposit (or a status not known)."""
    webhook_quiet: float = 15.0
    """No polls for this long after a webhook for the request."""
    failure_settle: float = 30.0
    """`failure` counts as final after holding this long."""
    settle_interval: float = 3.0
    """Interval while `failure` settles."""
    error_base: float = 2.0
    """First retry delay after an error answer for one request (doubles, up to `error_cap`)."""
    error_cap: float = 60.0
    not_found_limit: int = 5
    """Stop tracking an id the service answered 404 for this many times in a row."""
    first: float = FOLLOW_UP_SECONDS
    """The shortest interval while following up the client's own action (the first look
    comes at once)."""
    nudge_delay: float = 0.0
    """From the client's own action to the next look: at once by default (the service may
    know already: the client just told it)."""
    socket_reconcile: float = 60.0
    """While the status socket pushes a request's changes: one read this often, to
    reconcile (a change the socket missed is found by it at the latest)."""
    timeout: float = 600.0
    """How long a run (`bridge`, `resume`, the app's Execute) follows its request before it
    stops with exit 10 naming `crossdeck watch` (the request goes on without it)."""

    def __post_init__(self) -> None:
        for name in (
            "fast",
            "active_cap",
            "idle_cap",
            "settle_interval",
            "error_base",
            "first",
            "timeout",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")
        for name in ("ramp", "idle_ramp", "webhook_quiet", "failure_settle", "nudge_delay"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.active_cap < self.fast or self.idle_cap < self.fast:
            raise ValueError("the caps must not be shorter than fast")
        if self.error_cap < self.error_base or self.not_found_limit < 1:
            raise ValueError("error_cap >= error_base and not_found_limit >= 1")

    @classmethod
    def from_settings(cls, tracking: Any, **overrides: float) -> PollPolicy:
        """The one reading of `Settings.tracking` (`poll_interval_seconds`,
        `poll_interval_cap_seconds`, `failure_settle_seconds`, `timeout_seconds`)."""
        fast = float(tracking.poll_interval_seconds)
        cap = max(fast, float(tracking.poll_interval_cap_seconds))
        values: dict[str, float] = {
            "fast": fast,
            "active_cap": min(cap, max(fast, cls.active_cap)),
            "idle_cap": cap,
            "failure_settle": float(tracking.failure_settle_seconds),
            "first": min(fast, FOLLOW_UP_SECONDS),  # never later than the configured interval
            "timeout": float(tracking.timeout_seconds),
        }
        values.update(overrides)
        # overrides are floats by name, which the checker cannot match to each field
        # (not_found_limit is an int); __post_init__ checks every value
        return cls(**values)  # type: ignore[arg-type]

    @staticmethod
    def is_idle(status: RequestStatus | str | None) -> bool:
        known = parse_status(status) if status is not None else None
        return known is None or known in _IDLE_STATUSES

    def cap_for(self, status: RequestStatus | str | None) -> float:
        return self.idle_cap if self.is_idle(status) else self.active_cap

    def interval(
        self,
        status: RequestStatus | str | None,
        since_change: float,
        *,
        feed_live: bool = False,
        following: bool = False,
    ) -> float:
        """Seconds from one poll to the next, `since_change` seconds after the last change.

        `feed_live`: webhooks are arriving for other tracked requests, so this one's next change
        will most likely be pushed too; a request still `waiting` is then only checked every
        `idle_cap` as a safety net. `following`: the client acted on the request (`nudge`),
        so the shortest interval is `first`, not `fast`.
        """
        if parse_status(status) is RequestStatus.FAILURE:
            return self.settle_interval
        idle = self.is_idle(status)
        if idle and feed_live and not following:
            return self.idle_cap
        grown = (self.idle_ramp if idle else self.ramp) * max(0.0, since_change)
        shortest = min(self.first, self.fast) if following else self.fast
        return min(self.cap_for(status), max(shortest, grown))

    def error_delay(self, consecutive_errors: int) -> float:
        delay: float = min(self.error_cap, self.error_base * 2 ** max(0, consecutive_errors - 1))
        return delay

    def next_poll(
        self,
        *,
        now: float,
        status: RequestStatus | str | None,
        changed_at: float,
        last_webhook_at: float | None,
        failure_since: float | None,
        feed_live: bool = False,
        following: bool = False,
    ) -> float:
        """The monotonic time of the next poll, made at `now` (after a poll or a webhook);
        `changed_at` is the last change or the client's last action, whichever is later."""
        due = now + self.interval(
            status, now - changed_at, feed_live=feed_live, following=following
        )
        if failure_since is not None:
            # the poll that confirms the settle falls exactly on its end
            due = min(due, failure_since + self.failure_settle)
        if last_webhook_at is not None:
            due = max(due, last_webhook_at + self.webhook_quiet)
        return due
