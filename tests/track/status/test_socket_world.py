"""The tracker over the world's real status websocket (loopback): changes are pushed, a final
one is confirmed by exactly one status read, a dropped socket is reconnected and resubscribed
with polls standing in, and nothing is missed or shown twice."""

from __future__ import annotations

import asyncio
import json

import aiohttp

from crossdeck.sim.world import World
from crossdeck.track.tracked import Problem
from crossdeck.track.tracker import StatusTracker
from crossdeck.track.updates import Source, StatusUpdate
from helpers.waiting import wait_until

from .support import (
    FAST,
    CountingTransport,
    RequestMaker,
    advance,
    collect,
    running,
    statuses,
    tracker_for,
    tx,
)

# the socket pushes: polls only reconcile, and rarely
SOCKET_POLICY = FAST.__class__(**{**FAST.__dict__, "socket_reconcile": 60.0})


async def _live(tracker: StatusTracker) -> None:
    """The socket is up: from here a followed request is read only to confirm, catch up or
    reconcile (while it connects, the polls stand in as while it is down)."""
    await wait_until(lambda: tracker.feed_status().socket == "live", "the status socket live")


async def _acked(tracker: object, rid: str) -> None:
    feed = tracker.socket  # type: ignore[attr-defined]
    await wait_until(lambda: feed.acked(rid), "the subscription to be acknowledged")


async def test_the_socket_pushes_each_change_and_one_read_confirms_success(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = no_webhooks
    [rid] = maker.make()
    seen: list[StatusUpdate] = []
    tracker = tracker_for(world, transport, policy=SOCKET_POLICY)
    tracker.use_socket(world.ws_url)
    async with running(tracker):
        await _live(tracker)
        tracker.track(rid, poll_now=False)
        reader = asyncio.create_task(collect(tracker.stream(rid), seen))
        await _acked(tracker, rid)
        tracker.nudge(rid)  # the client's own action: the socket will tell, no read
        advance(world, rid, "pending", in_tx=tx(8453))
        advance(world, rid, "submitted", out_tx=tx(999))
        advance(world, rid, "success")
        await asyncio.wait_for(reader, 20)

    assert statuses(seen) == ["pending", "submitted", "success"]
    assert [u.source for u in seen] == [Source.SOCKET] * 3
    assert seen[-1].final
    # the one status read is the confirmation of the final status, after the socket said it
    assert len(transport.status_polls(rid)) == 1
    assert tracker.stats.socket_events == 3


async def test_sockets_dropped_mid_transfer_still_reach_success_with_nothing_twice(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = no_webhooks
    [rid] = maker.make()
    seen: list[StatusUpdate] = []
    problems: list[Problem] = []
    tracker = tracker_for(world, transport, policy=SOCKET_POLICY, on_problem=problems.append)
    feed = tracker.use_socket(world.ws_url)
    async with running(tracker):
        await _live(tracker)
        tracker.track(rid, poll_now=False)
        reader = asyncio.create_task(collect(tracker.stream(rid), seen))
        await _acked(tracker, rid)
        advance(world, rid, "pending", in_tx=tx(8453))
        await wait_until(lambda: statuses(seen) == ["pending"], "pending pushed")
        assert world.drop_sockets() == 1
        advance(world, rid, "submitted", out_tx=tx(999))  # while the socket is down
        # a poll (the socket is down) or the read after the new acknowledgement finds it
        await wait_until(lambda: statuses(seen) == ["pending", "submitted"], "submitted read")
        await wait_until(lambda: feed.connections >= 2 and feed.acked(rid), "a new subscription")
        # the read that catches up after the new acknowledgement is answered (else it could
        # read the success below before the socket pushes it): only reconciling reads are left
        await wait_until(lambda: (tracker.next_read_in(rid) or 0) > 10, "the catch-up read")
        advance(world, rid, "success")
        await asyncio.wait_for(reader, 20)

    assert statuses(seen) == ["pending", "submitted", "success"]
    assert [u.source for u in seen] == [Source.SOCKET, Source.POLL, Source.SOCKET]
    assert seen[-1].final
    assert any("down" in p.message and "polling stands in" in p.message for p in problems)


async def test_failure_then_refund_ends_as_refund(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = no_webhooks
    [rid] = maker.make()
    seen: list[StatusUpdate] = []
    tracker = tracker_for(world, transport, policy=SOCKET_POLICY)
    tracker.use_socket(world.ws_url)
    async with running(tracker):
        await _live(tracker)
        tracker.track(rid, poll_now=False)
        reader = asyncio.create_task(collect(tracker.stream(rid), seen))
        await _acked(tracker, rid)
        advance(world, rid, "pending", in_tx=tx(8453))
        advance(world, rid, "failure", fail_reason="SOLVER_CAPACITY_EXCEEDED")
        advance(world, rid, "refund", out_tx=tx(8453))
        await asyncio.wait_for(reader, 20)

    assert statuses(seen) == ["pending", "failure", "refund"]
    assert seen[-1].final and seen[-1].source is Source.SOCKET


async def test_the_world_socket_speaks_the_published_protocol(
    no_webhooks: World, maker: RequestMaker
) -> None:
    world = no_webhooks
    [rid] = maker.make()
    async with aiohttp.ClientSession() as http, http.ws_connect(world.ws_url) as ws:
        ready = await ws.receive_json(timeout=5)
        assert ready["type"] == "connection" and ready["status"] == "ready"
        assert isinstance(ready["data"]["id"], str)
        sub = {"type": "subscribe", "event": "request.status.updated", "filters": {"id": rid}}
        await ws.send_json(sub)
        ack = await ws.receive_json(timeout=5)
        assert ack == {
            "type": "subscribe",
            "status": "success",
            "data": {"event": "request.status.updated", "filters": {"id": rid}},
        }
        advance(world, rid, "pending", in_tx=tx(8453))
        advance(world, rid, "failure", fail_reason="SLIPPAGE")
        first, second = await ws.receive_json(timeout=5), await ws.receive_json(timeout=5)
        assert first["event"] == "request.status.updated"
        assert isinstance(first["publishedAt"], int)
        assert first["data"]["status"] == "pending" and first["data"]["requestId"] == rid
        assert "failReason" not in first["data"]  # only when set
        assert second["data"]["failReason"] == "SLIPPAGE"
        await ws.send_str("not json")
        assert (await ws.receive_json(timeout=5))["type"] == "error"
        await ws.send_json({**sub, "type": "unsubscribe"})
        unack = await ws.receive_json(timeout=5)
        assert unack == {
            "type": "unsubscribe",
            "status": "success",
            "data": {"event": "request.status.updated"},
        }
    async with aiohttp.ClientSession() as http:
        refused = await http.get(world.ws_url.replace("ws", "http", 1) + "/?apiKey=nope")
        assert refused.status == 401
        drop = await http.post(world.ws_url.replace("ws", "http", 1) + "/_sim/ws/drop")
        assert json.loads(await drop.text()) == {"dropped": 0}


async def test_a_request_final_before_the_subscription_is_read_when_a_resumed_run_asks(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    """A run resumed by another process: the request went final while nobody was subscribed,
    so the socket has nothing left to push. A plain nudge reads nothing (the socket would tell
    of a change that comes); the resumed run's `read=True` nudge reads once and ends it."""
    world = no_webhooks
    [rid] = maker.make()
    advance(world, rid, "pending", in_tx=tx(8453))
    advance(world, rid, "success", out_tx=tx(999))
    seen: list[StatusUpdate] = []
    tracker = tracker_for(world, transport, policy=SOCKET_POLICY)
    tracker.use_socket(world.ws_url)
    async with running(tracker):
        await _live(tracker)
        tracker.track(rid, poll_now=False)
        reader = asyncio.create_task(collect(tracker.stream(rid), seen))
        await _acked(tracker, rid)
        tracker.nudge(rid)
        await asyncio.sleep(0.5)
        assert transport.status_polls(rid) == []  # nothing was read, nothing can be pushed
        assert not reader.done()
        tracker.nudge(rid, read=True)
        await asyncio.wait_for(reader, 20)

    assert statuses(seen) == ["success"]
    assert len(transport.status_polls(rid)) == 1
