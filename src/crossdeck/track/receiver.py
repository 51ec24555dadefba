"""`WebhookReceiver`: an aiohttp endpoint that verifies status deliveries (spec 6) and queues them.

A delivery is answered as soon as it is verified, parsed and queued; whoever iterates `events()`
processes it afterwards, so a slow consumer never makes the sender time out and retry.

Status codes:
- 200 accepted, or a duplicate of an accepted delivery (answered 2xx so the sender stops
  retrying, but queued only once);
- 401 a required custom header or a signature header is missing or wrong, the signature does
  not match, or the timestamp is outside the tolerance window (replay protection);
- 400 a correctly signed body that is not the 6.1 payload;
- 413 a body larger than `max_body_bytes`;
- 503 the queue is full (the consumer is behind): the sender retries later;
- 500 anything unexpected; the server keeps serving.

It does not care which URL fronts it (a webhook gateway, 6.4, may forward to it): it reads only
the path, the headers and the raw body. A gateway that replays an old delivery with its original
headers is refused as stale once the tolerance window has passed; widen `tolerance_seconds` if
yours replays late.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from aiohttp import web
from pydantic import SecretStr

from crossdeck.models.webhook import WebhookEvent
from crossdeck.track.hmac_sig import (
    DEFAULT_TOLERANCE_SECONDS,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    verify,
)
from crossdeck.track.payload import PayloadError, delivery_key, parse_event

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES: Final = 256 * 1024


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


class _Stop:
    """Queued after the last event when the receiver stops."""


_STOP: Final = _Stop()


def _as_bytes(value: str | SecretStr) -> bytes:
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    return value.encode("utf-8", "surrogateescape")


def _reply(status: int, result: str, message: str = "") -> web.Response:
    body: dict[str, Any] = {"status": result} if status < 300 else {"error": result}
    if message:
        body["message"] = message
    return web.json_response(body, status=status)


class WebhookReceiver:
    """Receives status webhooks on `path`; iterate `events()` for the verified ones.

    Use as `async with WebhookReceiver(key) as rx:` or call `start()`/`stop()`.
    """

    def __init__(
        self,
        api_key: SecretStr | str,
        *,
        path: str = "/webhooks",
        required_headers: Mapping[str, str | SecretStr] | None = None,
        tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        dedup_size: int = 10_000,
        queue_size: int = 10_000,
    ) -> None:
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/', got {path!r}")
        if max_body_bytes <= 0 or dedup_size <= 0 or queue_size <= 0:
            raise ValueError("max_body_bytes, dedup_size and queue_size must be positive")
        self._api_key = api_key if isinstance(api_key, SecretStr) else SecretStr(api_key)
        if not self._api_key.get_secret_value():
            raise ValueError("api_key is empty")
        self.path = path
        # Values are compared as bytes in constant time; names are case-insensitive in HTTP.
        self._required = [
            (name, _as_bytes(value)) for name, value in (required_headers or {}).items()
        ]
        self.tolerance_seconds = tolerance_seconds
        self.max_body_bytes = max_body_bytes
        self._dedup_size = dedup_size
        self._queue_size = queue_size
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._queue: asyncio.Queue[ReceivedEvent | _Stop] = asyncio.Queue()
        self._runner: web.AppRunner | None = None
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
        # The body limit is enforced by aiohttp too (client_max_size), for chunked bodies that
        # carry no Content-Length.
        app = web.Application(client_max_size=self.max_body_bytes)
        app.router.add_post(self.path, self._handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
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

    # -- handling ----------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        try:
            return await self._handle_delivery(request)
        except web.HTTPRequestEntityTooLarge:
            return self._reject(request, 413, "too_large", f"body over {self.max_body_bytes} bytes")
        except Exception:
            # Never echo the request or the key: the traceback names only our own code.
            log.exception("webhook delivery from %s failed", request.remote)
            return self._reject(request, 500, "internal_error")

    def _reject(
        self, request: web.Request, status: int, reason: str, message: str = ""
    ) -> web.Response:
        self.stats.rejected[reason] += 1
        # Parts of a message can come from the body: keep logs and answers short.
        message = message if len(message) <= 200 else message[:197] + "..."
        log.warning("rejected webhook from %s: %d %s %s", request.remote, status, reason, message)
        return _reply(status, reason, message)

    def _missing_required_header(self, request: web.Request) -> str | None:
        failed: str | None = None
        # Every configured header is compared, so the timing does not tell which one failed.
        for name, expected in self._required:
            values = request.headers.getall(name, [])
            got = _as_bytes(values[0]) if len(values) == 1 else b""
            if not hmac.compare_digest(got, expected) and failed is None:
                failed = name
        return failed

    async def _handle_delivery(self, request: web.Request) -> web.Response:
        length = request.content_length
        if length is not None and length > self.max_body_bytes:
            return self._reject(request, 413, "too_large", f"body over {self.max_body_bytes} bytes")
        missing = self._missing_required_header(request)
        if missing is not None:
            return self._reject(request, 401, "bad_custom_header", f"{missing} missing or wrong")
        for name in (TIMESTAMP_HEADER, SIGNATURE_HEADER):
            if len(request.headers.getall(name, [])) > 1:
                return self._reject(request, 401, "repeated_header", f"{name} given twice")
        body = await request.read()
        verdict = verify(
            self._api_key,
            request.headers.get(TIMESTAMP_HEADER),
            body,
            request.headers.get(SIGNATURE_HEADER),
            tolerance=self.tolerance_seconds,
        )
        if not verdict.ok:
            return self._reject(request, 401, verdict.reason.value, verdict.detail)
        try:
            event = parse_event(body)
        except PayloadError as exc:
            return self._reject(request, 400, "bad_payload", str(exc))
        key = delivery_key(event)
        if key in self._seen:
            self._seen.move_to_end(key)
            self.stats.duplicates += 1
            return _reply(200, "duplicate")
        if self._queue.qsize() >= self._queue_size:
            # Not remembered as seen: the sender's retry must get in once there is room.
            response = self._reject(request, 503, "queue_full", "consumer is behind, retry later")
            response.headers["Retry-After"] = "1"
            return response
        self._remember(key)
        self._queue.put_nowait(
            ReceivedEvent(
                event=event,
                received_at=time.time(),
                delivery_key=key,
                signed_at=verdict.timestamp or 0,  # always set on an ok verdict
                raw=body,
            )
        )
        self.stats.accepted += 1
        return _reply(200, "accepted")

    def _remember(self, key: str) -> None:
        self._seen[key] = None
        if len(self._seen) > self._dedup_size:
            self._seen.popitem(last=False)
