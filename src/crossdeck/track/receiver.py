"""`WebhookReceiver`: an aiohttp endpoint that verifies status deliveries (spec 6), passes them on.

A delivery is answered as soon as it is verified, parsed and passed on: queued for whoever
iterates `events()`, who processes it afterwards, so a slow consumer never makes the sender time
out and retry; or, once a sink is set (`deliver_to`, which `StatusTracker.attach` uses), handed
to the sink in the handler, before the answer: no task switch per delivery, and a 200 means the
sink has it.

Status codes:
- 200 accepted, or a duplicate of an accepted delivery (answered 2xx so the sender stops
  retrying, but queued only once);
- 401 a required custom header or a signature header is missing or wrong, the signature does
  not match, or the timestamp is outside the tolerance window (replay protection);
- 400 a correctly signed body that is not the 6.1 payload;
- 408 the body did not arrive within `read_timeout` of the headers;
- 413 a body larger than `max_body_bytes`;
- 503 the queue is full (the consumer is behind), the replay window holds `replay_memory`
  changes, or too many connections are open: the sender retries later;
- 500 anything unexpected (a sink that raises, too: the delivery is not remembered, so the
  sender's retry is taken again); the server keeps serving.

Limits, so that nobody who can reach the port starves it (see `crossdeck.track.conn_guard`):
headers must arrive within `read_timeout` of the connection opening and the body within
`read_timeout` after them; at most `max_connections` are open (`max_connections_per_peer` from
one address), and over a cap the oldest connection still reading its head (idle, or stalled
mid-head) is closed to make room, so stalled clients cannot keep deliveries out; the body's
structure (UTF-8, nesting depth) is checked in linear time before it is parsed
(`crossdeck.track.payload`); what outsiders can make it log is rate-limited
(`crossdeck.track.log_limit`). A sender that goes away mid-body is one log line. A replay is
processed once for as long as its timestamp could pass (`crossdeck.track.replay_window`).

It does not care which URL fronts it (a webhook gateway, 6.4, may forward to it): it reads only
the path, the headers and the raw body. A gateway that replays an old delivery with its original
headers is refused as stale once the tolerance window has passed; widen `tolerance_seconds` if
yours replays late.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from aiohttp import web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler
from multidict import CIMultiDictProxy

from crossdeck.base.secret import Secret
from crossdeck.models.webhook import WebhookEvent
from crossdeck.track import webhook_defaults as defaults
from crossdeck.track.conn_guard import ConnectionGuard, GuardedSite, effective_cap
from crossdeck.track.hmac_sig import (
    DEFAULT_TOLERANCE_SECONDS,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    SigningKey,
    verify,
)
from crossdeck.track.log_limit import LimitedLog, RepeatFilter
from crossdeck.track.payload import PayloadError, delivery_key, parse_event
from crossdeck.track.receiver_fast import Answer, FastDeliveryServer
from crossdeck.track.replay_window import ReplayWindow

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES: Final = defaults.MAX_BODY_BYTES
_BACKLOG: Final = 64
"""Listen backlog, which is also how many connections one `accept()` batch may take."""
_LINGER_SECONDS: Final = 2.0
"""How long the rest of a refused body is read and dropped, so the sender sees the answer."""

# Python 3.11 reports a failing accept() once per pending connection and re-arms as often.
_ACCEPT_FLOOD_FILTER: Final = RepeatFilter(("socket.accept() out of system resource",))


@dataclass(frozen=True, slots=True)
class ReceivedEvent:
    """One verified, de-duplicated delivery."""

    event: WebhookEvent
    received_at: float
    """`time.time()` when the delivery was accepted."""
    delivery_key: str
    """The de-duplication key (see `crossdeck.track.payload.delivery_key`)."""
    signed_at: int
    """The delivery's `X-Signature-Timestamp`, Unix seconds."""
    raw: bytes = field(repr=False)
    """The body exactly as received."""


@dataclass
class ReceiverStats:
    accepted: int = 0
    duplicates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    """Rejections by reason (`mismatch`, `stale`, `bad_payload`, `too_large`, ...)."""
    disconnected: int = 0
    """Senders that went away before their body was complete."""
    connections_refused: int = 0
    """Connections closed at once because a connection cap was reached."""


class _Stop:
    """Queued after the last event when the receiver stops."""


_STOP: Final = _Stop()


def _as_bytes(value: str | Secret) -> bytes:
    if isinstance(value, Secret):
        value = value.get_secret_value()
    return value.encode("utf-8", "surrogateescape")


def _reply(status: int, result: str, message: str = "", **headers: str) -> Answer:
    body: dict[str, Any] = {"status": result} if status < 300 else {"error": result}
    if message:
        body["message"] = message
    return Answer(status, json.dumps(body).encode(), tuple(headers.items()))


# The two answers of nearly every delivery, made once.
_ACCEPTED: Final = Answer(200, b'{"status":"accepted"}')
_DUPLICATE: Final = Answer(200, b'{"status":"duplicate"}')


def _response(answer: Answer) -> web.Response:
    return web.Response(
        body=answer.body,
        status=answer.status,
        headers=answer.headers or None,
        content_type="application/json",
    )


class WebhookReceiver:
    """Receives status webhooks on `path`; iterate `events()` for the verified ones.

    Use as `async with WebhookReceiver(key) as rx:` or call `start()`/`stop()`.
    """

    def __init__(
        self,
        api_key: Secret | str,
        *,
        path: str = defaults.DEFAULT_WEBHOOK_PATH,
        required_headers: Mapping[str, str | Secret] | None = None,
        tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        replay_memory: int = defaults.REPLAY_MEMORY,
        queue_size: int = defaults.QUEUE_SIZE,
        read_timeout: float = defaults.READ_TIMEOUT_SECONDS,
        max_connections: int = defaults.MAX_CONNECTIONS,
        max_connections_per_peer: int = defaults.MAX_CONNECTIONS_PER_PEER,
    ) -> None:
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/', got {path!r}")
        if min(max_body_bytes, replay_memory, queue_size) <= 0:
            raise ValueError("max_body_bytes, replay_memory and queue_size must be positive")
        if not read_timeout > 0 or min(max_connections, max_connections_per_peer) <= 0:
            raise ValueError("read_timeout and the connection caps must be positive")
        self._api_key = api_key if isinstance(api_key, Secret) else Secret(api_key)
        if not self._api_key.get_secret_value():
            raise ValueError("api_key is empty")
        # keyed once, not per delivery; private, and the repr never shows it
        self._signing_key = SigningKey(_as_bytes(self._api_key))
        self.path = path
        # Values are compared as bytes in constant time; names are case-insensitive in HTTP.
        self._required = [
            (name, _as_bytes(value)) for name, value in (required_headers or {}).items()
        ]
        self.tolerance_seconds = tolerance_seconds
        self.max_body_bytes = max_body_bytes
        self.read_timeout = read_timeout
        self.max_connections = max_connections
        self.max_connections_per_peer = max_connections_per_peer
        self._queue_size = queue_size
        self._recent = ReplayWindow(tolerance_seconds, replay_memory)
        self._log = LimitedLog(log)
        self._guard: ConnectionGuard | None = None
        self._queue: asyncio.Queue[ReceivedEvent | _Stop] = asyncio.Queue()
        self._sink: Callable[[ReceivedEvent], None] | None = None
        self._runner: web.ServerRunner | None = None
        self._port: int | None = None
        self._host = "127.0.0.1"
        self.stats = ReceiverStats()

    def __repr__(self) -> str:
        where = self.url if self._port is not None else "not started"
        return f"WebhookReceiver({where})"

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if self._runner is not None:
            raise RuntimeError("receiver already started")
        logging.getLogger("asyncio").addFilter(_ACCEPT_FLOOD_FILTER)  # once: filters are a set
        # aiohttp's low-level server, not an Application and its router: one path and one
        # method need no router, and its per-request work cost ~14 µs of a delivery's ~200.
        server = FastDeliveryServer(
            self,
            self._route,
            request_factory=self._make_request,
            access_log=None,
            # aiohttp closes a connection that has no complete request when this runs out,
            # counted from the connection opening or from the previous answer: the header
            # deadline (and the idle timeout of kept-alive connections).
            keepalive_timeout=self.read_timeout,
            lingering_time=min(_LINGER_SECONDS, self.read_timeout),
        )
        runner = web.ServerRunner(server, handle_signals=False)
        await runner.setup()
        self._guard = ConnectionGuard(
            effective_cap(self.max_connections, _BACKLOG),
            self.max_connections_per_peer,
            on_refused=self._connection_refused,
        )
        site = GuardedSite(runner, host, port, self._guard, _BACKLOG)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self._host = host
        self._port = runner.addresses[0][1]

    async def stop(self) -> None:
        """Stop listening; `events()` ends after yielding what was already queued."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        await runner.cleanup()
        self._log.flush()
        self._queue.put_nowait(_STOP)

    async def __aenter__(self) -> WebhookReceiver:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("receiver not started")
        return self._port

    @property
    def url(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}{self.path}"

    # -- consuming ---------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[ReceivedEvent]:
        """Verified events in arrival order, until `stop()`. Meant for one consumer."""
        while True:
            item = await self._queue.get()
            if isinstance(item, _Stop):
                self._queue.put_nowait(item)  # a later call to events() ends too
                return
            yield item

    async def next_event(self) -> ReceivedEvent:
        """The next verified event; raises `EOFError` once the receiver has stopped."""
        item = await self._queue.get()
        if isinstance(item, _Stop):
            self._queue.put_nowait(item)
            raise EOFError("webhook receiver stopped")
        return item

    def deliver_to(self, sink: Callable[[ReceivedEvent], None] | None) -> None:
        """Hand each accepted delivery to `sink` in the handler, before answering it, instead
        of queueing it for `events()`; `None` queues again. What was queued before goes to the
        sink first, in order. The sink must not block: the event loop waits for it."""
        self._sink = sink
        while sink is not None and not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, _Stop):
                self._queue.put_nowait(item)
                return
            sink(item)

    @property
    def replay_window(self) -> ReplayWindow:
        """The status changes remembered against replays (its size is bounded; see there)."""
        return self._recent

    @property
    def open_connections(self) -> int:
        return self._guard.open if self._guard is not None else 0

    # -- handling ----------------------------------------------------------------------------

    def _make_request(
        self,
        message: RawRequestMessage,
        payload: StreamReader,
        protocol: RequestHandler,
        writer: AbstractStreamWriter,
        task: asyncio.Task[None],
    ) -> web.BaseRequest:
        # The body limit is enforced by aiohttp too (client_max_size), for chunked bodies that
        # carry no Content-Length.
        return web.BaseRequest(
            message, payload, protocol, writer, task, task.get_loop(),
            client_max_size=self.max_body_bytes,
        )  # fmt: skip

    async def _route(self, request: web.BaseRequest) -> web.StreamResponse:
        """What a router did: deliveries are POSTs to `path`; anything else is not one (not
        counted or logged as a refused delivery)."""
        if request.path != self.path:
            return _response(_reply(404, "not_found", "no webhook endpoint at this path"))
        if request.method != "POST":
            return _response(
                _reply(405, "method_not_allowed", "deliveries are POSTed", Allow="POST")
            )
        # the delivery is handled here, not in a coroutine of its own: one frame less each
        try:
            return await self._handle_delivery(request)
        except web.HTTPRequestEntityTooLarge:
            return _response(self._too_large(request.remote))
        except Exception:
            return _response(self._failed(request.remote))

    def answer_now(
        self, headers: CIMultiDictProxy[str], payload: StreamReader, peer: str | None
    ) -> Answer:
        """The fast path's delivery (`crossdeck.track.receiver_fast`): a POST to `path` whose
        whole body, within the limit, came with its head."""
        try:
            refusal = self._refuse_head(headers, None, peer)
            if refusal is not None:
                return refusal
            return self._answer_delivery(headers, payload.read_nowait(), peer)
        except Exception:
            return self._failed(peer)

    def _failed(self, peer: str | None) -> Answer:
        # Never echo the request or the key: the traceback names only our own code.
        log.exception("webhook delivery from %s failed", peer)
        return self._reject(peer, 500, "internal_error")

    def _too_large(self, peer: str | None) -> Answer:
        return self._reject(peer, 413, "too_large", f"body over {self.max_body_bytes} bytes")

    def _reject(
        self, peer: str | None, status: int, reason: str, message: str = "", **headers: str
    ) -> Answer:
        self.stats.rejected[reason] += 1
        # Parts of a message can come from the body: keep logs and answers short.
        message = message if len(message) <= 200 else message[:197] + "..."
        self._log.warning("rejected webhook from %s: %d %s %s", peer, status, reason, message)
        return _reply(status, reason, message, **headers)

    def _connection_refused(self, peer: str, why: str) -> None:
        self.stats.connections_refused += 1
        self._log.warning("refused a connection from %s: %s", peer, why)

    async def _read_body(self, request: web.BaseRequest) -> bytes | web.Response:
        """The whole body, or the answer to give (or that nobody will read) when it fails."""
        content = request.content
        try:
            if content.is_eof():
                # The body came with the headers (nearly always): it is all in the buffer, so
                # it is taken from there, with no deadline to arm and no read loop.
                body = content.read_nowait()
                if len(body) > self.max_body_bytes:  # what read() checks (a chunked body)
                    raise web.HTTPRequestEntityTooLarge(self.max_body_bytes, len(body))
                return body
            async with asyncio.timeout(self.read_timeout):
                return await request.read()
        except TimeoutError:
            response = _response(
                self._reject(
                    request.remote,
                    408,
                    "read_timeout",
                    f"body not complete within {self.read_timeout:g} s",
                )
            )
            response.force_close()
            return response
        except (ConnectionError, web.RequestPayloadError) as exc:
            # The sender went away (or broke its framing) mid-body: nothing to answer, one line.
            self.stats.disconnected += 1
            self._log.info(
                "webhook sender %s went away mid-body (%s)", request.remote, type(exc).__name__
            )
            return _response(_reply(400, "incomplete_body"))

    def _missing_required_header(self, headers: CIMultiDictProxy[str]) -> str | None:
        failed: str | None = None
        # Every configured header is compared, so the timing does not tell which one failed.
        for name, expected in self._required:
            values = headers.getall(name, [])
            got = _as_bytes(values[0]) if len(values) == 1 else b""
            if not hmac.compare_digest(got, expected) and failed is None:
                failed = name
        return failed

    def _refuse_head(
        self, headers: CIMultiDictProxy[str], length: int | None, peer: str | None
    ) -> Answer | None:
        """The refusal a delivery's head already earns, before its body is read."""
        if length is not None and length > self.max_body_bytes:
            return self._too_large(peer)
        missing = self._missing_required_header(headers) if self._required else None
        if missing is not None:
            return self._reject(peer, 401, "bad_custom_header", f"{missing} missing or wrong")
        for name in (TIMESTAMP_HEADER, SIGNATURE_HEADER):
            if len(headers.getall(name, ())) > 1:
                return self._reject(peer, 401, "repeated_header", f"{name} given twice")
        return None

    async def _handle_delivery(self, request: web.BaseRequest) -> web.Response:
        refusal = self._refuse_head(request.headers, request.content_length, request.remote)
        if refusal is not None:
            return _response(refusal)
        body = await self._read_body(request)
        if isinstance(body, web.Response):
            return body
        return _response(self._answer_delivery(request.headers, body, request.remote))

    def _answer_delivery(
        self, headers: CIMultiDictProxy[str], body: bytes, peer: str | None
    ) -> Answer:
        """Checks a whole delivery and passes it on; both paths answer what this returns."""
        verdict = verify(
            self._signing_key,
            headers.get(TIMESTAMP_HEADER),
            body,
            headers.get(SIGNATURE_HEADER),
            tolerance=self.tolerance_seconds,
        )
        if not verdict.ok:
            return self._reject(peer, 401, verdict.reason.value, verdict.detail)
        try:
            event = parse_event(body)
        except PayloadError as exc:
            return self._reject(peer, 400, "bad_payload", str(exc))
        key = delivery_key(event)
        signed_at = verdict.timestamp or 0  # always set on an ok verdict
        now = time.time()
        if self._recent.seen(key, signed_at, now):
            self.stats.duplicates += 1
            return _DUPLICATE
        # Neither refusal below remembers the change: the sender's retry must get in later.
        sink = self._sink
        if sink is None and self._queue.qsize() >= self._queue_size:
            return self._busy(peer, "queue_full", "consumer is behind, retry later")
        if self._recent.full(now):
            return self._busy(
                peer, "replay_memory_full", "too many status changes in the replay window"
            )
        received = ReceivedEvent(
            event=event, received_at=now, delivery_key=key, signed_at=signed_at, raw=body
        )
        if sink is None:
            self._queue.put_nowait(received)
        else:
            sink(received)  # if it raises: answered 500, and not remembered for the retry
        self._recent.add(key, signed_at)
        self.stats.accepted += 1
        return _ACCEPTED

    def _busy(self, peer: str | None, reason: str, message: str) -> Answer:
        return self._reject(peer, 503, reason, message, **{"Retry-After": "1"})
