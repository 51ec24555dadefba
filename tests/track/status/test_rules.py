"""The pure parts: the merge rule, the poll policy and the rate budget's arithmetic."""

from __future__ import annotations

import asyncio

import pytest

from crossdeck.base.errors import InputError
from crossdeck.models.status import RequestStatus
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.updates import (
    Source,
    StatusUpdate,
    Verdict,
    compare,
    normalise_request_id,
)

RID = "0x" + "ab" * 32


def update(
    status: str, updated_at: int | None, source: Source = Source.POLL, **kw: object
) -> StatusUpdate:
    return StatusUpdate(
        request_id=RID,
        status=RequestStatus(status),
        updated_at_ms=updated_at,
        source=source,
        observed_at=0.0,
        **kw,  # type: ignore[arg-type]
    )


# -- merge -------------------------------------------------------------------------------------


def test_first_observation_is_news() -> None:
    assert compare(update("waiting", 1), None) is Verdict.NEWER


def test_newer_updated_at_wins_whatever_the_source() -> None:
    old = update("pending", 100, Source.WEBHOOK)
    assert compare(update("submitted", 200, Source.POLL), old) is Verdict.NEWER
    # even a status earlier in the lifecycle: failure -> pending -> refund really happens
    assert compare(update("pending", 300), update("failure", 200)) is Verdict.NEWER


def test_older_observation_is_stale() -> None:
    webhook = update("submitted", 200, Source.WEBHOOK)
    assert compare(update("pending", 100, Source.POLL), webhook) is Verdict.STALE


def test_same_change_from_both_sources_is_a_duplicate() -> None:
    webhook = update("success", 300, Source.WEBHOOK, tx_hashes=("0x1",))
    poll = update("success", 300, Source.POLL, tx_hashes=("0x1",))
    assert compare(poll, webhook) is Verdict.DUPLICATE
    assert compare(webhook, poll) is Verdict.DUPLICATE


def test_newer_timestamp_without_new_facts_is_unchanged_not_news() -> None:
    old = update("pending", 100, in_tx_hashes=("0xa",))
    assert compare(update("pending", 150, in_tx_hashes=("0xa",)), old) is Verdict.UNCHANGED
    # ...but a new hash under the same status is news
    assert compare(update("pending", 150, in_tx_hashes=("0xa", "0xb")), old) is Verdict.NEWER


def test_equal_timestamps_order_by_lifecycle() -> None:
    # two changes inside one millisecond: submitted must never replace success
    assert compare(update("submitted", 500), update("success", 500)) is Verdict.STALE
    assert compare(update("success", 500), update("submitted", 500)) is Verdict.NEWER
    assert compare(update("refund", 500), update("failure", 500)) is Verdict.NEWER


def test_missing_timestamps_fall_back_to_the_lifecycle() -> None:
    assert compare(update("pending", None), update("waiting", None)) is Verdict.NEWER
    assert compare(update("waiting", None), update("pending", 7)) is Verdict.STALE
    assert compare(update("pending", None), update("pending", None)) is Verdict.DUPLICATE


def test_update_json_round_trip() -> None:
    original = update(
        "refund",
        42,
        Source.WEBHOOK,
        fail_reason="DOUBLE_SPEND",
        details={"k": [1]},
        in_tx_hashes=("0x1",),
        final=True,
    )
    again = StatusUpdate.from_json(original.to_json())
    assert again == original
    assert again.details == {"k": [1]}
    assert again.known_status is RequestStatus.REFUND


def test_request_ids_are_checked_and_lower_cased() -> None:
    assert normalise_request_id(RID.upper().replace("0X", "0x")) == RID
    for bad in ("", "0x1234", "ab" * 32, "0x" + "zz" * 32):
        with pytest.raises(InputError):
            normalise_request_id(bad)


# -- policy ------------------------------------------------------------------------------------

POLICY = PollPolicy(
    fast=1.0, ramp=0.5, active_cap=5.0, idle_cap=15.0, webhook_quiet=10, failure_settle=30
)


def test_interval_grows_with_time_since_the_change_up_to_the_status_cap() -> None:
    assert POLICY.interval("pending", 0) == 1.0
    assert POLICY.interval("pending", 6) == 3.0
    assert POLICY.interval("pending", 600) == 5.0
    assert POLICY.interval("waiting", 600) == 15.0
    assert POLICY.interval("something-new", 600) == 15.0
    assert POLICY.interval("failure", 600) == POLICY.settle_interval


def test_waiting_ramps_steeper_and_a_live_feed_slows_it_to_the_idle_cap() -> None:
    policy = PollPolicy(fast=1.0, ramp=0.5, idle_ramp=1.0, active_cap=5.0, idle_cap=15.0)
    assert policy.interval("waiting", 4) == 4.0
    assert policy.interval("pending", 4) == 2.0
    # webhooks arrive for other requests: a waiting one is only checked as a safety net
    assert policy.interval("waiting", 0, feed_live=True) == 15.0
    assert policy.interval("pending", 0, feed_live=True) == 1.0


def test_webhook_postpones_the_next_poll_to_the_end_of_the_quiet_period() -> None:
    due = POLICY.next_poll(
        now=100, status="pending", changed_at=100, last_webhook_at=100, failure_since=None
    )
    assert due == 110
    # once the quiet period is over, the interval is the one time since the change gives
    due = POLICY.next_poll(
        now=120, status="pending", changed_at=100, last_webhook_at=100, failure_since=None
    )
    assert due == 125


def test_failure_settle_poll_lands_on_the_settle_end() -> None:
    due = POLICY.next_poll(
        now=129, status="failure", changed_at=100, last_webhook_at=None, failure_since=100
    )
    assert due == 130


def test_policy_from_settings_and_validation() -> None:
    from crossdeck.config import TrackingSettings

    policy = PollPolicy.from_settings(
        TrackingSettings(
            poll_interval_seconds=2, poll_interval_cap_seconds=20, failure_settle_seconds=9
        )
    )
    assert (policy.fast, policy.idle_cap, policy.failure_settle) == (2.0, 20.0, 9.0)
    assert policy.fast <= policy.active_cap <= policy.idle_cap
    with pytest.raises(ValueError, match="caps"):
        PollPolicy(fast=10, active_cap=5)
    assert POLICY.error_delay(1) == 2.0 and POLICY.error_delay(10) == POLICY.error_cap


# -- budget ------------------------------------------------------------------------------------


class FakeTime:
    """A clock that only moves when the budget sleeps: its waits are exact and instant."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


async def test_budget_spends_its_burst_then_paces_at_its_rate() -> None:
    t = FakeTime()
    budget = RateBudget(4, burst=2, clock=t.clock, sleep=t.sleep)
    for _ in range(10):
        await budget.acquire()
    assert budget.stats.granted == 10
    # 2 free, then 8 at 4/s
    assert t.now - 1000.0 == pytest.approx(2.0)


async def test_429_pauses_everyone_for_retry_after_and_halves_the_rate() -> None:
    t = FakeTime()
    budget = RateBudget(10, burst=10, clock=t.clock, sleep=t.sleep)
    await budget.acquire()
    assert budget.rate_limited(3.0) == 3.0
    assert budget.paused_for() == pytest.approx(3.0)
    assert not budget.try_acquire()
    await budget.acquire()
    assert t.now >= 1003.0
    assert budget.current_rate == 5.0
    assert budget.stats.rate_limited == 1
    for _ in range(20):
        budget.answered()
    assert budget.current_rate == 10.0


async def test_429_without_retry_after_doubles_and_unavailable_backs_off() -> None:
    t = FakeTime()
    budget = RateBudget(10, clock=t.clock, sleep=t.sleep)
    assert [budget.rate_limited(None) for _ in range(3)] == [1.0, 2.0, 4.0]
    assert budget.current_rate == 10 * 0.125  # never below the floor
    budget.answered()
    assert [budget.unavailable() for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert budget.stats.unavailable == 7


async def test_budget_give_back_returns_an_unused_token() -> None:
    t = FakeTime()
    budget = RateBudget(1, burst=1, clock=t.clock, sleep=t.sleep)
    await budget.acquire()
    assert not budget.try_acquire()
    budget.give_back()
    assert budget.try_acquire()
    assert budget.stats.granted == 1


def test_budget_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        RateBudget(0)
    with pytest.raises(ValueError):
        RateBudget(1, burst=0.5)


# -- payload nesting ---------------------------------------------------------------------------


def test_deep_nesting_is_refused_before_json_even_with_a_raised_recursion_limit() -> None:
    """eth-account's import raises the recursion limit to 100,000; json's C decoder then
    overflows the C stack on a deeply nested body instead of raising RecursionError."""
    import json
    import sys

    from crossdeck.track.payload import MAX_NESTING, PayloadError, nesting_depth, parse_event

    deep = b"[" * 100_000 + b"]" * 100_000
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        with pytest.raises(PayloadError, match="nests deeper"):
            parse_event(deep)
    finally:
        sys.setrecursionlimit(limit)
    nested: object = "leaf"
    for _ in range(MAX_NESTING - 3):
        nested = [nested]
    body = {
        "event": "request.status.updated",
        "data": {"requestId": RID, "status": "failure", "updatedAt": 1, "details": nested},
    }
    raw = json.dumps(body).encode()
    assert nesting_depth(raw) == MAX_NESTING - 1
    assert parse_event(raw).data.details == nested  # type: ignore[union-attr]
    assert nesting_depth(b'{"a": "[[[[{{{{"}') == 1
