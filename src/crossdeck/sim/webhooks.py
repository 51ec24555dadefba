"""Webhook sender of the demo world (spec 5.5, 6): request.status.updated deliveries.

Each delivery is POSTed as compact JSON with `X-Signature-Timestamp` (Unix seconds at sending)
and `X-Signature-SHA256` = hex HMAC-SHA256(key = the API key, msg = "<timestamp>.<body>"), where
<body> is exactly the bytes sent. A failed attempt (non-2xx, connection error, timeout) is retried
up to `max_retries` times with capped, jittered exponential backoff, re-signed each time. The
deliveries of one request id keep their order: status N+1 waits until N succeeded or was given up.

Operators configure endpoints in TOML (`load_webhook_config`) or with CLI flags
(`parse_webhook_flags`); an endpoint URL without a path gets `DEFAULT_WEBHOOK_PATH`, where
crossdeck's receivers listen. A non-2xx answer is logged with its status (a 404 with a hint
about the path). API keys are secrets: they never appear in logs, reprs or errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import random
import re
import time
import tomllib
from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any
from urllib.parse import urlsplit

import aiohttp

log = logging.getLogger(__name__)

EVENT_STATUS_UPDATED = "request.status.updated"
STATUSES = frozenset(
    {"waiting", "depositing", "pending", "submitted", "success", "failure", "refund"}
)
# failReason carries a reason on these; 'fallback' is the older name of refund (spec 6.1).
FAILURE_STATUSES = frozenset({"failure", "refund", "fallback"})
DEPOSIT_ADDRESS_TYPES = frozenset({"open", "strict"})
NOT_APPLICABLE = "N/A"
# The path crossdeck's receivers listen on by default. The same literal as the client's
# `crossdeck.track.webhook_defaults.DEFAULT_WEBHOOK_PATH`: the world never imports the client,
# so it keeps its own copy, and tests/track/test_default_path.py checks that the two agree.
DEFAULT_WEBHOOK_PATH = "/webhooks/crossdeck"
SIGNATURE_HEADERS = ("X-Signature-Timestamp", "X-Signature-SHA256")
_RESERVED_HEADERS = {h.lower() for h in (*SIGNATURE_HEADERS, "Content-Type", "Content-Length")}
_RESERVED_HEADERS.add("host")
_HEADER_NAME_RE = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class WebhookConfigError(ValueError):
    """A webhook configuration (file or flags) is wrong; the message says where and how."""


# ============================================================================= payload


def build_status_payload(
    *,
    request_id: str,
    status: str,
    origin_chain_id: int,
    destination_chain_id: int,
    in_tx_hashes: Sequence[str] = (),
    tx_hashes: Sequence[str] = (),
    updated_at_ms: int | None = None,
    deposit_address: Mapping[str, Any] | None = None,
    details: Any = None,
    fail_reason: str | None = None,
    refund_fail_reason: str = NOT_APPLICABLE,
    timestamp_ms: int | None = None,
    referrer: str | None = None,
) -> dict[str, Any]:
    """The exact 6.1 payload. failReason is 'N/A' unless the status is failure/refund, where it
    is the given reason or 'UNKNOWN'. `referrer` (public deployments) is added only if given."""
    if status not in STATUSES:
        raise ValueError(f"status must be one of {sorted(STATUSES)}, got {status!r}")
    if not isinstance(request_id, str) or not request_id:
        raise ValueError("request_id must be a non-empty string")
    if status in FAILURE_STATUSES:
        reason = fail_reason or "UNKNOWN"
    else:
        if fail_reason not in (None, NOT_APPLICABLE):
            raise ValueError(f"failReason must be 'N/A' on status {status!r}, got {fail_reason!r}")
        reason = NOT_APPLICABLE
    now = time.time_ns() // 1_000_000
    data: dict[str, Any] = {
        "status": status,
        "inTxHashes": list(in_tx_hashes),
        "txHashes": list(tx_hashes),
        "updatedAt": now if updated_at_ms is None else updated_at_ms,
        "originChainId": origin_chain_id,
        "destinationChainId": destination_chain_id,
        "depositAddress": None if deposit_address is None else _deposit_address(deposit_address),
        "requestId": request_id,
        "details": details,
        "failReason": reason,
        "refundFailReason": refund_fail_reason,
    }
    if referrer is not None:
        data["referrer"] = referrer
    return {
        "event": EVENT_STATUS_UPDATED,
        "timestamp": now if timestamp_ms is None else timestamp_ms,
        "data": data,
    }


def _deposit_address(obj: Mapping[str, Any]) -> dict[str, Any]:
    unknown = set(obj) - {"address", "depositAddressType", "depositor", "depositTxHash"}
    if unknown:
        raise ValueError(f"depositAddress has unknown field(s) {sorted(unknown)}")
    if not isinstance(obj.get("address"), str):
        raise ValueError("depositAddress.address must be a string")
    if obj.get("depositAddressType") not in DEPOSIT_ADDRESS_TYPES:
        raise ValueError("depositAddress.depositAddressType must be 'open' or 'strict'")
    return {
        "address": obj["address"],
        "depositAddressType": obj["depositAddressType"],
        "depositor": obj.get("depositor"),
        "depositTxHash": obj.get("depositTxHash"),
    }


def encode_body(payload: Mapping[str, Any]) -> bytes:
    """Compact JSON; these exact bytes are both signed and sent."""
    return json.dumps(payload, separators=(",", ":")).encode()


def sign_body(api_key: str, timestamp: str, body: bytes) -> str:
    """Spec 6.3: hex HMAC-SHA256 over '<timestamp>.<body>' with the API key as secret."""
    return hmac.new(api_key.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


# ============================================================================== sender


@dataclass(frozen=True)
class DeliveryAttempt:
    """One POST attempt (or a skipped delivery) as seen by the sender."""

    request_id: str
    status: str  # the payload's data.status
    attempt: int  # 0 for the first try, n for the n-th retry
    url: str | None
    http_status: int | None
    error: str | None
    outcome: str  # 'delivered' | 'retrying' | 'gave_up' | 'no_endpoint'
    time: float  # Unix seconds when the attempt was made
    api_key: str = field(repr=False)  # a secret: kept out of repr

    @property
    def ok(self) -> bool:
        return self.outcome == "delivered"


@dataclass(frozen=True)
class _Item:
    request_id: str
    status: str
    body: bytes


@dataclass
class _Endpoint:
    url: str
    headers: dict[str, str]

    def __repr__(self) -> str:  # custom headers may hold bearer tokens
        return f"_Endpoint(url={self.url!r}, headers=<{len(self.headers)} hidden>)"


class WebhookSender:
    """Delivers status payloads to one endpoint per API key, in order per request id."""

    def __init__(
        self,
        endpoints: Mapping[str, str],
        headers: Mapping[str, Mapping[str, str]] | None = None,
        *,
        max_retries: int = 10,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        if max_retries < 0 or base_delay < 0 or max_delay < 0 or timeout <= 0:
            raise ValueError("max_retries, base_delay, max_delay must be >= 0 and timeout > 0")
        headers = headers or {}
        stray = set(headers) - set(endpoints)
        if stray:
            raise WebhookConfigError(f"{len(stray)} header set(s) name an API key with no endpoint")
        self._endpoints: dict[str, _Endpoint] = {}
        for api_key, url in endpoints.items():
            self.set_endpoint(api_key, url, headers.get(api_key))
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.timeout = timeout
        self.deliveries: list[DeliveryAttempt] = []
        self._queues: dict[tuple[str, str], deque[_Item]] = {}
        self._workers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._session: aiohttp.ClientSession | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._state = "new"  # new -> running -> stopped

    def __repr__(self) -> str:
        return (
            f"WebhookSender({len(self._endpoints)} endpoint(s), {self.pending()} pending,"
            f" {self._state})"
        )

    # ---- configuration -----------------------------------------------------------------
    def set_endpoint(
        self, api_key: str, url: str, headers: Mapping[str, str] | None = None
    ) -> None:
        """(Re)configure the one endpoint of `api_key`; queued deliveries use it from now on."""
        if not isinstance(api_key, str) or not api_key:
            raise WebhookConfigError("api key must be a non-empty string")
        self._endpoints[api_key] = _Endpoint(_check_url(url), _check_headers(headers or {}))

    def remove_endpoint(self, api_key: str) -> None:
        self._endpoints.pop(api_key, None)

    def has_endpoint(self, api_key: str) -> bool:
        return api_key in self._endpoints

    # ---- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        if self._state == "running":
            return
        if self._state == "stopped":
            raise RuntimeError("WebhookSender cannot be restarted; make a new one")
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout))
        self._state = "running"
        for key, queue in self._queues.items():
            if queue:
                self._spawn(key)

    async def stop(self, *, drain: bool = True, drain_timeout: float | None = 10.0) -> None:
        """Stop sending. With `drain`, wait up to `drain_timeout` s for queued deliveries first;
        whatever is still in flight then is cancelled (and stays unsent)."""
        if self._state != "running":
            self._state = "stopped"
            return
        if drain and self._workers:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(drain_timeout):  # wait_for could swallow a cancel
                    await self._idle.wait()
        self._state = "stopped"
        workers = list(self._workers.values())
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        self._workers.clear()
        self._idle.set()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> WebhookSender:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ---- queueing ----------------------------------------------------------------------
    def enqueue(self, api_key: str, payload: dict[str, Any]) -> None:
        """Queue one 6.1 payload for `api_key`'s endpoint; returns at once."""
        if self._state == "stopped":
            raise RuntimeError("WebhookSender is stopped")
        request_id = _request_id_of(payload)
        data = payload["data"]
        # Encoded now: later changes to the dict cannot alter what is sent, and a payload that
        # is not JSON fails here, in the caller, instead of inside a delivery task.
        item = _Item(request_id, str(data.get("status")), encode_body(payload))
        key = (api_key, request_id)
        self._queues.setdefault(key, deque()).append(item)
        if self._state == "running" and key not in self._workers:
            self._spawn(key)

    def pending(self) -> int:
        """Payloads not yet delivered or given up (including the one in flight)."""
        return sum(len(q) for q in self._queues.values())

    async def wait_idle(self) -> None:
        """Wait until every queued delivery has been delivered or given up (bound it with
        `asyncio.timeout`)."""
        await self._idle.wait()

    def _spawn(self, key: tuple[str, str]) -> None:
        self._idle.clear()
        self._workers[key] = asyncio.get_running_loop().create_task(self._drain(key))

    async def _drain(self, key: tuple[str, str]) -> None:
        queue = self._queues[key]
        try:
            while queue:
                await self._deliver(key[0], queue[0])
                queue.popleft()
        finally:
            if not queue:
                self._queues.pop(key, None)
            self._workers.pop(key, None)
            if not self._workers:
                self._idle.set()

    # ---- one delivery ------------------------------------------------------------------
    async def _deliver(self, api_key: str, item: _Item) -> None:
        request_id, status, body = item.request_id, item.status, item.body
        for attempt in range(self.max_retries + 1):
            endpoint = self._endpoints.get(api_key)
            sent_at = time.time()
            if endpoint is None:
                self._record(api_key, request_id, status, attempt, None, None, None, "no_endpoint")
                log.warning("no webhook endpoint for a key; dropped %s %s", request_id, status)
                return
            http_status, error = await self._post(api_key, endpoint, body, sent_at)
            if http_status is not None and 200 <= http_status < 300:
                self._record(
                    api_key, request_id, status, attempt, endpoint.url, http_status, None,
                    "delivered", sent_at,
                )  # fmt: skip
                return
            last = attempt == self.max_retries
            if http_status is not None:
                hint = (
                    f" (nothing listens on that path; crossdeck receives on"
                    f" {DEFAULT_WEBHOOK_PATH} by default)"
                    if http_status == 404
                    else ""
                )
                log.warning(
                    "webhook %s %s to %s answered HTTP %d on attempt %d%s",
                    request_id, status, endpoint.url, http_status, attempt + 1, hint,
                )  # fmt: skip
            self._record(
                api_key, request_id, status, attempt, endpoint.url, http_status, error,
                "gave_up" if last else "retrying", sent_at,
            )  # fmt: skip
            if last:
                log.warning(
                    "webhook %s %s to %s given up after %d attempts",
                    request_id, status, endpoint.url, attempt + 1,
                )  # fmt: skip
                return
            await asyncio.sleep(self._backoff(attempt))

    async def _post(
        self, api_key: str, endpoint: _Endpoint, body: bytes, sent_at: float
    ) -> tuple[int | None, str | None]:
        assert self._session is not None
        timestamp = str(int(sent_at))
        headers = {
            **endpoint.headers,
            "Content-Type": "application/json",
            "X-Signature-Timestamp": timestamp,
            "X-Signature-SHA256": sign_body(api_key, timestamp, body),
        }
        try:
            async with self._session.post(endpoint.url, data=body, headers=headers) as resp:
                await resp.read()
                return resp.status, None if resp.status < 300 else f"HTTP {resp.status}"
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return None, f"{type(exc).__name__}: {exc}"

    def _backoff(self, attempt: int) -> float:
        capped: float = min(self.max_delay, self.base_delay * 2**attempt)
        return capped * random.uniform(0.5, 1.0)  # jitter spreads retries of many senders

    def _record(
        self,
        api_key: str,
        request_id: str,
        status: str,
        attempt: int,
        url: str | None,
        http_status: int | None,
        error: str | None,
        outcome: str,
        sent_at: float | None = None,
    ) -> None:
        self.deliveries.append(
            DeliveryAttempt(
                request_id=request_id,
                status=status,
                attempt=attempt,
                url=url,
                http_status=http_status,
                error=error,
                outcome=outcome,
                time=time.time() if sent_at is None else sent_at,
                api_key=api_key,
            )
        )


def _request_id_of(payload: Mapping[str, Any]) -> str:
    data = payload.get("data") if isinstance(payload, Mapping) else None
    request_id = data.get("requestId") if isinstance(data, Mapping) else None
    if not isinstance(request_id, str) or not request_id:
        raise ValueError("payload must be a 6.1 status payload with data.requestId")
    return request_id


# ======================================================================= configuration


def _check_url(url: str) -> str:
    """The endpoint URL to post to: `url`, with `DEFAULT_WEBHOOK_PATH` when it has no path."""
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise WebhookConfigError(f"webhook url must be an http(s) URL with a host, got {url!r}")
    if not parts.path:
        return parts._replace(path=DEFAULT_WEBHOOK_PATH).geturl()
    return url


def _check_headers(headers: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not _HEADER_NAME_RE.fullmatch(name):
            raise WebhookConfigError(f"invalid header name {name!r}")
        if name.lower() in _RESERVED_HEADERS:
            raise WebhookConfigError(f"header {name!r} is set by the sender and cannot be custom")
        if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
            raise WebhookConfigError(f"header {name!r}: value must be a one-line string")
        out[name] = value
    return out


Endpoints = dict[str, str]
Headers = dict[str, dict[str, str]]


def load_webhook_config(path: str | PathLike[str]) -> tuple[Endpoints, Headers]:
    """Read `[[webhook]]` tables: api_key (or api_key_env naming an environment variable, so the
    key need not sit in the file), url, optional headers = {Name = "value"}."""
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except OSError as exc:
        raise WebhookConfigError(f"cannot read webhook config {os.fspath(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise WebhookConfigError(f"{os.fspath(path)}: not valid TOML: {exc}") from None
    unknown_top = set(doc) - {"webhook"}
    if unknown_top:
        raise WebhookConfigError(f"{os.fspath(path)}: unknown section(s) {sorted(unknown_top)}")
    entries = doc.get("webhook", [])
    if not isinstance(entries, list):
        raise WebhookConfigError(f"{os.fspath(path)}: use [[webhook]] tables (an array)")
    endpoints: Endpoints = {}
    headers: Headers = {}
    for n, entry in enumerate(entries, start=1):
        where = f"{os.fspath(path)}: webhook #{n}"
        unknown = set(entry) - {"api_key", "api_key_env", "url", "headers"}
        if unknown:
            raise WebhookConfigError(f"{where}: unknown field(s) {sorted(unknown)}")
        api_key = _entry_key(entry, where)
        if api_key in endpoints:
            raise WebhookConfigError(f"{where}: a second endpoint for the same API key (one each)")
        if "url" not in entry:
            raise WebhookConfigError(f"{where}: missing url")
        try:
            endpoints[api_key] = _check_url(entry["url"])
            entry_headers = entry.get("headers", {})
            if not isinstance(entry_headers, dict):
                raise WebhookConfigError("headers must be a table of name = value")
            if entry_headers:
                headers[api_key] = _check_headers(entry_headers)
        except WebhookConfigError as exc:
            raise WebhookConfigError(f"{where}: {exc}") from None
    return endpoints, headers


def _entry_key(entry: Mapping[str, Any], where: str) -> str:
    if ("api_key" in entry) == ("api_key_env" in entry):
        raise WebhookConfigError(f"{where}: give exactly one of api_key or api_key_env")
    if "api_key" in entry:
        key = entry["api_key"]
    else:
        name = entry["api_key_env"]
        key = os.environ.get(name) if isinstance(name, str) else None
        if not key:
            raise WebhookConfigError(f"{where}: environment variable {name!r} is not set")
    if not isinstance(key, str) or not key:
        raise WebhookConfigError(f"{where}: api_key must be a non-empty string")
    return key


def parse_webhook_flags(
    webhooks: Sequence[str],
    webhook_headers: Sequence[str] = (),
    *,
    configured: Collection[str] = (),
) -> tuple[Endpoints, Headers]:
    """Parse `--webhook API_KEY=URL` and `--webhook-header API_KEY=NAME:VALUE` flag values.

    A header flag needs an endpoint for its key: a `--webhook` flag, or one of `configured`
    (the keys whose endpoint comes from a webhook config file)."""
    endpoints: Endpoints = {}
    for n, flag in enumerate(webhooks, start=1):
        api_key, sep, url = flag.partition("=")
        if not sep or not api_key or not url:
            raise WebhookConfigError(f"--webhook #{n}: expected API_KEY=URL")
        if api_key in endpoints:
            raise WebhookConfigError(f"--webhook #{n}: the same API key twice (one endpoint each)")
        try:
            endpoints[api_key] = _check_url(url)
        except WebhookConfigError as exc:
            raise WebhookConfigError(f"--webhook #{n}: {exc}") from None
    headers: Headers = {}
    for n, flag in enumerate(webhook_headers, start=1):
        api_key, sep, rest = flag.partition("=")
        name, colon, value = rest.partition(":")
        if not sep or not api_key or not colon or not name:
            raise WebhookConfigError(f"--webhook-header #{n}: expected API_KEY=NAME:VALUE")
        if api_key not in endpoints and api_key not in configured:
            raise WebhookConfigError(
                f"--webhook-header #{n}: its API key has no --webhook API_KEY=URL "
                "(nor an endpoint in the webhook config file)"
            )
        try:
            headers.setdefault(api_key, {}).update(_check_headers({name.strip(): value.strip()}))
        except WebhookConfigError as exc:
            raise WebhookConfigError(f"--webhook-header #{n}: {exc}") from None
    return endpoints, headers
