"""Following a request after the run sent everything: the `track` engine (`StatusTracker`) the
executor is handed, read through `crossdeck.execute.follow`. Final statuses, the failure
settle, 429s from the real service, errors waited out, 404s, and the overall deadline."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from execute_support import ETH, NATIVE, Kit, finished, fund, new_address, quote_native

from crossdeck.api import NO_RETRY, ServiceClient
from crossdeck.execute import TrackingTimeout
from crossdeck.execute.follow import until_final, with_deadline
from crossdeck.models import StatusV3
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.tracker import Problem, StatusTracker

RID = "0x" + "ab" * 32


def status(name: str, **extra: Any) -> StatusV3:
    return StatusV3.model_validate({"status": name, **extra})


class Script:
    """A status source that answers from a list (the last answer repeats)."""

    def __init__(self, answers: list[StatusV3 | Exception]) -> None:
        self.answers = answers
        self.calls = 0

    async def status_v3(self, request_id: str) -> StatusV3:
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        if isinstance(answer, Exception):
            raise answer
        return answer


# quick pacing for scripted sources: every wait a few milliseconds
QUICK = PollPolicy(
    fast=0.01, first=0.01, active_cap=0.02, idle_cap=0.02, failure_settle=30.0,
    settle_interval=0.01, error_base=0.01, error_cap=0.02, timeout=30.0,
)  # fmt: skip


def tracker_of(source: Any, policy: PollPolicy = QUICK, **kwargs: Any) -> StatusTracker:
    return StatusTracker(source, policy=policy, budget=RateBudget(1000, burst=100), **kwargs)


async def follow(tracker: StatusTracker, request_id: str = RID) -> list[Any]:
    """What a run sees: the updates up to the final one (`until_final`), within the test's
    own bound (the follower must end first)."""
    async with tracker, asyncio.timeout(20):
        return [u async for u in until_final(tracker, request_id, tracker.follow(request_id))]


async def collect(script: Script, policy: PollPolicy = QUICK) -> list[str]:
    updates = await follow(tracker_of(script, policy))
    assert updates[-1].final and not any(u.final for u in updates[:-1])
    return [str(u.status) for u in updates]


POLICY = PollPolicy(fast=1.0, first=1.0, ramp=0.5, idle_ramp=0.5, active_cap=4.0, idle_cap=4.0)


def intervals(policy: PollPolicy, statuses: list[str], *, following: bool = False) -> list[float]:
    """The waits the tracker makes after each poll answering `statuses` in turn."""
    now, changed_at, last, waits = 0.0, 0.0, None, []
    for name in statuses:
        if name != last:
            changed_at, last = now, name
        due = policy.next_poll(
            now=now,
            status=name,
            changed_at=changed_at,
            last_webhook_at=None,
            failure_since=None,
            following=following,
        )
        waits.append(due - now)
        now = due
    return waits


def test_backoff_grows_to_the_cap_and_resets_on_change() -> None:
    waits = intervals(POLICY, ["waiting"] * 8 + ["pending"] * 2)
    assert waits == [1.0, 1.0, 1.0, 1.5, 2.25, 3.375, 4.0, 4.0, 1.0, 1.0]


async def test_the_follower_reports_each_change_once_and_ends_on_the_final_one() -> None:
    answers = [status("waiting")] * 6 + [status("pending")] * 2 + [status("success")]
    assert await collect(Script(answers)) == ["waiting", "pending", "success"]


async def test_refund_is_final_at_once() -> None:
    script = Script([status("pending"), status("failure"), status("refund")])
    assert await collect(script) == ["pending", "failure", "refund"]


async def test_failure_is_final_only_after_the_settle_period() -> None:
    policy = PollPolicy(**{**QUICK.__dict__, "failure_settle": 0.2})
    script = Script([status("pending"), status("failure", failReason="SLIPPAGE")])
    statuses = await collect(script, policy)
    assert statuses == ["pending", "failure", "failure"]  # seen, then settled as final
    assert script.calls > 3  # it kept asking while the failure settled


async def test_429_waits_what_the_service_asked(world: Any) -> None:
    """The real service answers 429 with Retry-After: 1; the tracker pauses that long."""
    from crossdeck.api.errors import RateLimitedError

    async with ServiceClient(world.service_url, retry=NO_RETRY) as client:
        quote = await client.quote(
            {
                "user": world.wallet_address,
                "originChainId": 8453,
                "destinationChainId": 999,
                "originCurrency": NATIVE,
                "destinationCurrency": NATIVE,
                "amount": str(ETH // 100),
                "tradeType": "EXACT_INPUT",
            }
        )
        request_id = quote.request_id
        world.faults.inject("429", 2, path="/intents/status")
        errors: list[Exception] = []
        problems: list[Problem] = []

        class Source:
            async def status_v3(self, rid: str) -> StatusV3:
                try:
                    answer = await client.status_v3(rid)
                except RateLimitedError as exc:
                    errors.append(exc)
                    raise
                if answer.status == "waiting":  # nobody pays this quote: end the test here
                    return status("refund")
                return answer

        updates = await follow(tracker_of(Source(), on_problem=problems.append), request_id)
    assert [e.retry_after for e in errors] == [1.0, 1.0]
    assert [p.message for p in problems] == ["rate limited (429): pausing 1 s"] * 2
    assert updates[-1].final


async def test_timeout_names_the_last_status() -> None:
    policy = PollPolicy(**{**QUICK.__dict__, "failure_settle": 0, "timeout": 0.1})
    with pytest.raises(TrackingTimeout, match="last status pending"):
        await follow(tracker_of(Script([status("pending")]), policy))


async def test_404s_are_given_a_few_chances(world: Any) -> None:
    unknown = "0x" + "77" * 32
    async with ServiceClient(world.service_url, retry=NO_RETRY) as client:
        calls = 0

        class Source:
            async def status_v3(self, rid: str) -> StatusV3:
                nonlocal calls
                calls += 1
                return await client.status_v3(rid)

        with pytest.raises(TrackingTimeout, match=r"does not know .* \(404\)"):
            await follow(tracker_of(Source()), unknown)
    assert calls == 5


@pytest.fixture
def slow_status(world: Any) -> Iterator[Any]:
    world.faults.inject("503", 10_000, path="/intents/status")
    yield world
    world.faults.clear()


async def test_run_times_out_while_the_service_is_down(slow_status: Any, make_kit: Any) -> None:
    """Executed fine, but the status endpoint answers 503: tracking gives up with TIMEOUT,
    and the journal keeps the run resumable as 'tracking'."""
    quick = PollPolicy(fast=0.02, first=0.02, active_cap=0.05, idle_cap=0.05, timeout=0.5)
    kit: Kit = make_kit(slow_status, tracking=quick)
    await kit.service.aclose()
    kit.service = ServiceClient(slow_status.service_url, retry=NO_RETRY)
    kit.executor = kit.make_executor()
    try:
        await fund(slow_status, kit.address, native={8453: ETH})
        quote, request = await quote_native(kit, ETH // 10)
        events = await kit.run(quote, request=request)
        last = events[-1]
        assert last.to_json()["event"] == "Failed" and last.exit_code == 10
        assert kit.journal.run(quote.request_id).state == "tracking"
        slow_status.faults.clear()
        again = PollPolicy(fast=0.02, first=0.02, active_cap=0.1, idle_cap=0.1)
        kit.executor = kit.make_executor(tracking=again)
        resumed = await kit.resume(quote.request_id)
        assert finished(resumed).status == "success"
        assert await kit.nonce(8453) == 1
    finally:
        await kit.aclose()


async def _from(updates: asyncio.Queue[int]) -> AsyncIterator[int]:
    while True:
        yield await updates.get()


async def test_a_cancel_landing_as_an_update_arrives_stops_following() -> None:
    # the user's cancel must win: 3.11's wait_for returned the update and dropped the cancel
    updates: asyncio.Queue[int] = asyncio.Queue()

    seen: list[int] = []

    async def follow() -> None:
        async for update in with_deadline(_from(updates), 60):
            seen.append(update)

    following = asyncio.create_task(follow())
    await asyncio.sleep(0.01)  # it waits for the first update
    updates.put_nowait(1)
    following.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(5):
            await following
    assert seen == []


async def test_the_deadline_holds_across_updates() -> None:
    updates: asyncio.Queue[int] = asyncio.Queue()

    async def trickle() -> None:
        for n in range(100):
            updates.put_nowait(n)
            await asyncio.sleep(0.05)

    feeder = asyncio.create_task(trickle())
    seen: list[int] = []
    with pytest.raises(TrackingTimeout, match=r"no final status after 0\.3s"):
        async for update in with_deadline(_from(updates), 0.3):
            seen.append(update)
    feeder.cancel()
    assert 2 <= len(seen) < 20  # updates kept coming, yet the overall deadline ended it


# -- a sent transfer is never abandoned ------------------------------------------------------


def _malformed() -> Exception:
    from crossdeck.api.errors import MalformedResponseError

    return MalformedResponseError("not JSON", status=200, raw_body=b"<html>")


def _server_error(code: int) -> Exception:
    from crossdeck.api.errors import ServiceError

    return ServiceError("bad gateway", status=code)


async def test_malformed_and_5xx_answers_are_waited_out_with_a_growing_wait() -> None:
    script = Script(
        [
            status("pending"),
            *(_malformed(), _server_error(502), _server_error(500), _malformed()),
            status("success"),
        ]
    )
    assert await collect(script) == ["pending", "success"]
    assert script.calls == 6  # every bad answer was waited out, none ended the follow
    # each bad answer in a row doubles the wait (capped)
    policy = PollPolicy(error_base=1.0, error_cap=8.0)
    assert [policy.error_delay(n) for n in range(1, 6)] == [1.0, 2.0, 4.0, 8.0, 8.0]


async def test_a_client_error_still_ends_polling() -> None:
    tracker = tracker_of(Script([status("pending"), _server_error(401)]))
    with pytest.raises(TrackingTimeout, match=r"refuses the status .*bad gateway"):
        await follow(tracker)
    assert list(tracker.given_up()) == [RID]


async def test_a_status_request_that_never_answers_ends_at_the_deadline() -> None:
    class Hang:
        async def status_v3(self, rid: str) -> StatusV3:
            await asyncio.sleep(3600)
            raise AssertionError("unreachable")

    policy = PollPolicy(**{**QUICK.__dict__, "timeout": 0.3})
    with pytest.raises(TrackingTimeout, match="still unanswered"):
        await follow(tracker_of(Hang(), policy))


async def test_the_timeout_names_the_last_bad_answer() -> None:
    policy = PollPolicy(**{**QUICK.__dict__, "failure_settle": 0, "timeout": 0.1})
    script = Script([status("pending"), _malformed()])
    with pytest.raises(TrackingTimeout, match="last status pending; last answer: not JSON"):
        await follow(tracker_of(script, policy))


@pytest.fixture
def cli(world: Any, tmp_path: Any) -> Any:
    from execute_support import Cli

    return Cli(world, tmp_path)


def _native_bridge(*extra: str) -> list[str]:
    return [
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(), "--yes", "--json", *extra,
    ]  # fmt: skip


def _lines(output: str) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


@pytest.mark.parametrize(
    ("referrer", "expected_status", "expected_code"),
    [(None, "success", 0), ("demo:fail", "refund", 8)],
)
@pytest.mark.parametrize("client_retries", ["0", "4"])
def test_one_malformed_status_answer_after_the_deposit_ends_with_the_real_outcome(
    cli: Any, referrer: str | None, expected_status: str, expected_code: int, client_retries: str
) -> None:
    """The first status answer after the deposit is a malformed 200: the bridge still follows
    the request to its real final status and exits with its code. With the client's own retries
    off, the poller waits the bad answer out; with them on, the client asks again itself."""
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    cli.world.faults.inject("malformed", 1, path="/intents/status/v3")
    extra = ("--referrer", referrer) if referrer else ()
    try:
        result = cli.invoke(
            *_native_bridge(*extra),
            CROSSDECK_SERVICE__MAX_RETRIES=client_retries,
            CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS="10",
        )
        assert cli.world.faults.pending() == 0  # the bad answer was really served
    finally:
        cli.world.faults.clear()
    assert result.exit_code == expected_code, result.output
    last = _lines(result.stdout)[-1]
    assert last["event"] == "Finished" and last["status"] == expected_status
    assert "Traceback" not in result.output


def test_a_status_endpoint_that_stays_broken_ends_in_exit_10_naming_watch_and_resume(
    cli: Any,
) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    cli.world.faults.inject("malformed", 10_000, path="/intents/status")
    try:
        result = cli.invoke(*_native_bridge("--timeout", "1"), CROSSDECK_SERVICE__MAX_RETRIES="0")
    finally:
        cli.world.faults.clear()
    assert result.exit_code == 10, result.output
    [failed] = [e for e in _lines(result.stdout) if e["event"] == "Failed"]
    request_id = failed["request_id"]
    assert f"`crossdeck watch {request_id}`" in failed["error"]
    assert f"`crossdeck resume {request_id}`" in failed["error"]
    assert "not JSON" in failed["error"], failed["error"]
    with cli.journal() as journal:
        assert journal.run(request_id).state == "tracking"  # resumable
    # the command it names does follow the request to its end
    watched = cli.invoke("watch", request_id, "--json")
    assert watched.exit_code == 0, watched.output
    assert '"status":"success"' in watched.stdout
