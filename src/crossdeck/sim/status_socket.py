"""The world's status websocket: the public service's `wss://ws...` protocol on loopback.

    hub = StatusSocketHub(known_key=state.api_key_name_for_hash)
    app = make_status_socket_app(hub)        # served by the World next to the service
    hub.publish(webhook_data(record))        # from the loop, after each committed change

The protocol (quote-v3.md section 7, messages in realdata/ws/):

- the server speaks first: `{"type":"connection","status":"ready","data":{"id":...}}`;
- `{"type":"subscribe","event":"request.status.updated","filters":{"id":REQUEST_ID}}` is
  acknowledged with `{"type":"subscribe","status":"success","data":{"event","filters"}}`;
  without `filters` the socket receives every request's events;
- `unsubscribe` (same shape) is acknowledged with only `data.event` echoed, as published;
- each status change is pushed at once as
  `{"event":"request.status.updated","data":{...},"publishedAt":<ms>}`; `data` carries the
  AsyncAPI fields plus, as the changelog says, `depositAddress` when the request has one and
  `failReason` / `refundFailReason` when set (not `N/A`);
- a key: `?apiKey=` the service does not know is refused (401) before the upgrade; no key is
  accepted (the public SDK connects without one);
- the public side documents no error message: a frame the world cannot read is answered with
  `{"type":"error","status":"error","data":{"message":...}}` (the world's own choice), and
  nothing else changes;
- `POST /_sim/ws/drop` closes every socket (going away, 1001), as a rolling deploy of the
  public service does; subscriptions die with them (the client must resubscribe).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

log = logging.getLogger(__name__)

EVENT = "request.status.updated"
MAX_CLIENT_FRAME = 16 * 1024
"""A client message longer than this is refused (subscriptions are a few hundred bytes)."""

_NOT_SET = (None, "N/A")


@dataclass(eq=False)
class _Conn:
    ws: web.WebSocketResponse
    sid: str
    ids: set[str] = field(default_factory=set)
    everything: bool = False
    outbox: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    """Events in the order they were published (one writer per socket keeps it)."""


class StatusSocketHub:
    """Every open socket and what it subscribed to; `publish` pushes an event to them."""

    def __init__(self, *, known_key: Callable[[str], object] | None = None) -> None:
        self._known_key = known_key
        self._conns: set[_Conn] = set()
        self.published = 0
        self.drops = 0
        self.subscriptions = 0
        """Subscriptions acknowledged, all sockets together (tests read it)."""

    def __repr__(self) -> str:
        return f"StatusSocketHub({len(self._conns)} sockets, {self.published} published)"

    @property
    def sockets(self) -> int:
        return len(self._conns)

    def key_allowed(self, key: str | None) -> bool:
        if not key:
            return True
        return self._known_key is None or bool(self._known_key(key))

    def publish(self, data: Mapping[str, Any]) -> int:
        """Push one `request.status.updated` built from a webhook's `data`; returns the number
        of sockets it went to. Call it on the loop the sockets live on."""
        rid = str(data.get("requestId", "")).lower()
        frame = json.dumps(
            {"event": EVENT, "data": event_data(data), "publishedAt": time.time_ns() // 1_000_000},
            separators=(",", ":"),
        )
        sent = 0
        for conn in list(self._conns):
            if conn.everything or rid in conn.ids:
                if not conn.ws.closed:
                    conn.outbox.put_nowait(frame)
                    sent += 1
        self.published += 1
        return sent

    async def drop_all(self) -> int:
        """Close every socket (a rolling deploy); returns how many were open."""
        conns = list(self._conns)
        self._conns.clear()
        self.drops += 1
        for conn in conns:
            await conn.ws.close(code=WSCloseCode.GOING_AWAY, message=b"redeploy")
        return len(conns)

    # -- one socket ---------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if not self.key_allowed(request.query.get("apiKey")):
            return web.json_response(
                {"message": "Invalid API key", "errorCode": "UNAUTHORIZED"}, status=401
            )
        ws = web.WebSocketResponse(max_msg_size=MAX_CLIENT_FRAME * 4)
        await ws.prepare(request)
        conn = _Conn(ws, secrets.token_hex(6))
        conn.outbox.put_nowait(
            json.dumps({"type": "connection", "status": "ready", "data": {"id": conn.sid}})
        )
        self._conns.add(conn)
        writer = asyncio.get_running_loop().create_task(_write(conn))
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                answer = self._client_message(conn, msg.data)
                if answer is not None:
                    conn.outbox.put_nowait(json.dumps(answer))
        except ConnectionError:
            pass
        finally:
            self._conns.discard(conn)
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
        return ws

    def _client_message(self, conn: _Conn, text: str) -> dict[str, Any] | None:
        if len(text) > MAX_CLIENT_FRAME:
            return _error("message too large")
        try:
            msg = json.loads(text)
        except ValueError:
            return _error("message is not JSON")
        if not isinstance(msg, dict) or msg.get("type") not in ("subscribe", "unsubscribe"):
            return _error("type must be subscribe or unsubscribe")
        if msg.get("event") != EVENT:
            return _error(f"unknown event {msg.get('event')!r}")
        filters = msg.get("filters")
        rid: str | None = None
        if filters is not None:
            if not isinstance(filters, dict) or not isinstance(filters.get("id"), str):
                return _error("filters.id is required when filters is given")
            rid = filters["id"].lower()
        if msg["type"] == "subscribe":
            self.subscriptions += 1
            if rid is None:
                conn.everything = True
            else:
                conn.ids.add(rid)
            data: dict[str, Any] = {"event": EVENT}
            if filters is not None:
                data["filters"] = {"id": filters["id"]}
            return {"type": "subscribe", "status": "success", "data": data}
        if rid is None:
            conn.everything = False
        else:
            conn.ids.discard(rid)
        return {"type": "unsubscribe", "status": "success", "data": {"event": EVENT}}


def event_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """The event's `data` from a webhook's: the AsyncAPI fields, and the changelog's extra ones
    only when they say something."""
    out: dict[str, Any] = {
        key: data.get(key)
        for key in (
            "status",
            "inTxHashes",
            "txHashes",
            "updatedAt",
            "originChainId",
            "destinationChainId",
            "requestId",
        )
    }
    if data.get("depositAddress") is not None:
        out["depositAddress"] = data["depositAddress"]
    for key in ("failReason", "refundFailReason"):
        if data.get(key) not in _NOT_SET:
            out[key] = data[key]
    return out


def _error(message: str) -> dict[str, Any]:
    return {"type": "error", "status": "error", "data": {"message": message}}


async def _write(conn: _Conn) -> None:
    while True:
        frame = await conn.outbox.get()
        try:
            await conn.ws.send_str(frame)
        except (ConnectionError, RuntimeError):  # closed meanwhile: the client reconnects
            log.debug("status socket %s closed before a frame could be sent", conn.sid)
            return


_HUB = web.AppKey("status_socket_hub", StatusSocketHub)


async def _drop(request: web.Request) -> web.Response:
    dropped = await request.app[_HUB].drop_all()
    return web.json_response({"dropped": dropped})


async def _socket(request: web.Request) -> web.StreamResponse:
    return await request.app[_HUB].handle(request)


def make_status_socket_app(hub: StatusSocketHub, *, sim_routes: bool = True) -> web.Application:
    """The socket at `/` (as `wss://ws.relay.link` has it) and, for tests and demos,
    `POST /_sim/ws/drop`."""
    app = web.Application()
    app[_HUB] = hub
    app.router.add_get("/", _socket)
    if sim_routes:
        app.router.add_post("/_sim/ws/drop", _drop)
    return app
