"""Hostile or broken status sockets, each a real websocket server on loopback (aiohttp), with a
real status service beside it that the tracker's confirming reads go to.

What a socket sends that the tracker cannot trust changes nothing and is noted once: frames
that are not JSON, too large, of a request not followed, of an unknown event or status, and a
final status the service's own status read does not confirm. A socket that floods or stalls
is closed, and the polls stand in. Nothing from the socket alone ends a request."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from crossdeck.api import NO_RETRY, ServiceClient
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.socket_feed import SocketLimits
from crossdeck.track.tracked import Problem
from crossdeck.track.tracker import StatusTracker
from helpers.waiting import wait_until

RID = "0x" + "ab" * 32
OTHER = "0x" + "cd" * 32
# the socket pushes: a read comes only to confirm, or when the socket is down (then quickly)
POLICY = PollPolicy(fast=0.05, active_cap=0.2, idle_cap=0.2, socket_reconcile=600.0)

Behaviour = Callable[[web.WebSocketResponse, "Fake"], Awaitable[None]]


@dataclass
class Fake:
    """A status service (`/intents/status/v3`) and a status socket (`/ws`) on one server."""

    status: str = "pending"
    updated_at: int = field(default_factory=lambda: int(time.time() * 1000))
    reads: int = 0
    sockets: int = 0
    behaviour: Behaviour | None = None
    url: str = ""
    clients: list[ServiceClient] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "inTxHashes": [],
            "txHashes": [],
            "updatedAt": self.updated_at,
            "originChainId": 8453,
            "destinationChainId": 999,
        }

    async def status_v3(self, request: web.Request) -> web.Response:
        self.reads += 1
        return web.json_response(self.body())

    async def socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.sockets += 1
        assert self.behaviour is not None
        try:
            await self.behaviour(ws, self)
        except (ConnectionError, RuntimeError):
            pass
        return ws


@pytest.fixture
async def fake() -> AsyncIterator[Fake]:
    state = Fake()
    app = web.Application()
    app.router.add_get("/intents/status/v3", state.status_v3)
    app.router.add_get("/ws", state.socket)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    state.url = f"http://{host}:{port}"
    yield state
    for client in state.clients:
        await client.aclose()
    await runner.cleanup()


async def ready_and_ack(ws: web.WebSocketResponse) -> None:
    """The published opening: ready first, then an acknowledgement of each subscription."""
    await ws.send_json({"type": "connection", "status": "ready", "data": {"id": "t1"}})
    msg = await ws.receive_json(timeout=5)
    assert msg["type"] == "subscribe" and msg["event"] == "request.status.updated"
    await ws.send_json(
        {"type": "subscribe", "status": "success",
         "data": {"event": "request.status.updated", "filters": msg["filters"]}}
    )  # fmt: skip


def event(rid: str, status: str, updated_at: int, **extra: Any) -> dict[str, Any]:
    return {
        "event": "request.status.updated",
        "data": {
            "status": status,
            "inTxHashes": [],
            "txHashes": [],
            "updatedAt": updated_at,
            "originChainId": 8453,
            "destinationChainId": 999,
            "requestId": rid,
            **extra,
        },
        "publishedAt": int(time.time() * 1000),
    }


async def hold_open(ws: web.WebSocketResponse) -> None:
    async for _ in ws:
        pass


def tracker_on(fake: Fake, problems: list[Problem], **limits: Any) -> StatusTracker:
    client = ServiceClient(fake.url, retry=NO_RETRY)
    fake.clients.append(client)
    tracker = StatusTracker(
        client, budget=RateBudget(50, burst=10), policy=POLICY, on_problem=problems.append
    )
    tracker.use_socket(
        fake.url.replace("http", "ws", 1) + "/ws",
        limits=SocketLimits(backoff_base=0.05, backoff_cap=0.2, penalty=0.3, **limits),
    )
    return tracker


async def socket_live(tracker: StatusTracker) -> None:
    """Requests followed from here are read only to confirm (while the socket connects, the
    polls stand in as while it is down, and a test counting reads would count theirs)."""
    await wait_until(lambda: tracker.feed_status().socket == "live", "the socket live")


async def follow_over_live_socket(fake: Fake) -> StatusTracker:
    """Follow RID with the socket live from the start (no first read) until it ends; the
    tracker, closed, keeps what it learned."""
    tracker = tracker_on(fake, [])
    async with tracker:
        await socket_live(tracker)
        tracker.track(RID, poll_now=False)
        await asyncio.wait_for(tracker.wait_done(), 10)
    return tracker


def said(problems: list[Problem], words: str) -> int:
    return sum(words in p.message for p in problems)


async def test_garbage_frames_change_nothing_and_each_kind_is_noted_once(fake: Fake) -> None:
    base = fake.updated_at

    async def hostile(ws: web.WebSocketResponse, _fake: Fake) -> None:
        await ready_and_ack(ws)
        for _ in range(2):  # twice each: noted once
            await ws.send_str("{not json")
            await ws.send_str(json.dumps(event(RID, "submitted", base + 1)) + " " * 70_000)
            await ws.send_json(event(OTHER, "success", base + 2))
            await ws.send_json({**event(RID, "submitted", base + 3), "event": "request.deleted"})
            await ws.send_json(event(RID, "teleported", base + 4))
            await ws.send_json(event(RID, "submitted", "soon"))  # type: ignore[arg-type]
        await ws.send_json(event(RID, "pending", base + 10))  # the one good frame
        await hold_open(ws)

    fake.behaviour = hostile
    problems: list[Problem] = []
    tracker = tracker_on(fake, problems)
    async with tracker:
        tracker.track(RID, poll_now=False)
        await wait_until(lambda: tracker.latest(RID) is not None, "the good frame")
        await asyncio.sleep(0.2)
        latest = tracker.latest(RID)
        assert latest is not None and str(latest.status) == "pending"
        assert latest.updated_at_ms == base + 10
        assert tracker.stats.socket_events == 1
        assert not tracker.is_final(RID)
    for words in ("not JSON", "characters: dropped", "not followed", "unknown event",
                  "unknown status", "millisecond timestamp"):  # fmt: skip
        assert said(problems, words) == 1, (words, [p.message for p in problems])
    assert tracker.feed_status().socket == "closed"


async def test_a_final_status_the_status_read_does_not_confirm_ends_nothing(fake: Fake) -> None:
    first_refuted = asyncio.Event()

    async def liar(ws: web.WebSocketResponse, f: Fake) -> None:
        await ready_and_ack(ws)
        await ws.send_json(event(RID, "success", f.updated_at + 50, txHashes=["0xfake"]))
        # the second claim once the first was read and refuted: a claim that came while the
        # read was under way would replace the first, and that one read would refute it alone
        await first_refuted.wait()
        await ws.send_json(event(RID, "refund", f.updated_at + 60))
        await hold_open(ws)

    fake.behaviour = liar
    problems: list[Problem] = []
    tracker = tracker_on(fake, problems)
    async with tracker:
        await socket_live(tracker)
        tracker.track(RID, poll_now=False)
        await wait_until(lambda: tracker.stats.socket_unconfirmed == 1, "the first claim read")
        first_refuted.set()
        # both claims came, and the read each asked for was answered (no read is due)
        await wait_until(
            lambda: tracker.stats.socket_events == 2 and (tracker.next_read_in(RID) or 0) > 1,
            "both claims read",
        )
        assert fake.reads == 2
        assert not tracker.is_final(RID)
        latest = tracker.latest(RID)
        assert latest is not None and str(latest.status) == "pending"  # what the read says
        assert tracker.stats.socket_unconfirmed == 2
    assert said(problems, "the socket's word is ignored") == 1


async def test_a_confirmed_final_status_ends_the_request_with_the_socket_as_its_source(
    fake: Fake,
) -> None:
    async def honest(ws: web.WebSocketResponse, f: Fake) -> None:
        await ready_and_ack(ws)
        f.status, f.updated_at = "success", f.updated_at + 50
        await ws.send_json(event(RID, "success", f.updated_at))
        await hold_open(ws)

    fake.behaviour = honest
    tracker = await follow_over_live_socket(fake)
    latest = tracker.latest(RID)
    assert latest is not None and latest.final and latest.source.value == "socket"
    assert fake.reads == 1


async def test_no_read_while_a_subscription_awaits_its_acknowledgement(fake: Fake) -> None:
    """A slow acknowledgement (0.6 s, twelve poll intervals here) on a live socket: the
    request is not read meanwhile, since the socket is about to push its changes; the success
    pushed after the acknowledgement is the one status read."""
    acked = asyncio.Event()

    async def slow_ack(ws: web.WebSocketResponse, f: Fake) -> None:
        await ws.send_json({"type": "connection", "status": "ready", "data": {"id": "s"}})
        msg = await ws.receive_json(timeout=5)
        await asyncio.sleep(0.6)
        assert f.reads == 0  # nothing read while the acknowledgement was on its way
        await ws.send_json(
            {"type": "subscribe", "status": "success",
             "data": {"event": "request.status.updated", "filters": msg["filters"]}}
        )  # fmt: skip
        acked.set()
        f.status, f.updated_at = "success", f.updated_at + 50
        await ws.send_json(event(RID, "success", f.updated_at))
        await hold_open(ws)

    fake.behaviour = slow_ack
    tracker = await follow_over_live_socket(fake)
    assert acked.is_set()
    latest = tracker.latest(RID)
    assert latest is not None and latest.final and latest.source.value == "socket"
    assert fake.reads == 1


async def test_a_flooding_socket_is_closed_and_polling_stands_in(fake: Fake) -> None:
    async def flood(ws: web.WebSocketResponse, f: Fake) -> None:
        await ready_and_ack(ws)
        frame = json.dumps(event(RID, "pending", f.updated_at))
        for _ in range(400):
            await ws.send_str(frame)
        await hold_open(ws)

    fake.behaviour = flood
    problems: list[Problem] = []
    tracker = tracker_on(fake, problems, flood_per_second=100)
    async with tracker:
        tracker.track(RID, poll_now=False)
        await wait_until(lambda: said(problems, "flooding") >= 1, "the flood to be stopped")
        assert "polling stands in" in tracker.feed_status().words()
        fake.status, fake.updated_at = "success", fake.updated_at + 100
        await asyncio.wait_for(tracker.wait_done(), 10)  # found by a poll
    latest = tracker.latest(RID)
    assert latest is not None and latest.final and latest.source.value == "poll"


async def test_a_socket_that_never_says_ready_or_never_acknowledges_is_replaced_by_polls(
    fake: Fake,
) -> None:
    async def mute(ws: web.WebSocketResponse, f: Fake) -> None:
        if f.sockets % 2:  # odd connections: no ready message; even ones: no acknowledgement
            await hold_open(ws)
            return
        await ws.send_json({"type": "connection", "status": "ready", "data": {"id": "m"}})
        await hold_open(ws)

    fake.behaviour = mute
    problems: list[Problem] = []
    tracker = tracker_on(fake, problems, ready_timeout=0.3, ack_timeout=0.3)
    async with tracker:
        tracker.track(RID, poll_now=False)
        await wait_until(
            lambda: said(problems, "no ready message") and said(problems, "no acknowledgement"),
            "both stalls",
        )
        fake.status, fake.updated_at = "refund", fake.updated_at + 100
        await asyncio.wait_for(tracker.wait_done(), 10)
    latest = tracker.latest(RID)
    assert latest is not None and str(latest.status) == "refund" and latest.source.value == "poll"


async def test_the_key_goes_in_the_url_and_nowhere_else(fake: Fake) -> None:
    from crossdeck.base.secret import Secret
    from crossdeck.track.socket_feed import socket_url

    key = Secret("k-secret-1")
    assert socket_url("wss://ws.example", key) == "wss://ws.example/?apiKey=k-secret-1"
    assert socket_url("wss://ws.example/?v=1", None) == "wss://ws.example/?v=1"
    client = ServiceClient(fake.url, retry=NO_RETRY)
    tracker = StatusTracker(client, policy=POLICY)
    feed = tracker.use_socket("ws://127.0.0.1:9/ws", api_key=key)
    assert "k-secret-1" not in repr(feed)
    await client.aclose()


async def test_a_change_made_before_the_subscription_is_acknowledged_is_read_after_it(
    fake: Fake,
) -> None:
    """The socket pushes only what changes after a subscription (the world's reading; the
    public service does not say): a request the client acted on before the acknowledgement is
    read once when it comes, or a change made in between would wait for the slow
    reconciliation."""
    subscribed, release = asyncio.Event(), asyncio.Event()

    async def slow_ack(ws: web.WebSocketResponse, f: Fake) -> None:
        await ws.send_json({"type": "connection", "status": "ready", "data": {"id": "t1"}})
        msg = await ws.receive_json(timeout=5)
        subscribed.set()
        await release.wait()
        await ws.send_json(
            {"type": "subscribe", "status": "success",
             "data": {"event": "request.status.updated", "filters": msg["filters"]}}
        )  # fmt: skip
        await hold_open(ws)  # and never pushes the change made before the acknowledgement

    fake.behaviour = slow_ack
    tracker = tracker_on(fake, [])
    async with tracker:
        await socket_live(tracker)
        tracker.track(RID, poll_now=False)
        await asyncio.wait_for(subscribed.wait(), 5)
        tracker.nudge(RID)  # the deposit was sent: its read comes at once
        await wait_until(lambda: tracker.latest(RID) is not None, "the nudge's read")
        assert fake.reads == 1 and not tracker.is_final(RID)
        fake.status, fake.updated_at = "success", fake.updated_at + 50  # filled meanwhile
        release.set()
        await asyncio.wait_for(tracker.wait_done(), 3)  # the ack timeout is 5 s, the reconcile 600
    latest = tracker.latest(RID)
    assert latest is not None and latest.final and str(latest.status) == "success"
    assert fake.reads == 2
