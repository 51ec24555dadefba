"""When and how long to wait before asking the service (or the venue) again.

Pure policy, no I/O of its own: the clients ask it whether an outcome is worth another attempt and
how long to sleep first. The sleep and the random source are injectable so tests can record the
delays instead of waiting them out.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from crossdeck.models.errors import TRANSIENT_ERROR_CODES

Sleep = Callable[[float], Awaitable[None]]

# Statuses that say the server did not act on the request: 429 turns it away before handling,
# 503 says it cannot serve at all. Both are safe to resend even for requests with effects.
NOT_ACTED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter (AWS style), and Retry-After honoured.

    `max_attempts` counts the first try (1 = never retry). The n-th retry waits a uniformly
    random time in [0, min(max_delay, base_delay * 2**n)] (or exactly that cap with
    `jitter=False`). A `Retry-After` from the server replaces the computed delay; when it asks for
    longer than `max_retry_after` the client stops and reports it instead of blocking for minutes.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    jitter: bool = True
    max_retry_after: float = 60.0
    sleep: Sleep = field(default=asyncio.sleep, repr=False, compare=False)
    random: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("delays must not be negative")

    def backoff(self, retry_number: int) -> float:
        """Delay before retry number `retry_number` (0 = the first retry)."""
        cap: float = min(self.max_delay, self.base_delay * (2**retry_number))
        return cap * self.random() if self.jitter else cap

    def delay_before_retry(self, retry_number: int, retry_after: float | None) -> float | None:
        """Seconds to wait, or None when the server's Retry-After exceeds what we accept."""
        if retry_after is None:
            return self.backoff(retry_number)
        if retry_after > self.max_retry_after:
            return None
        return max(retry_after, 0.0)

    def can_retry(self, attempt: int) -> bool:
        """Whether another attempt may follow attempt number `attempt` (1-based)."""
        return attempt < self.max_attempts


NO_RETRY = RetryPolicy(max_attempts=1)


def is_transient(status: int, error_code: str | None) -> bool:
    """An answer that is likely to succeed if asked again later (for idempotent requests)."""
    return status in NOT_ACTED_STATUSES or (error_code in TRANSIENT_ERROR_CODES)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP-date; None when unusable."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if seconds >= 0 else None  # also rejects NaN
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max((when - current).total_seconds(), 0.0)
