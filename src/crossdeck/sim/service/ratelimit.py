"""Per-caller token buckets: keyed callers get a larger bucket than anonymous ones.

A bucket holds ``per_minute`` tokens and refills continuously at ``per_minute / 60`` tokens per
second. A call takes one token; with none left it is refused with the whole seconds until the
next token (the 429's ``Retry-After``). Anonymous callers are bucketed by remote address, keyed
callers by key name.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    def __init__(
        self,
        *,
        anonymous_per_minute: int = 600,
        keyed_per_minute: int = 6000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if anonymous_per_minute < 1 or keyed_per_minute < 1:
            raise ValueError("rate limits must allow at least one call a minute")
        self.anonymous_per_minute = anonymous_per_minute
        self.keyed_per_minute = keyed_per_minute
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def take(self, caller: str, *, keyed: bool) -> int | None:
        """Take a token for ``caller``; None when allowed, else seconds to wait (>= 1)."""
        capacity = self.keyed_per_minute if keyed else self.anonymous_per_minute
        rate = capacity / 60.0
        now = self._clock()
        key = f"{'key' if keyed else 'anon'}:{caller}"
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = _Bucket(float(capacity), now)
            bucket.tokens = min(float(capacity), bucket.tokens + (now - bucket.stamp) * rate)
            bucket.stamp = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return None
            return max(1, math.ceil((1.0 - bucket.tokens) / rate))
