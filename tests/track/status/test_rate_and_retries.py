"""429s from the demo world pause the tracker's whole budget; the world's webhook retries reach a
receiver that was down when the status changed."""

from __future__ import annotations

import itertools

from crossdeck.sim.world import World
from crossdeck.track.budget import RateBudget
from crossdeck.track.receiver import WebhookReceiver
from crossdeck.track.tracker import Problem
from crossdeck.track.updates import Source

from .support import (
    STATUS_PATH,
    CountingTransport,
    RequestMaker,
    advance,
    free_port,
    running,
    tracker_for,
    tx,
    wait_status,
    wait_until,
)


async def test_429_with_retry_after_pauses_every_poll_of_the_budget(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = no_webhooks
    ids = maker.make(5)
    world.faults.inject("429", 3, path=STATUS_PATH)  # answered with Retry-After: 1
    budget = RateBudget(20, burst=5)
    problems: list[Problem] = []
    async with running(
        tracker_for(world, transport, budget=budget, on_problem=problems.append)
    ) as tracker:
        tracker.track_many(ids)
        for rid in ids:
            await wait_status(tracker, rid, "waiting")
    assert world.faults.pending() == 0
    polls = transport.status_polls()
    limited = [s for s in polls if s.status == 429]
    assert len(limited) == 3
    assert budget.stats.rate_limited == 3
    assert budget.stats.last_pause == 1.0
    # nothing was sent while a pause was on: every request sent after a 429 came back waited
    # for the server's Retry-After
    for rejection in limited:
        sent_after = [s.sent for s in polls if s.sent > rejection.at]
        assert sent_after, "the rejected polls were made again"
        assert min(sent_after) >= rejection.at + 1.0
    assert sum("rate limited" in p.message for p in problems) == 3


async def test_world_webhook_retries_reach_a_receiver_that_comes_back(
    status_world: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = status_world
    sender = world.webhook_sender
    assert sender is not None
    port = free_port()  # nothing listens here yet
    path = "/webhooks"
    world.set_webhook(world.api_key, f"http://127.0.0.1:{port}{path}")
    (rid,) = maker.make(1)
    try:
        advance(world, rid, "pending", in_tx=tx(8453))

        def failed_attempts() -> int:
            return sum(
                1 for d in sender.deliveries if d.request_id == rid and d.outcome == "retrying"
            )

        await wait_until(lambda: failed_attempts() >= 2, "two failed deliveries")
        receiver = WebhookReceiver(world.api_key, path=path)
        await receiver.start("127.0.0.1", port)
        try:
            # the tracker learns of the request from the webhook itself
            tracker = tracker_for(world, transport, track_unknown_webhooks=True)
            async with running(tracker):
                tracker.attach(receiver)
                await wait_until(lambda: tracker.stats.webhooks >= 1, "the retried delivery")
                assert receiver.stats.accepted == 1
                # the sender notes an attempt once its answer is read, which under load can
                # come after the tracker took the event
                await wait_until(
                    lambda: any(
                        d.request_id == rid and d.outcome == "delivered" for d in sender.deliveries
                    ),
                    "the sender to note the delivery",
                )
        finally:
            await receiver.stop()
    finally:

        async def unset() -> None:
            sender.remove_endpoint(world.api_key)

        world.call(unset)
    attempts = [d for d in sender.deliveries if d.request_id == rid]
    assert [d.outcome for d in attempts[:-1]] == ["retrying"] * (len(attempts) - 1)
    assert attempts[-1].outcome == "delivered" and attempts[-1].attempt >= 2
    assert all(d.http_status is None for d in attempts[:-1])  # refused: nobody listened
    # the backoff grows: the n-th wait is base x 2^n (capped), jittered to [0.5, 1] of that. A
    # gap also holds the refused POST and the loop's lateness, so only the floor is load-proof:
    # each gap is at least half its own step of the doubling, which a fixed wait would miss
    gaps = [b.time - a.time for a, b in itertools.pairwise(attempts)]
    floors = [0.5 * min(sender.max_delay, sender.base_delay * 2**n) for n in range(len(gaps))]
    assert len(gaps) >= 2 and floors[-1] > floors[0]
    late_enough = [gap >= floor - 0.002 for gap, floor in zip(gaps, floors, strict=True)]
    assert all(late_enough), (gaps, floors)
    latest = tracker.latest(rid)
    assert latest is not None
    assert (str(latest.status), latest.source) == ("pending", Source.WEBHOOK)
    assert latest.in_tx_hashes
