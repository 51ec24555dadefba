"""The receiver's fast path: a delivery that arrived whole is answered from `data_received`.

aiohttp's request machinery (waking the connection's request task, a `BaseRequest`, a
`Response` and its `prepare`, the `StreamWriter`) cost ~150 µs of server CPU a request on
loopback, more than every check of a delivery together; a bare `asyncio.Protocol` with the same
C parser answered a delivery in ~120 µs against the anchor's ~270 (docs/benchmarks.md). So the
common case skips it: one complete HTTP/1.1 POST to the receiver's path, with a Content-Length
within the limit, arriving while the connection is idle, is checked and answered right where its
bytes are parsed. Everything else (other paths and methods, a body still on its way, chunked or
compressed bodies, pipelined requests, HTTP/1.0, `Connection: close`, a parse error, a peer that
is not reading its answers) goes through aiohttp's own request loop unchanged, with its
deadlines, lingering reads and error answers. Both paths decide with the same code
(`WebhookReceiver._answer_delivery`); this module only moves the bytes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from typing import Any, Protocol

from aiohttp import web
from aiohttp.http import HttpVersion11
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler
from multidict import CIMultiDictProxy


@dataclass(frozen=True, slots=True)
class Answer:
    """What a request is answered: a status, a JSON body and any extra headers. aiohttp's path
    sends it as a `web.Response`, the fast path as bytes."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    head: bytes = field(init=False, repr=False, compare=False)
    """The HTTP/1.1 status line and headers but `Date`, encoded once: the two answers of
    nearly every delivery are made once, so their encoding (2.8 µs in a loop) is not paid
    per delivery."""

    def __post_init__(self) -> None:
        lines = [
            f"HTTP/1.1 {self.status} {HTTPStatus(self.status).phrase}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(self.body)}\r\n"
        ]
        lines.extend(f"{name}: {value}\r\n" for name, value in self.headers)
        object.__setattr__(self, "head", "".join(lines).encode("ascii"))


class Deliveries(Protocol):
    """What the fast path needs of the receiver (`WebhookReceiver`)."""

    path: str
    max_body_bytes: int

    def answer_now(
        self, headers: CIMultiDictProxy[str], payload: StreamReader, peer: str | None
    ) -> Answer: ...


_date_second = -1
_date_line = b""


def _date_header() -> bytes:
    """The `Date` line, formatted once a second (as aiohttp does)."""
    global _date_second, _date_line
    now = int(time.time())
    if now != _date_second:
        _date_second = now
        _date_line = b"Date: " + formatdate(now, usegmt=True).encode("ascii") + b"\r\n"
    return _date_line


def encode_answer(answer: Answer) -> bytes:
    """The whole HTTP/1.1 response for `answer`, kept alive."""
    return b"".join((answer.head, _date_header(), b"\r\n", answer.body))


class FastDeliveryHandler(RequestHandler):
    """aiohttp's connection protocol, answering a whole idle-time delivery itself (see above)."""

    def __init__(self, server: web.Server, receiver: Deliveries, **kwargs: Any) -> None:
        super().__init__(server, **kwargs)
        self._receiver = receiver
        self._peer: str | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        peername = transport.get_extra_info("peername")
        self._peer = str(peername[0]) if isinstance(peername, tuple) else None

    def data_received(self, data: bytes) -> None:
        waiter = self._waiter
        if (
            waiter is None  # the request loop is busy with an earlier request
            or waiter.done()
            or self._messages
            or self._request_in_progress
            or self._paused  # the peer is not reading its answers: aiohttp's path drains
        ):
            super().data_received(data)
            return
        # aiohttp parses and queues the request as always, but is not woken for it yet
        self._waiter = None
        try:
            super().data_received(data)
        finally:
            self._waiter = waiter
        messages = self._messages
        if len(messages) == 1 and not self._force_close and not self._close:
            message, payload = messages[0]
            if isinstance(message, RawRequestMessage) and self._is_whole_delivery(message, payload):
                messages.popleft()
                self._answer(self._receiver.answer_now(message.headers, payload, self._peer))
                return
        if messages and not waiter.done():
            waiter.set_result(None)

    def _is_whole_delivery(self, message: RawRequestMessage, payload: Any) -> bool:
        # (a parse error is queued as another type: aiohttp answers it)
        rx = self._receiver
        length = message.headers.get("Content-Length")
        return (
            message.method == "POST"
            and message.path == rx.path
            and message.version == HttpVersion11
            and not message.should_close
            and not message.upgrade
            and not message.chunked
            and message.compression is None
            and length is not None
            and length.isdigit()
            and int(length) <= rx.max_body_bytes
            and payload.is_eof()
            and not self._upgraded
        )

    def _answer(self, answer: Answer) -> None:
        parser = self._parser
        if parser is not None:
            parser.message_consumed()
        manager = self._manager
        if manager is not None:
            manager.requests_count += 1
        transport = self.transport
        if transport is None:
            return
        transport.write(encode_answer(answer))
        # the next request's head is due within the keep-alive timeout, as after aiohttp's own
        loop = self._loop
        self._next_keepalive_close_time = loop.time() + self._keepalive_timeout
        if self._keepalive_handle is None:
            self._keepalive_handle = loop.call_at(
                self._next_keepalive_close_time, self._process_keepalive
            )


class FastDeliveryServer(web.Server):
    """aiohttp's low-level server, making `FastDeliveryHandler`s for one receiver."""

    def __init__(self, receiver: Deliveries, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._receiver = receiver

    def __call__(self) -> RequestHandler:
        return FastDeliveryHandler(self, self._receiver, loop=self._loop, **self._kwargs)
