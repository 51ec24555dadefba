"""`RateBudget`: one token bucket shared by every status request the tracker makes.

The service limits calls per API key, not per request id, so 1,000 tracked ids must share one
allowance. Configure the budget below the server's limit for the key; then the server never
has to say 429. If it does anyway (another client on the same key, a lower limit than
configured), the whole budget stops for the server's `Retry-After`, drops the tokens it had
saved up (so it does not burst straight back into the limit), and halves its rate; each
answered request then wins back a slice of the configured rate.

A service that does not answer at all (connection refused, 503) pauses the budget too, with
exponential backoff: polling harder cannot help and would only stack up timeouts.

`clock` and `sleep` are injectable so tests can follow the waits it asks for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

DEFAULT_RETRY_AFTER = 1.0
"""Pause after a 429 that names no Retry-After (doubled while 429s keep coming)."""


@dataclass
class BudgetStats:
    """What the rate budget let through, and what the service refused."""

    granted: int = 0
    """Requests let through."""
    rate_limited: int = 0
    """429 answers reported with `rate_limited()`."""
    unavailable: int = 0
    """Connection failures / 503s reported with `unavailable()`."""
    pauses: int = 0
    paused_seconds: float = 0.0
    """Total pause time asked for (overlapping pauses count once)."""
    last_pause: float = 0.0


class RateBudget:
    def __init__(
        self,
        rate: float,
        burst: float | None = None,
        *,
        min_rate_fraction: float = 0.125,
        recovery_steps: int = 20,
        max_pause: float = 300.0,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        """`rate` requests per second on average, at most `burst` at once (default: one
        second's worth, at least 1)."""
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate!r}")
        burst = max(1.0, rate) if burst is None else burst
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst!r}")
        if not 0 < min_rate_fraction <= 1 or recovery_steps < 1 or max_pause <= 0:
            raise ValueError("min_rate_fraction in (0, 1], recovery_steps >= 1, max_pause > 0")
        self.rate = float(rate)
        self.burst = float(burst)
        self._current_rate = self.rate
        self._min_rate = self.rate * min_rate_fraction
        self._recovery = self.rate / recovery_steps
        self.max_pause = max_pause
        self._clock = clock
        self._sleep = sleep
        self._tokens = self.burst
        self._stamp = clock()
        self._paused_until = 0.0
        self._rate_limited_streak = 0
        self._unavailable_streak = 0
        self._lock = asyncio.Lock()
        self.stats = BudgetStats()

    def __repr__(self) -> str:
        return (
            f"RateBudget(rate={self.rate:g}/s, burst={self.burst:g}, "
            f"current={self._current_rate:g}/s, granted={self.stats.granted}, "
            f"429s={self.stats.rate_limited})"
        )

    @property
    def current_rate(self) -> float:
        return self._current_rate

    def paused_for(self) -> float:
        """Seconds until the budget lets requests through again (0 when not paused)."""
        return max(0.0, self._paused_until - self._clock())

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._stamp)
        self._tokens = min(self.burst, self._tokens + elapsed * self._current_rate)
        self._stamp = now

    def try_acquire(self) -> bool:
        """Take a token now if one is free and the budget is not paused."""
        now = self._clock()
        if now < self._paused_until:
            return False
        self._refill(now)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.stats.granted += 1
            return True
        return False

    async def acquire(self) -> None:
        """Wait for a token (first come, first served)."""
        async with self._lock:
            while True:
                now = self._clock()
                if now < self._paused_until:
                    await self._sleep(self._paused_until - now)
                    continue
                self._refill(now)
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    self.stats.granted += 1
                    return
                await self._sleep((1.0 - self._tokens) / self._current_rate)

    def give_back(self) -> None:
        """Return a token taken with `acquire` that ended up unused."""
        self._tokens = min(self.burst, self._tokens + 1.0)
        self.stats.granted -= 1

    # -- what the answers said ------------------------------------------------------------

    def answered(self) -> None:
        """The service answered (anything but 429/503): rate and backoff recover."""
        self._rate_limited_streak = 0
        self._unavailable_streak = 0
        if self._current_rate < self.rate:
            self._current_rate = min(self.rate, self._current_rate + self._recovery)

    def rate_limited(self, retry_after: float | None) -> float:
        """A 429: pause everyone for `retry_after` (or a doubling default); returns the pause."""
        self.stats.rate_limited += 1
        self._rate_limited_streak += 1
        if retry_after is None or retry_after < 0:
            pause = DEFAULT_RETRY_AFTER * 2 ** (self._rate_limited_streak - 1)
        else:
            pause = retry_after
        self._current_rate = max(self._min_rate, self._current_rate / 2)
        self._tokens = 0.0
        return self._pause(pause)

    def unavailable(self, base: float = 1.0, cap: float = 30.0) -> float:
        """No answer or 503: pause everyone with exponential backoff; returns the pause."""
        self.stats.unavailable += 1
        self._unavailable_streak += 1
        pause = min(cap, base * 2 ** (self._unavailable_streak - 1))
        return self._pause(pause)

    def _pause(self, seconds: float) -> float:
        seconds = min(max(0.0, seconds), self.max_pause)
        now = self._clock()
        until = now + seconds
        if until > self._paused_until:
            self.stats.paused_seconds += until - max(now, self._paused_until)
            self._paused_until = until
        self._refill(now)
        self._tokens = 0.0
        self._stamp = max(now, self._paused_until)
        self.stats.pauses += 1
        self.stats.last_pause = seconds
        return seconds
