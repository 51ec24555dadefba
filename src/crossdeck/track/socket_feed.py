"""`SocketFeed`: the service's status websocket, one connection for every followed request.

    feed = SocketFeed(url, api_key=key, sink=tracker)   # the tracker makes it (`use_socket`)
    feed.subscribe(request_id)                           # sent once the socket is ready

The protocol (quote-v3.md section 7): the server speaks first with
`{"type":"connection","status":"ready"}`, and nothing is sent before it; each followed request
is subscribed with `{"type":"subscribe","event":"request.status.updated","filters":{"id":..}}`
and acknowledged; events arrive as `{"event":"request.status.updated","data":{..},
"publishedAt":ms}` (the public SDK also accepts the same nested one level deeper in `data`:
so does this feed). The key goes in the URL (`?apiKey=`), never in a log line.

What the feed does with what it cannot trust (each kind noted once, through the sink):

- a frame that is not JSON, longer than `max_frame`, of a request not subscribed, of another
  event, with a status this client does not know or without the required fields: dropped;
- a final status: handed on as a claim only; the tracker confirms it with one status read
  before anything ends (nothing from the socket alone ends a run);
- no ready message within `ready_timeout`, or no acknowledgement of a subscription within
  `ack_timeout` (a stalled socket), or more than `flood_per_second` frames in a second (a
  flooding one): the socket is closed and the tracker's polls stand in; the next connection is
  tried after a longer pause (`penalty`).

Reconnecting: the public service restarts its sockets on every deploy, and subscriptions die
with the connection. After any close the feed connects again after a backoff with full
jitter (`backoff_base` doubling up to `backoff_cap`; back to the base once a connection was
ready), and subscribes every request again; the tracker reads each once after the new
acknowledgement, since changes made while the socket was down were never pushed.

The client is the `websockets` package's (a dependency of web3, so installed anyway), not
aiohttp's: every `bridge`, `watch` and the app import the feed, and aiohttp cost ~0.2 s of a
bridge's start (about a fifth of it on an idle machine) where `websockets` costs ~0.03 s. It
speaks to the endpoint as aiohttp did: no compression, no proxy, the same heartbeat and sizes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from crossdeck.base.secret import Secret
from crossdeck.base.tls import client_context
from crossdeck.track.updates import StatusUpdate, normalise_request_id

log = logging.getLogger(__name__)

EVENT = "request.status.updated"

_WIRE_LOG = logging.getLogger(f"{__name__}.wire")
# websockets logs the handshake's request line at DEBUG, and the key is in its URL
_WIRE_LOG.setLevel(logging.INFO)


class SocketSink(Protocol):
    """What the feed hands on (`StatusTracker` fits)."""

    def socket_event(self, update: StatusUpdate) -> None: ...

    def socket_acked(self, request_id: str) -> None: ...

    def socket_state(self, live: bool, reason: str) -> None: ...

    def socket_note(self, kind: str, message: str) -> None: ...


@dataclass(frozen=True)
class SocketLimits:
    """The status socket's timeouts and limits."""

    ready_timeout: float = 5.0
    """Seconds from the connection to the ready message."""
    ack_timeout: float = 5.0
    """Seconds from a subscribe to its acknowledgement."""
    connect_timeout: float = 5.0
    max_frame: int = 64 * 1024
    """A longer frame is dropped (an event is well under 2 KiB)."""
    flood_per_second: int = 500
    """More frames than this in one second close the socket (raised with the requests
    followed: `flood_limit`)."""
    heartbeat: float = 20.0
    """A ping this often; no pong in time closes the socket (a stall)."""
    backoff_base: float = 0.25
    backoff_cap: float = 30.0
    penalty: float = 60.0
    """The shortest pause after a socket was closed for stalling or flooding."""
    future_skew_ms: int = 5 * 60 * 1000
    """An `updatedAt` further in the future than this is not believed."""

    def flood_limit(self, followed: int) -> int:
        return max(self.flood_per_second, 10 * followed)


class _Misbehaved(Exception):
    """The socket stalled or flooded: closed, and not tried again for a while."""


def socket_url(url: str, api_key: Secret | None) -> str:
    """`url` with `?apiKey=` when a key is set (the public service's way to authenticate)."""
    if api_key is None or not api_key.get_secret_value():
        return url
    parts = urlsplit(url)
    query = "&".join(
        q for q in (parts.query, urlencode({"apiKey": api_key.get_secret_value()})) if q
    )
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, parts.fragment))


class SocketFeed:
    def __init__(
        self,
        url: str,
        *,
        sink: SocketSink,
        api_key: Secret | None = None,
        limits: SocketLimits | None = None,
        jitter: Callable[[float], float] | None = None,
    ) -> None:
        self.url = url
        self._api_key = api_key
        self._sink = sink
        self.limits = limits or SocketLimits()
        self._jitter = jitter or (lambda top: random.uniform(0, top))
        self._wants: set[str] = set()
        self._acked: set[str] = set()
        self._pending: dict[str, float] = {}
        """Subscriptions sent, not yet acknowledged: their deadlines."""
        self._outbox: asyncio.Queue[dict[str, Any]] | None = None
        self._task: asyncio.Task[None] | None = None
        self.live = False
        self.state = "connecting"
        """connecting, live, down (polling stands in) or closed."""
        self.reason = ""
        self.since = time.monotonic()
        self.connections = 0
        self.frames = 0
        self.frames_ready = False
        """The last connection reached its ready message (the backoff starts over)."""

    def __repr__(self) -> str:  # never the URL: it may carry the key
        return (
            f"SocketFeed({self.state}, {len(self._wants)} followed, {self.connections} connections)"
        )

    # -- what is followed ------------------------------------------------------------------------

    def subscribe(self, request_id: str) -> None:
        rid = normalise_request_id(request_id)
        if rid in self._wants:
            return
        self._wants.add(rid)
        self._send({"type": "subscribe", "event": EVENT, "filters": {"id": rid}})

    def unsubscribe(self, request_id: str) -> None:
        rid = normalise_request_id(request_id)
        if rid not in self._wants:
            return
        self._wants.discard(rid)
        self._acked.discard(rid)
        self._pending.pop(rid, None)
        self._send({"type": "unsubscribe", "event": EVENT, "filters": {"id": rid}})

    def acked(self, request_id: str) -> bool:
        return self.live and request_id in self._acked

    def awaiting_ack(self, request_id: str) -> bool:
        """Subscribed on the live socket, the acknowledgement not in yet: it comes, or the
        socket is closed within `limits.ack_timeout` (and the sink is told either way)."""
        return self.live and request_id in self._pending

    def _send(self, message: dict[str, Any]) -> None:
        if self._outbox is not None:
            if message["type"] == "subscribe":
                self._pending[message["filters"]["id"]] = time.monotonic() + self.limits.ack_timeout
            self._outbox.put_nowait(message)

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="status-socket")

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._set_state("closed", "closed", live=False, tell=False)

    def _set_state(self, state: str, reason: str, *, live: bool, tell: bool = True) -> None:
        changed = live != self.live or state != self.state
        self.state, self.reason, self.live = state, reason, live
        if changed:
            self.since = time.monotonic()
            if tell:
                self._sink.socket_state(live, reason)

    async def _run(self) -> None:
        attempt = 0
        while True:
            pause = 0.0
            try:
                await self._connect_once()
                reason = "the service closed the socket"
            except _Misbehaved as exc:
                reason, pause = str(exc), self.limits.penalty
            except InvalidStatus as exc:
                reason = f"the service refused the socket ({exc.response.status_code})"
            except (ConnectionClosed, WebSocketException, OSError, TimeoutError) as exc:
                reason = f"cannot connect ({type(exc).__name__})"  # str() may hold the URL
            self._outbox = None
            self._acked.clear()
            self._pending.clear()
            if self.frames_ready:
                attempt = 0
            attempt += 1
            self._set_state("down", reason, live=False)
            top = min(self.limits.backoff_cap, self.limits.backoff_base * 2 ** (attempt - 1))
            await asyncio.sleep(max(pause, self._jitter(top)))

    def _open(self) -> connect:
        url = socket_url(self.url, self._api_key)
        extra: dict[str, Any] = {}
        if urlsplit(url).scheme.lower() == "wss":
            extra["ssl"] = client_context(url)  # the trust store the service client uses
        return connect(
            url,
            compression=None,  # events are small; aiohttp's client asked for none either
            proxy=None,  # as before: the service's own address, not the environment's proxy
            open_timeout=None,  # `connect_timeout` bounds the whole opening below
            ping_interval=self.limits.heartbeat,
            ping_timeout=self.limits.heartbeat,
            close_timeout=2.0,
            max_size=self.limits.max_frame * 16,  # past it the connection is closed (1009)
            logger=_WIRE_LOG,
            **extra,
        )

    async def _connect_once(self) -> None:
        self.frames_ready = False
        async with asyncio.timeout(self.limits.connect_timeout):
            ws = await self._open()
        self.connections += 1
        writer: asyncio.Task[None] | None = None
        try:
            await self._wait_ready(ws)
            self.frames_ready = True
            self._outbox = asyncio.Queue()
            for rid in sorted(self._wants):
                self._send({"type": "subscribe", "event": EVENT, "filters": {"id": rid}})
            writer = asyncio.get_running_loop().create_task(self._write(ws))
            self._set_state("live", "connected", live=True)
            await self._read(ws)
        finally:
            if writer is not None:
                writer.cancel()
                await asyncio.gather(writer, return_exceptions=True)
            with contextlib.suppress(Exception):
                await ws.close()

    async def _wait_ready(self, ws: ClientConnection) -> None:
        try:
            async with asyncio.timeout(self.limits.ready_timeout):
                while True:
                    try:
                        msg = await ws.recv()
                    except ConnectionClosed:
                        raise ConnectionError("closed before the ready message") from None
                    body = self._decode(msg)
                    if (
                        isinstance(body, dict)
                        and body.get("type") == "connection"
                        and body.get("status") == "ready"
                    ):
                        return
        except TimeoutError:
            raise _Misbehaved(
                f"no ready message within {self.limits.ready_timeout:g} s (stalled)"
            ) from None

    async def _write(self, ws: ClientConnection) -> None:
        assert self._outbox is not None
        outbox = self._outbox
        while True:
            message = await outbox.get()
            await ws.send(json.dumps(message, separators=(",", ":")))

    async def _read(self, ws: ClientConnection) -> None:
        window_start, count = time.monotonic(), 0
        while True:
            wait = None
            if self._pending:
                wait = max(0.0, min(self._pending.values()) - time.monotonic())
            try:
                async with asyncio.timeout(wait):
                    msg = await ws.recv()
            except TimeoutError:
                raise _Misbehaved(
                    f"no acknowledgement of a subscription within {self.limits.ack_timeout:g} s "
                    "(stalled)"
                ) from None
            except ConnectionClosed:
                return
            now = time.monotonic()
            if now - window_start >= 1.0:
                window_start, count = now, 0
            count += 1
            self.frames += 1
            if count > self.limits.flood_limit(len(self._wants)):
                raise _Misbehaved(f"more than {count - 1} frames in a second (flooding)")
            self._frame(self._decode(msg))

    # -- one frame -------------------------------------------------------------------------------

    def _decode(self, text: str | bytes) -> Any:
        if isinstance(text, bytes):
            self._sink.socket_note("binary", "the status socket sent a binary frame: dropped")
            return None
        if len(text) > self.limits.max_frame:
            self._sink.socket_note(
                "large", f"the status socket sent a frame of {len(text)} characters: dropped"
            )
            return None
        try:
            return json.loads(text)
        except ValueError:
            self._sink.socket_note(
                "json", "the status socket sent a frame that is not JSON: dropped"
            )
            return None

    def _frame(self, body: Any) -> None:
        if not isinstance(body, dict):
            if body is not None:
                self._sink.socket_note(
                    "shape", "the status socket sent a frame that is not an object"
                )
            return
        kind = body.get("type")
        if kind == "subscribe" and body.get("status") == "success":
            self._ack(body.get("data"))
            return
        if kind in ("unsubscribe", "connection"):
            return
        if kind is not None:
            self._sink.socket_note(
                f"type:{str(kind)[:20]}",
                f"the status socket sent a message of type {str(kind)[:40]!r}: "
                f"{_short_json(body.get('data'))}",
            )
            return
        event, data = body.get("event"), body.get("data")
        if event is None and isinstance(data, dict) and "event" in data:  # the nested envelope
            event, data = data.get("event"), data.get("data")
        if event != EVENT:
            self._sink.socket_note(
                "event", f"the status socket sent an unknown event {str(event)[:60]!r}: dropped"
            )
            return
        if not isinstance(data, dict):
            self._sink.socket_note("data", "the status socket sent an event without data: dropped")
            return
        try:
            update = StatusUpdate.from_socket(data)
        except ValueError as exc:
            self._sink.socket_note(
                f"invalid:{str(exc)[:12]}", f"the status socket sent an event it cannot back: {exc}"
            )
            return
        if update.request_id not in self._wants:
            self._sink.socket_note(
                "other", "the status socket sent an event of a request not followed: dropped"
            )
            return
        assert update.updated_at_ms is not None
        if update.updated_at_ms > time.time() * 1000 + self.limits.future_skew_ms:
            self._sink.socket_note(
                "future", "the status socket sent an event dated in the future: dropped"
            )
            return
        self._sink.socket_event(update)

    def _ack(self, data: Any) -> None:
        filters = data.get("filters") if isinstance(data, dict) else None
        rid = filters.get("id") if isinstance(filters, dict) else None
        if not isinstance(rid, str):
            return
        rid = rid.lower()
        self._pending.pop(rid, None)
        if rid in self._wants and rid not in self._acked:
            self._acked.add(rid)
            self._sink.socket_acked(rid)


def _short_json(value: Any) -> str:
    text = json.dumps(value)[:120] if value is not None else "-"
    return text
