"""Helpers for the tracker tests: request making, status driving and request counting.

Requests: one real quote goes through POST /quote/v2; further requests are copies of its record
made with the service's own `ServiceState.create_request` (the call the quote engine ends with),
each with a fresh request id and order id. A quote costs ~40 ms of route and chain work; a copy
costs a row, which is what lets the load test make 1,000 of them.

Statuses are moved with `ServiceState.advance`, the call the world's solver makes: the change is
committed, the status endpoints read it, and the world turns it into a webhook for the request's
API key exactly as for a solver-made change.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from crossdeck.api import NO_RETRY, ServiceClient
from crossdeck.sim.service.state import Status, Tx
from crossdeck.sim.world import World
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.receiver import WebhookReceiver
from crossdeck.track.store import StatusStore
from crossdeck.track.tracker import StatusTracker
from crossdeck.track.updates import StatusUpdate
from helpers.waiting import wait_until

NATIVE = "0x0000000000000000000000000000000000000000"
KEYED_PER_MINUTE = 6000
"""The rate limit of the tracker tests' world for a keyed caller."""
STATUS_PATH = "/intents/status/v3"


def quote_body(world: World, amount: int = 10**15) -> dict[str, Any]:
    return {
        "user": world.wallet_address,
        "originChainId": 8453,
        "destinationChainId": 999,
        "originCurrency": NATIVE,
        "destinationCurrency": NATIVE,
        "amount": str(amount),
        "tradeType": "EXACT_INPUT",
    }


def real_quote(world: World, api_key: str | None = None) -> dict[str, Any]:
    reply = httpx.post(
        f"{world.service_url}/quote/v2",
        json=quote_body(world),
        headers={"x-api-key": api_key or world.api_key},
        timeout=30,
    )
    reply.raise_for_status()
    return reply.json()


def request_id_of(quote: dict[str, Any]) -> str:
    return quote["steps"][0]["requestId"]


class RequestMaker:
    """Makes `waiting` requests in the world: copies of one real quote's record."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._template = None

    def _base(self) -> Any:
        if self._template is None:
            assert self.world.state is not None
            self._template = self.world.state.get(request_id_of(real_quote(self.world)))
        return self._template

    def make(self, n: int = 1, *, key_name: str = "demo") -> list[str]:
        """`n` fresh `waiting` requests owned by API key `key_name` ("demo" or "other")."""
        state = self.world.state
        assert state is not None
        base = self._base()
        return [state.copy_request(base.id, api_key_name=key_name).id for _ in range(n)]


def tx(chain_id: int = 8453) -> Tx:
    return Tx(hash="0x" + secrets.token_hex(32), chain_id=chain_id, timestamp=int(time.time()))


def advance(world: World, request_id: str, status: str | Status, **kwargs: Any) -> Any:
    """Move a request like the solver does (committed, then announced as a webhook)."""
    assert world.state is not None
    return world.state.advance(request_id, status, **kwargs)


def drive_to_success(world: World, request_id: str) -> None:
    advance(world, request_id, "pending", in_tx=tx(8453))
    advance(world, request_id, "submitted", out_tx=tx(999))
    advance(world, request_id, "success")


@dataclass
class Seen:
    sent: float
    at: float
    """When the answer came (monotonic)."""
    method: str
    path: str
    request_id: str | None
    status: int


@dataclass
class CountingTransport(httpx.AsyncBaseTransport):
    """The real HTTP transport, plus a log of every request and its answer status."""

    inner: httpx.AsyncBaseTransport = field(default_factory=httpx.AsyncHTTPTransport)
    seen: list[Seen] = field(default_factory=list)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = time.monotonic()
        response = await self.inner.handle_async_request(request)
        self.seen.append(
            Seen(
                sent,
                time.monotonic(),
                request.method,
                request.url.path,
                request.url.params.get("requestId"),
                response.status_code,
            )
        )
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def status_polls(self, request_id: str | None = None) -> list[Seen]:
        return [
            s
            for s in self.seen
            if s.path == STATUS_PATH and (request_id is None or s.request_id == request_id)
        ]

    def codes(self) -> Counter[int]:
        return Counter(s.status for s in self.seen)


def client_for(world: World, transport: CountingTransport) -> ServiceClient:
    """The real client, not retrying on its own: the tracker owns 429 handling."""
    return ServiceClient(
        world.service_url, api_key=world.api_key, retry=NO_RETRY, transport=transport
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def statuses(updates: Iterable[Any]) -> list[str]:
    return [str(u.status) for u in updates]


async def send_deposit(world: World, quote: dict[str, Any]) -> str:
    """Sign the quote's deposit transaction with the demo wallet and send it (raw JSON-RPC)."""
    from eth_account import Account

    data = quote["steps"][0]["items"][0]["data"]
    url = world.rpc[int(data["chainId"])]
    async with httpx.AsyncClient(timeout=30) as http:

        async def rpc(method: str, *params: Any) -> Any:
            reply = (
                await http.post(
                    url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
                )
            ).json()
            assert "error" not in reply, reply
            return reply["result"]

        nonce = int(await rpc("eth_getTransactionCount", world.wallet_address, "pending"), 16)
        call = {"from": data["from"], "to": data["to"], "value": hex(int(data["value"])),
                "data": data["data"]}  # fmt: skip
        gas = int(await rpc("eth_estimateGas", call), 16)
        signed = Account.sign_transaction(
            {
                "chainId": int(data["chainId"]),
                "nonce": nonce,
                "to": data["to"],
                "value": int(data["value"]),
                "data": data["data"],
                "gas": gas * 12 // 10,
                "maxFeePerGas": int(data["maxFeePerGas"]) * 2,
                "maxPriorityFeePerGas": int(data["maxPriorityFeePerGas"]),
            },
            world.wallet_key,
        )
        return await rpc("eth_sendRawTransaction", "0x" + signed.raw_transaction.hex())


@dataclass
class GatedTransport(CountingTransport):
    """Holds every status answer (already received in full) until `gate` is opened: a poll
    whose answer was written before a change but reaches the tracker after it."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    held: int = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if request.url.path == STATUS_PATH and not self.gate.is_set():
            await response.aread()
            self.held += 1
            await self.gate.wait()
        return response


FAST = PollPolicy(
    fast=0.05,
    ramp=0.5,
    active_cap=0.2,
    idle_cap=0.3,
    webhook_quiet=2.0,
    failure_settle=30.0,
    settle_interval=0.1,
    error_base=0.05,
    error_cap=0.2,
)
"""Test pacing: polls 20 times a second right after a change, webhooks pause polls for 2 s."""


def tracker_for(
    world: World,
    transport: CountingTransport,
    *,
    policy: PollPolicy = FAST,
    store: StatusStore | None = None,
    budget: RateBudget | None = None,
    **kwargs: Any,
) -> StatusTracker:
    return StatusTracker(
        client_for(world, transport),
        store=store,
        budget=budget or RateBudget(30, burst=10),
        policy=policy,
        **kwargs,
    )


@contextlib.asynccontextmanager
async def running(tracker: StatusTracker) -> AsyncIterator[StatusTracker]:
    try:
        async with tracker:
            yield tracker
    finally:
        await tracker.service.aclose()  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def webhooks_to_receiver(world: World) -> AsyncIterator[WebhookReceiver]:
    """A WebhookReceiver, registered as the demo key's endpoint for the duration."""
    async with WebhookReceiver(world.api_key) as receiver:
        world.set_webhook(world.api_key, receiver.url)
        try:
            yield receiver
        finally:

            async def unset() -> None:
                assert world.webhook_sender is not None
                world.webhook_sender.remove_endpoint(world.api_key)

            world.call(unset)


async def collect(sub: AsyncIterator[StatusUpdate], into: list[StatusUpdate]) -> None:
    async for item in sub:
        into.append(item)


async def wait_status(tracker: StatusTracker, rid: str, status: str) -> None:
    def seen() -> bool:
        latest = tracker.latest(rid)
        return latest is not None and str(latest.status) == status

    await wait_until(seen, f"{rid[:10]} to reach {status}")
