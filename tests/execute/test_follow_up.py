"""Right after the client's own action the tracker looks again at once (`StatusTracker.nudge`),
then every `first` seconds backing off as usual; the settings' policy does this by default."""

from __future__ import annotations

import asyncio

import pytest
from test_execute_tracking import QUICK, RID, Script, intervals, status, tracker_of

from crossdeck.config import TrackingSettings
from crossdeck.execute.follow import until_final
from crossdeck.execute.tx_runner import INDEX_TIMEOUT_SECONDS
from crossdeck.track.policy import FOLLOW_UP_SECONDS, PollPolicy

POLICY = PollPolicy(fast=2.0, first=0.25, ramp=0.5, idle_ramp=0.5, active_cap=4.0, idle_cap=4.0)


def test_the_first_wait_is_the_follow_up_then_it_grows() -> None:
    waits = intervals(POLICY, ["waiting"] * 8, following=True)
    # after the client's action: 0.25 s, then growing by 1.5 each time
    assert waits == [0.25, 0.25, 0.25, 0.375, 0.5625, 0.84375, 1.265625, 1.8984375]


def test_without_following_the_policy_starts_at_fast() -> None:
    assert intervals(POLICY, ["waiting"] * 3) == [2.0, 2.0, 2.0]


async def test_success_on_the_second_look_comes_after_the_nudge() -> None:
    """A tracker that would look again only after a minute looks again at once when nudged."""
    slow = PollPolicy(**{**QUICK.__dict__, "fast": 60.0, "active_cap": 60.0, "idle_cap": 60.0})
    script = Script([status("waiting"), status("success")])
    tracker = tracker_of(script, slow)
    seen: list[str] = []
    async with tracker, asyncio.timeout(20):  # the test's own bound, far below the minute
        updates = tracker.follow(RID)  # followed anew: no look before the client acts
        tracker.nudge(RID)
        async for update in until_final(tracker, RID, updates):
            seen.append(str(update.status))
            tracker.nudge(RID)  # as the executor does after its own action
    assert seen == ["waiting", "success"]
    assert script.calls == 2


def test_the_settings_policy_follows_up_within_a_quarter_second() -> None:
    policy = PollPolicy.from_settings(TrackingSettings())
    assert policy.first == FOLLOW_UP_SECONDS <= 0.25
    assert policy.fast == TrackingSettings().poll_interval_seconds
    assert policy.timeout == TrackingSettings().timeout_seconds
    short = PollPolicy.from_settings(TrackingSettings(poll_interval_seconds=0.01))
    assert short.first == 0.01  # never later than the configured interval


async def test_a_run_tells_the_service_about_its_deposit(world, make_kit) -> None:
    """POST /transactions/index with the deposit's hash once it is mined (the approval, were
    there one, is not a deposit)."""
    from execute_support import ETH, finished, fund, quote_native

    from crossdeck.execute.events import TxSent

    kit = make_kit(world)
    try:
        await fund(world, kit.address, native={8453: ETH})
        quote, request = await quote_native(kit, ETH // 10)
        events = await kit.run(quote, request=request)
    finally:
        await kit.aclose()
    assert finished(events).status == "success"
    [sent] = [e for e in events if isinstance(e, TxSent)]
    assert (8453, sent.hash.lower()) in world.state.indexed_txs()


@pytest.mark.parametrize("fault", ["malformed", "slow"])
async def test_a_failing_index_call_does_not_stop_the_run(world, make_kit, fault) -> None:
    """The index call is best-effort: a bad answer is ignored, a slow one is given up after
    INDEX_TIMEOUT_SECONDS, and the run reaches success either way."""
    from execute_support import ETH, finished, fund, quote_native

    kit = make_kit(world)
    try:
        await fund(world, kit.address, native={8453: ETH})
        quote, request = await quote_native(kit, ETH // 10)
        world.faults.inject(fault, 1, path="/transactions/index", delay=INDEX_TIMEOUT_SECONDS + 2)
        events = await kit.run(quote, request=request)
    finally:
        await kit.aclose()
    assert finished(events).status == "success"


async def test_a_nudge_during_a_poll_polls_again_once_it_is_back() -> None:
    """The answer in flight may predate the client's action: it is followed by another look
    at once, not by the minute the policy would wait."""
    slow = PollPolicy(**{**QUICK.__dict__, "fast": 60.0, "active_cap": 60.0, "idle_cap": 60.0})
    release = asyncio.Event()
    asked = asyncio.Event()
    script = Script([status("waiting"), status("success")])

    class Held:
        async def status_v3(self, rid: str) -> object:
            if script.calls == 0:
                asked.set()
                await release.wait()  # the first poll is in flight while the client acts
            return await script.status_v3(rid)

    tracker = tracker_of(Held(), slow)
    async with tracker, asyncio.timeout(20):  # the test's own bound, far below the minute
        updates = tracker.follow(RID)
        tracker.nudge(RID)  # the first look
        await asked.wait()
        tracker.nudge(RID)
        release.set()
        seen = [str(u.status) async for u in until_final(tracker, RID, updates)]
    assert seen == ["waiting", "success"]
    assert script.calls == 2
