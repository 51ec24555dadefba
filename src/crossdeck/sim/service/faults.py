"""Fault injection for client tests (demo-only).

``FaultInjector.inject(kind, count, path=None, delay=...)`` arms a fault for the next ``count``
responses whose path starts with ``path`` (all paths when None). The service middleware asks
``take(path)`` once per request and applies what it gets:

- ``503``: ``{"message", "errorCode": "SERVICE_UNAVAILABLE"}`` with status 503;
- ``429``: ``{"message", "errorCode": "RATE_LIMITED"}`` with ``Retry-After: 1``;
- ``slow``: the real response, after sleeping ``delay`` seconds;
- ``malformed``: status 200 with a body that is not JSON.

Reachable over HTTP at ``POST /_sim/faults`` (JSON ``{kind, count, path?, delay?}``) so tests
that run the world in a subprocess can use it. ``/_sim/*`` exists only in the demo world.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

FAULT_KINDS = ("503", "429", "slow", "malformed")


@dataclass
class Fault:
    kind: str
    remaining: int
    path: str | None
    delay: float


class FaultInjector:
    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self._lock = threading.Lock()

    def inject(
        self, kind: str, count: int = 1, *, path: str | None = None, delay: float = 2.0
    ) -> None:
        """Arm ``kind`` for the next ``count`` matching responses. Faults queue in order."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; use one of {', '.join(FAULT_KINDS)}")
        if count < 1:
            raise ValueError("count must be at least 1")
        if delay < 0:
            raise ValueError("delay must not be negative")
        with self._lock:
            self._faults.append(Fault(kind, count, path, delay))

    def take(self, path: str) -> Fault | None:
        """The fault to apply to a response for ``path`` (consumes one use), or None."""
        if path.startswith("/_sim/"):
            return None
        with self._lock:
            for fault in self._faults:
                if fault.path is None or path.startswith(fault.path):
                    fault.remaining -= 1
                    if fault.remaining <= 0:
                        self._faults.remove(fault)
                    return Fault(fault.kind, 1, fault.path, fault.delay)
        return None

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def pending(self) -> int:
        with self._lock:
            return sum(f.remaining for f in self._faults)
