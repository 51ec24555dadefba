"""`ReplayWindow`: the status changes accepted while a replay of them could still pass the clock.

A delivery signed at `t` passes the signature check until `t + tolerance`, so a replay of it
must be recognised at least that long. Remembering a fixed number of deliveries (the old way)
was not enough: after 10,000 fresh events the first one's exact bytes, still inside its 5
minutes, were accepted and processed again. Here a status change is kept until the newest
timestamp it arrived under has left the window; after that a replay of any of those deliveries
is refused as stale by the signature check, so forgetting it is safe.

Memory is bounded twice: by the window (only changes signed within `tolerance` of now stay) and
by `capacity`. A change is stored as a 16-byte digest of its key and an integer expiry, about
200 bytes each with the dict and heap entries (measured by `footprint_bytes`), so the default
100,000 bound about 20 MB whatever the body size (the body-size limit bounds only the key that
is hashed). When the window holds `capacity` changes, `full` says so and the receiver answers
503 Retry-After (the sender retries) rather than forget one that could still be replayed.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import sys


def _digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class ReplayWindow:
    """De-duplication keys, each remembered until its newest signature timestamp is stale."""

    def __init__(self, tolerance: float, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        if not tolerance >= 0:  # also refuses nan
            raise ValueError("tolerance must be >= 0")
        # whole seconds, rounded up: timestamps are whole seconds and the check is `age <= tol`
        self._keep = math.inf if math.isinf(tolerance) else math.ceil(tolerance)
        self.capacity = capacity
        self._expiry: dict[bytes, float] = {}
        self._heap: list[tuple[float, bytes]] = []
        # the receiver asks `seen` and then `add` for the same key: hash it once
        self._last: tuple[str, bytes] | None = None

    def __len__(self) -> int:
        return len(self._expiry)

    def seen(self, key: str, signed_at: int, now: float) -> bool:
        """Whether `key` was accepted and is still remembered; a later `signed_at` (the sender
        signed a retry again) keeps it until that one is stale too."""
        self._forget_stale(now)
        digest = self._digest(key)
        expiry = self._expiry.get(digest)
        if expiry is None:
            return False
        if signed_at + self._keep > expiry:
            self._set(digest, signed_at + self._keep)
        return True

    def full(self, now: float) -> bool:
        self._forget_stale(now)
        return len(self._expiry) >= self.capacity

    def add(self, key: str, signed_at: int) -> None:
        self._set(self._digest(key), signed_at + self._keep)

    def _digest(self, key: str) -> bytes:
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        digest = _digest(key)
        self._last = (key, digest)
        return digest

    def _set(self, digest: bytes, expiry: float) -> None:
        self._expiry[digest] = expiry
        heapq.heappush(self._heap, (expiry, digest))
        # A key re-signed many times leaves superseded heap entries; rebuild before they pile up.
        if len(self._heap) > 2 * len(self._expiry) + 64:
            self._heap = [(exp, dig) for dig, exp in self._expiry.items()]
            heapq.heapify(self._heap)

    def _forget_stale(self, now: float) -> None:
        heap = self._heap
        while heap and heap[0][0] < now:
            expiry, digest = heapq.heappop(heap)
            if self._expiry.get(digest) == expiry:
                del self._expiry[digest]

    def footprint_bytes(self) -> int:
        """What the remembered keys take in memory (containers and their entries)."""
        size = sys.getsizeof(self._expiry) + sys.getsizeof(self._heap)
        size += sum(sys.getsizeof(d) + sys.getsizeof(e) for d, e in self._expiry.items())
        size += sum(sys.getsizeof(entry) for entry in self._heap)
        return size
