"""Right after the client's own action the poller looks again soon (the policy's `first`
wait), then backs off as usual; the settings' policy does this by default."""

from __future__ import annotations

import pytest
from test_execute_tracking import Script, collect, status

from crossdeck.config import TrackingSettings
from crossdeck.execute.executor import INDEX_TIMEOUT_SECONDS
from crossdeck.execute.tracking import FOLLOW_UP_SECONDS, TrackingPolicy

POLICY = TrackingPolicy(initial=2.0, factor=1.5, cap=4.0, timeout=3600, first=0.25)


async def test_the_first_wait_is_the_follow_up_then_it_grows() -> None:
    answers = [status("waiting")] * 4 + [status("pending")] * 2 + [status("success")]
    script = Script(answers)
    assert await collect(script, POLICY) == ["waiting", "pending", "success"]
    # after the first answer: 0.25, growing by 1.5; a later change goes back to `initial`
    assert script.waits == [0.25, 0.375, 0.5625, 0.84375, 2.0, 3.0]


async def test_success_on_the_second_look_comes_after_the_follow_up_only() -> None:
    script = Script([status("waiting"), status("success")])
    assert await collect(script, POLICY) == ["waiting", "success"]
    assert script.waits == [0.25]


async def test_without_first_the_policy_starts_at_initial() -> None:
    script = Script([status("waiting"), status("waiting"), status("success")])
    await collect(script, TrackingPolicy(initial=2.0, cap=4.0, timeout=3600))
    assert script.waits == [2.0, 3.0]


def test_the_settings_policy_follows_up_within_a_quarter_second() -> None:
    policy = TrackingPolicy.from_settings(TrackingSettings())
    assert policy.first == FOLLOW_UP_SECONDS <= 0.25
    assert policy.initial == TrackingSettings().poll_interval_seconds
    short = TrackingPolicy.from_settings(TrackingSettings(poll_interval_seconds=0.1))
    assert short.first == 0.1  # never later than the configured interval


async def test_a_run_tells_the_service_about_its_deposit(world, make_kit) -> None:
    """POST /transactions/index with the deposit's hash once it is mined (the approval, were
    there one, is not a deposit)."""
    from execute_support import ETH, NATIVE, finished, fund, new_address

    from crossdeck.execute.events import TxSent

    kit = make_kit(world)
    try:
        await fund(world, kit.address, native={8453: ETH})
        quote, request = await kit.quote(
            origin_chain_id=8453,
            destination_chain_id=999,
            origin_currency=NATIVE,
            destination_currency=NATIVE,
            amount=str(ETH // 10),
            recipient=new_address(),
        )
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
    from execute_support import ETH, NATIVE, finished, fund, new_address

    kit = make_kit(world)
    try:
        await fund(world, kit.address, native={8453: ETH})
        quote, request = await kit.quote(
            origin_chain_id=8453,
            destination_chain_id=999,
            origin_currency=NATIVE,
            destination_currency=NATIVE,
            amount=str(ETH // 10),
            recipient=new_address(),
        )
        world.faults.inject(fault, 1, path="/transactions/index", delay=INDEX_TIMEOUT_SECONDS + 2)
        events = await kit.run(quote, request=request)
    finally:
        await kit.aclose()
    assert finished(events).status == "success"
