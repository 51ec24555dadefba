"""Caps on the receiver's open connections, in total and per peer, so idle ones cannot starve it.

Anyone who can reach the port can open connections without credentials. Unbounded, 300 idle
ones exhausted a 256-file limit: every later delivery hung and the event loop logged each failed
`accept()`; capped, 300 that each sent half a request head and stopped held every slot until
the header deadline, and valid deliveries got 503 meanwhile. Here every accepted connection is
counted; over a cap (the total, or the peer's own share), the oldest connection that is still
reading its head is closed to make room: one that has sent nothing, or half a head, or sits
idle after its answer, as opposed to one whose request is being handled or waits its turn. Only
when every connection is busy with a request does the new one get `503 Retry-After: 1` and is
closed, so a real sender retries. A sender sends its head at once and is then busy, so hundreds
of stalled clients cannot keep it out; what stalls is bounded in time anyway by the receiver's
read deadline (aiohttp's keep-alive timer, which also covers a head that never finishes).

The caps sit below the process's open-file limit (`effective_cap`), leaving room for the
connections one `accept()` batch takes before any of them is counted, so `accept()` itself
does not fail with "Too many open files".
"""

from __future__ import annotations

import asyncio
import os
import resource
from collections.abc import Callable
from typing import Any

from aiohttp import web

REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
    b"Connection: close\r\n\r\n"
)
_FILES_KEPT_FREE = 32
"""Open files left for everything else the process does (logs, databases, clients)."""


def effective_cap(requested: int, backlog: int) -> int:
    """`requested`, lowered to fit the open-file limit that is left after what is open now."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return requested
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:  # no /proc: assume a handful
        open_now = 16
    room = soft - open_now - backlog - _FILES_KEPT_FREE
    return max(1, min(requested, room))


class GuardedConnection(asyncio.Protocol):
    """Wraps aiohttp's per-connection protocol: counts it, and notes whether it ever sent."""

    __slots__ = ("_guard", "_inner", "_transport", "admitted", "peer", "quiet")

    def __init__(self, guard: ConnectionGuard, inner: asyncio.Protocol) -> None:
        self._guard = guard
        self._inner = inner
        self._transport: asyncio.Transport | None = None
        self.peer = "?"
        self.quiet = True
        """True until the first byte arrives: such a connection is the first to be closed."""
        self.admitted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        peername = transport.get_extra_info("peername")
        self.peer = str(peername[0]) if isinstance(peername, tuple) else str(peername)
        if not self._guard.admit(self):
            transport.write(REFUSAL)
            transport.close()
            return
        self.admitted = True
        self._inner.connection_made(transport)

    @property
    def reading_head(self) -> bool:
        """No request of this connection is being handled or waits to be: it is idle, or still
        sending a head. Read off aiohttp's protocol: its request loop waits for a message
        (`_waiter`) with none queued (`_messages`) and none in hand (`_request_in_progress`).
        Where aiohttp names these otherwise, a connection that has sent a byte counts as busy
        (never closed to make room), as before; a test pins the names."""
        if self.quiet:
            return True
        inner = self._inner
        return (
            getattr(inner, "_waiter", None) is not None
            and not getattr(inner, "_messages", True)
            and not getattr(inner, "_request_in_progress", True)
        )

    def data_received(self, data: bytes) -> None:
        if self.admitted:
            self.quiet = False
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self.admitted else None

    def pause_writing(self) -> None:
        if self.admitted:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self.admitted:
            self._inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.admitted:
            self._guard.release(self)
            self._inner.connection_lost(exc)

    def evict(self) -> None:
        if self._transport is not None:
            self._transport.close()


class ConnectionGuard:
    """Admits connections up to `max_total` open at once and `max_per_peer` per peer address."""

    def __init__(
        self,
        max_total: int,
        max_per_peer: int,
        *,
        on_refused: Callable[[str, str], None] = lambda peer, why: None,
    ) -> None:
        if max_total < 1 or max_per_peer < 1:
            raise ValueError("connection caps must be at least 1")
        self.max_total = max_total
        self.max_per_peer = max_per_peer
        self._on_refused = on_refused
        # insertion-ordered: the first entry reading its head is the oldest such connection
        self._open: dict[GuardedConnection, None] = {}
        self._by_peer: dict[str, dict[GuardedConnection, None]] = {}
        self.refused = 0
        self.evicted = 0

    @property
    def open(self) -> int:
        return len(self._open)

    def protocol_factory(self, make_inner: Callable[[], Any]) -> Callable[[], GuardedConnection]:
        return lambda: GuardedConnection(self, make_inner())

    def admit(self, conn: GuardedConnection) -> bool:
        of_peer = self._by_peer.get(conn.peer)
        if of_peer is not None and len(of_peer) >= self.max_per_peer:
            if not self._evict_oldest_reading_head(of_peer):
                return self._refuse(
                    conn, f"{self.max_per_peer} connections from it already, all busy"
                )
        if len(self._open) >= self.max_total and not self._evict_oldest_reading_head(self._open):
            return self._refuse(conn, f"{self.max_total} connections open already, all busy")
        self._open[conn] = None
        self._by_peer.setdefault(conn.peer, {})[conn] = None
        return True

    def release(self, conn: GuardedConnection) -> None:
        if conn not in self._open:  # an evicted connection is released when evicted
            return
        del self._open[conn]
        of_peer = self._by_peer[conn.peer]
        del of_peer[conn]
        if not of_peer:
            del self._by_peer[conn.peer]

    def _evict_oldest_reading_head(self, conns: dict[GuardedConnection, None]) -> bool:
        for candidate in conns:  # oldest first: the dicts keep the order they were opened in
            if candidate.reading_head:
                self.release(candidate)  # now, so the newcomer has its place at once
                candidate.evict()
                self.evicted += 1
                return True
        return False

    def _refuse(self, conn: GuardedConnection, why: str) -> bool:
        self.refused += 1
        self._on_refused(conn.peer, why)
        return False


class GuardedSite(web.BaseSite):
    """An aiohttp TCP site whose connections pass through a `ConnectionGuard`."""

    __slots__ = ("_guard", "_host", "_port")

    def __init__(
        self, runner: web.BaseRunner, host: str, port: int, guard: ConnectionGuard, backlog: int
    ) -> None:
        super().__init__(runner, backlog=backlog)
        self._host = host
        self._port = port
        self._guard = guard

    @property
    def name(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            self._guard.protocol_factory(server),
            self._host,
            self._port,
            backlog=self._backlog,
            reuse_address=True,
        )
