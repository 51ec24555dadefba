"""A bridge against the world learns its outcome from the status socket: no status read before
the one that confirms `success`; with the world's sockets dropped mid-transfer it still
reaches success (reconnected, or polled meanwhile), each status shown once."""

from __future__ import annotations

import dataclasses

import httpx
from execute_support import FAST, Kit, finished, native_quote, of_type

from crossdeck.api import ServiceClient
from crossdeck.execute import StatusChanged, TxConfirmed
from crossdeck.track.budget import RateBudget
from crossdeck.track.tracker import StatusTracker
from crossdeck.track.updates import status_rank
from helpers.waiting import wait_until

STATUS_PATH = "/intents/status/v3"
SOCKET_POLICY = dataclasses.replace(FAST, socket_reconcile=60.0)


class Reads(httpx.AsyncBaseTransport):
    """The real transport, counting status reads."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.status_reads = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == STATUS_PATH:
            self.status_reads += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _socket_tracker(kit: Kit, reads: Reads) -> tuple[StatusTracker, ServiceClient]:
    world = kit.world
    client = ServiceClient(world.service_url, api_key=world.api_key, transport=reads)
    tracker = StatusTracker(client, policy=SOCKET_POLICY, budget=RateBudget(50, burst=10))
    tracker.use_socket(world.ws_url)
    tracker.start()
    # the run follows its request on a live socket (before it connects the polls stand in)
    await wait_until(lambda: tracker.feed_status().socket == "live", "the status socket live")
    return tracker, client


async def test_a_bridge_learns_success_from_the_socket_with_one_confirming_read(
    py_kit: Kit,
) -> None:
    reads = Reads()
    tracker, client = await _socket_tracker(py_kit, reads)
    try:
        quote, request = await native_quote(py_kit)
        executor = py_kit.make_executor(follower=tracker)
        events = [event async for event in executor.run(quote, request=request)]
        await executor.aclose()
    finally:
        await tracker.aclose()
        await client.aclose()
    done = finished(events)
    assert done.status == "success"
    changes = of_type(events, StatusChanged)
    assert changes[-1].status == "success" and changes[-1].source == "socket"
    assert reads.status_reads == 1  # the confirmation of success, nothing before it


async def test_sockets_dropped_mid_bridge_still_reach_success_each_status_once(
    py_kit: Kit,
) -> None:
    world = py_kit.world
    reads = Reads()
    tracker, client = await _socket_tracker(py_kit, reads)
    feed = tracker.socket
    assert feed is not None
    events = []
    try:
        quote, request = await native_quote(py_kit)
        executor = py_kit.make_executor(follower=tracker)
        async for event in executor.run(quote, request=request):
            events.append(event)
            if isinstance(event, TxConfirmed):  # the deposit is mined: the solver is at work
                world.drop_sockets()
        await executor.aclose()
    finally:
        await tracker.aclose()
        await client.aclose()
    assert finished(events).status == "success"
    statuses = [e.status for e in of_type(events, StatusChanged)]
    assert statuses[-1] == "success"
    assert len(statuses) == len(set(statuses))  # nothing shown twice
    ranks = [status_rank(s) for s in statuses]
    assert ranks == sorted(ranks)  # and nothing went backwards
    assert feed.connections >= 2 or reads.status_reads >= 1  # reconnected, or polled
