"""1,000 requests tracked at once against the demo world finish without a single 429.

The world limits the demo key to 6,000 calls a minute (100/s); the tracker's budget is 80% of
that, with a burst of 20. 600 requests belong to the demo key, whose webhooks go to a
`WebhookReceiver` attached to the tracker; 400 belong to the other key, which has no webhook
endpoint, so they are followed by polling alone. A driver thread moves every request through
its lifecycle the way the solver does (`ServiceState.advance`): most to success, one in ten
through failure to refund, each stage 0.3 to 2 seconds after the last, the first 0.5 to 6
seconds after the start.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest

from crossdeck.models.status import RequestStatus
from crossdeck.sim.world import World
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.store import StatusStore
from crossdeck.track.tracker import StatusTracker
from crossdeck.track.updates import Source, StatusUpdate, status_rank

from .support import (
    KEYED_PER_MINUTE,
    CountingTransport,
    RequestMaker,
    advance,
    client_for,
    collect,
    running,
    tx,
    webhooks_to_receiver,
)

HOOKED = 600
POLLED = 400
RATE, BURST = 0.8 * KEYED_PER_MINUTE / 60, 20.0

Plan = list[tuple[float, str, str]]  # (seconds from start, request id, next status)


def lifecycle_plan(ids: list[str], seed: int = 7) -> tuple[Plan, dict[str, str]]:
    rng = random.Random(seed)
    plan: Plan = []
    final: dict[str, str] = {}
    for rid in ids:
        at = rng.uniform(0.5, 6.0)  # the user pays
        stages = ["pending", "submitted", "success"]
        if rng.random() < 0.1:
            stages = ["pending", "failure", "refund"]
        for status in stages:
            plan.append((at, rid, status))
            at += rng.uniform(0.3, 2.0)
        final[rid] = stages[-1]
    plan.sort()
    return plan, final


def drive(world: World, plan: Plan, errors: list[BaseException]) -> None:
    start = time.monotonic()
    try:
        for at, rid, status in plan:
            delay = start + at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            extra = {"in_tx": tx(8453)} if status == "pending" else {}
            if status == "submitted":
                extra = {"out_tx": tx(999)}
            if status == "failure":
                extra = {"fail_reason": "SLIPPAGE"}
            advance(world, rid, status, **extra)
    except BaseException as exc:  # reported by the test, not lost in the thread
        errors.append(exc)


@pytest.mark.timeout(150)
async def test_a_thousand_tracked_requests_finish_without_one_429(
    status_world: World, maker: RequestMaker, tmp_path: Path
) -> None:
    world = status_world
    hooked = maker.make(HOOKED, key_name="demo")
    polled = maker.make(POLLED, key_name="other")
    everyone = hooked + polled
    plan, final = lifecycle_plan(everyone)
    transport = CountingTransport()
    budget = RateBudget(RATE, burst=BURST)
    seen: list[StatusUpdate] = []
    errors: list[BaseException] = []
    with StatusStore(tmp_path / "tracking.sqlite3") as store:
        tracker = StatusTracker(
            client_for(world, transport), store=store, budget=budget, policy=PollPolicy()
        )
        async with webhooks_to_receiver(world) as receiver, running(tracker):
            tracker.attach(receiver)
            reader = asyncio.create_task(collect(tracker.updates(until_done=True), seen))
            tracker.track_many(everyone)
            driver = threading.Thread(target=drive, args=(world, plan, errors), daemon=True)
            started = time.monotonic()
            driver.start()
            await asyncio.wait_for(reader, 120)
            elapsed = time.monotonic() - started
            await asyncio.to_thread(driver.join, 30)
        assert store.unfinished() == []
    await transport.aclose()
    assert errors == []

    # every request finished, with the status it really ended in
    assert tracker.unfinished() == [] and tracker.given_up() == {}
    for rid in everyone:
        latest = tracker.latest(rid)
        assert latest is not None and latest.final, rid
        assert str(latest.status) == final[rid]

    # not one 429, and the budget held: never more than the burst plus the rate
    polls = transport.status_polls()
    codes = transport.codes()
    assert codes[429] == 0 and budget.stats.rate_limited == 0
    assert set(codes) == {200}
    assert len(polls) <= BURST + RATE * (polls[-1].sent - polls[0].sent) + 1

    # one ordered stream per request: updatedAt never goes back, nothing announced twice
    per_request: dict[str, list[StatusUpdate]] = defaultdict(list)
    for update in seen:
        per_request[update.request_id].append(update)
    for rid, updates in per_request.items():
        stamps = [u.updated_at_ms or 0 for u in updates]
        assert stamps == sorted(stamps), rid
        # a failure held for the settle period is announced once more, as final: on a busy
        # machine the driver can fall that far behind between a request's failure and refund
        changes = [(str(u.status), u.updated_at_ms, u.final) for u in updates]
        assert len(changes) == len(set(changes)), rid
        last = updates[-1]
        assert last.final and status_rank(last.status) == 5
    refunds = [rid for rid in everyone if final[rid] == "refund"]
    assert refunds and all(
        tracker.latest(rid).status is RequestStatus.REFUND  # type: ignore[union-attr]
        for rid in refunds
    )

    # webhooks did their part: the hooked requests were polled far less
    polls_per = defaultdict(int)
    for poll in polls:
        polls_per[poll.request_id] += 1
    hooked_polls = sum(polls_per[rid] for rid in hooked) / HOOKED
    polled_polls = sum(polls_per[rid] for rid in polled) / POLLED
    assert hooked_polls < polled_polls / 2
    assert any(u.source is Source.WEBHOOK for u in seen)
    assert {u.source for rid in polled for u in per_request[rid]} == {Source.POLL}
    print(
        f"\n1,000 requests in {elapsed:.1f} s: {len(polls)} status requests "
        f"({len(polls) / elapsed:.1f}/s, budget {RATE:g}/s), 429s: {codes[429]}, "
        f"polls per hooked request {hooked_polls:.2f}, per polled request {polled_polls:.2f}, "
        f"webhooks {tracker.stats.webhooks}"
    )
