"""`StatusTracker` against the demo world: real service, real webhooks, real HTTP."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path

import httpx

from crossdeck.models.status import RequestStatus
from crossdeck.sim.world import World
from crossdeck.track.policy import PollPolicy
from crossdeck.track.receiver import WebhookReceiver
from crossdeck.track.store import StatusStore
from crossdeck.track.tracker import Problem, StatusUpdate
from crossdeck.track.updates import Source
from helpers.webhook_signing import independent_signature

from .support import (
    FAST,
    CountingTransport,
    GatedTransport,
    RequestMaker,
    advance,
    collect,
    drive_to_success,
    real_quote,
    request_id_of,
    running,
    send_deposit,
    statuses,
    tracker_for,
    tx,
    wait_status,
    wait_until,
    webhooks_to_receiver,
)


async def test_polling_follows_a_request_to_success_then_stops(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = no_webhooks
    (rid,) = maker.make(1)
    async with running(tracker_for(world, transport)) as tracker:
        stream = tracker.stream(rid)
        seen: list[StatusUpdate] = []
        reader = asyncio.create_task(collect(stream, seen))
        await wait_status(tracker, rid, "waiting")
        advance(world, rid, "pending", in_tx=tx(8453))
        await wait_status(tracker, rid, "pending")
        await asyncio.sleep(0.5)  # nothing changes: polls go on, and announce nothing
        assert tracker.stats.duplicates + tracker.stats.unchanged > 0
        advance(world, rid, "submitted", out_tx=tx(999))
        await wait_status(tracker, rid, "submitted")
        advance(world, rid, "success")
        await asyncio.wait_for(reader, 10)  # the stream ends after the final update

        assert statuses(seen) == ["waiting", "pending", "submitted", "success"]
        assert {u.source for u in seen} == {Source.POLL}
        assert [u.final for u in seen] == [False, False, False, True]
        stamps = [u.updated_at_ms for u in seen]
        assert stamps == sorted(stamps)
        assert seen[-1].tx_hashes and seen[-1].in_tx_hashes
        polls_at_final = len(transport.status_polls(rid))
        await asyncio.sleep(0.6)  # several fast intervals: a final request is never polled
        assert len(transport.status_polls(rid)) == polls_at_final
        assert tracker.is_final(rid)
        assert tracker.unfinished() == []


async def test_a_real_deposit_is_seen_to_success_by_webhook_and_by_poll(
    status_world: World, transport: CountingTransport
) -> None:
    """One request, a real on-chain deposit filled by the world's solver; a tracker fed by
    webhooks and a tracker polling on its own see the same final status."""
    world = status_world
    other_transport = CountingTransport()
    # the webhook-fed tracker polls once at the start, then not for 5 s: the solver's stages
    # reach it by webhook
    rare = PollPolicy(fast=5.0, active_cap=5.0, idle_cap=5.0, webhook_quiet=5.0)
    async with (
        webhooks_to_receiver(world) as receiver,
        running(tracker_for(world, transport, policy=rare)) as hooked,
        running(tracker_for(world, other_transport)) as polling,
    ):
        hooked.attach(receiver)
        quote = real_quote(world)
        rid = request_id_of(quote)
        hooked_stream, polled_stream = hooked.stream(rid), polling.stream(rid)
        await send_deposit(world, quote)
        hooked_seen: list[StatusUpdate] = []
        polled_seen: list[StatusUpdate] = []
        await asyncio.wait_for(
            asyncio.gather(
                collect(hooked_stream, hooked_seen), collect(polled_stream, polled_seen)
            ),
            60,
        )
    await other_transport.aclose()
    last_hooked, last_polled = hooked_seen[-1], polled_seen[-1]
    assert last_hooked.status is RequestStatus.SUCCESS and last_hooked.final
    assert last_polled.status is RequestStatus.SUCCESS and last_polled.final
    assert last_hooked.source is Source.WEBHOOK
    assert last_polled.source is Source.POLL
    # the same change, whichever way it came
    assert last_hooked.updated_at_ms == last_polled.updated_at_ms
    assert last_hooked.tx_hashes == last_polled.tx_hashes != ()
    assert last_hooked.in_tx_hashes == last_polled.in_tx_hashes != ()
    # the solver's stages arrived by webhook, in order
    assert [(str(u.status), u.source.value) for u in hooked_seen] == [
        ("waiting", "poll"),
        ("pending", "webhook"),
        ("submitted", "webhook"),
        ("success", "webhook"),
    ]
    assert hooked.stats.webhooks == 3
    assert len(transport.status_polls(rid)) == 1


async def test_an_older_poll_answer_arriving_after_a_webhook_is_dropped(
    status_world: World, maker: RequestMaker
) -> None:
    world = status_world
    gated = GatedTransport()
    (rid,) = maker.make(1)
    async with (
        webhooks_to_receiver(world) as receiver,
        running(tracker_for(world, gated)) as tracker,
    ):
        tracker.attach(receiver)
        seen: list[StatusUpdate] = []
        reader = asyncio.create_task(collect(tracker.stream(rid), seen))
        # the first poll's answer ('waiting') is in, but held back
        await wait_until(lambda: gated.held == 1, "the first poll's answer")
        advance(world, rid, "pending", in_tx=tx(8453))
        advance(world, rid, "submitted", out_tx=tx(999))
        await wait_status(tracker, rid, "submitted")
        gated.gate.set()
        await wait_until(lambda: tracker.stats.stale >= 1, "the held answer to be dropped")
        advance(world, rid, "success")
        await asyncio.wait_for(reader, 10)
    await gated.aclose()
    assert statuses(seen) == ["pending", "submitted", "success"]
    assert [u.source for u in seen] == [Source.WEBHOOK] * 3
    assert tracker.stats.stale == 1


async def test_a_webhook_delivered_twice_is_announced_once(
    status_world: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    from crossdeck.track.payload import parse_event
    from crossdeck.track.updates import Verdict

    world = status_world
    (rid,) = maker.make(1)
    payload = World.status_payload(advance(world, rid, "pending", in_tx=tx(8453)))
    event = parse_event(json.dumps(payload).encode())
    async with running(tracker_for(world, transport)) as tracker:
        tracker.track(rid)
        updates = tracker.updates()
        assert tracker.feed_webhook(event) is Verdict.NEWER
        assert tracker.feed_webhook(event) is Verdict.DUPLICATE
        first = await asyncio.wait_for(updates.__anext__(), 5)
        assert (first.status, first.source) == (RequestStatus.PENDING, Source.WEBHOOK)
        assert tracker.stats.emitted == 1 and tracker.stats.duplicates == 1
        advance(world, rid, "submitted", out_tx=tx(999))
        advance(world, rid, "success")
        await asyncio.wait_for(tracker.wait_done(), 10)


async def test_polls_pause_while_webhooks_flow_and_resume_when_they_stop(
    status_world: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = status_world
    (rid,) = maker.make(1)
    async with (
        webhooks_to_receiver(world) as receiver,
        running(tracker_for(world, transport)) as tracker,
    ):
        tracker.attach(receiver)
        tracker.track(rid)
        await wait_status(tracker, rid, "waiting")
        advance(world, rid, "pending", in_tx=tx(8453))
        await wait_until(lambda: tracker.stats.webhooks >= 1, "the first webhook")
        await asyncio.sleep(0.3)  # a poll sent just before the webhook has its answer by now
        flow_started = len(transport.status_polls(rid))
        # webhooks every 0.2 s for 2.4 s: failure and pending alternate, as a request can
        for _ in range(6):
            advance(world, rid, "failure", fail_reason="SLIPPAGE")
            await asyncio.sleep(0.1)
            advance(world, rid, "pending")
            await asyncio.sleep(0.1)
        await wait_until(lambda: tracker.stats.webhooks >= 13, "all 13 webhooks")
        polls_during_flow = len(transport.status_polls(rid)) - flow_started

        # webhooks stop: the endpoint goes away, and the request moves on unannounced
        async def unset() -> None:
            assert world.webhook_sender is not None
            world.webhook_sender.remove_endpoint(world.api_key)

        world.call(unset)
        advance(world, rid, "submitted", out_tx=tx(999))
        await wait_status(tracker, rid, "submitted")
        advance(world, rid, "success")
        await asyncio.wait_for(tracker.wait_done(), 10)

    assert polls_during_flow == 0
    latest = tracker.latest(rid)
    assert latest is not None and latest.source is Source.POLL and latest.final
    assert len(transport.status_polls(rid)) > flow_started


async def test_failure_settles_as_final_unless_a_refund_follows(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    world = no_webhooks
    settling, refunded = maker.make(2)
    policy = PollPolicy(**{**FAST.__dict__, "failure_settle": 0.5})
    async with running(tracker_for(world, transport, policy=policy)) as tracker:
        seen: list[StatusUpdate] = []
        reader = asyncio.create_task(collect(tracker.updates(until_done=True), seen))
        tracker.track_many([settling, refunded])
        for rid in (settling, refunded):
            advance(world, rid, "pending", in_tx=tx(8453))
            advance(world, rid, "failure", fail_reason="SLIPPAGE")
            await wait_status(tracker, rid, "failure")
        assert not tracker.is_final(refunded)
        advance(world, refunded, "pending")
        await wait_status(tracker, refunded, "pending")
        advance(world, refunded, "refund", refund_fail_reason="N/A")
        await asyncio.wait_for(reader, 10)

    def of(rid: str) -> list[tuple[str, str, bool]]:
        return [(str(u.status), u.source.value, u.final) for u in seen if u.request_id == rid]

    assert of(settling)[-2:] == [("failure", "poll", False), ("failure", "settle", True)]
    assert of(refunded)[-3:] == [
        ("failure", "poll", False),
        ("pending", "poll", False),
        ("refund", "poll", True),
    ]
    settled = tracker.latest(settling)
    assert settled is not None and settled.fail_reason == "SLIPPAGE"


async def test_unknown_request_id_is_given_up_after_repeated_404s(
    status_world: World, transport: CountingTransport
) -> None:
    problems: list[Problem] = []
    policy = PollPolicy(**{**FAST.__dict__, "not_found_limit": 3})
    rid = "0x" + "42" * 32
    async with running(
        tracker_for(status_world, transport, policy=policy, on_problem=problems.append)
    ) as tracker:
        tracker.track(rid)
        await asyncio.wait_for(tracker.wait_done(), 10)
    assert tracker.given_up() == {rid: f"the service does not know {rid} (404)"}
    assert [p.given_up for p in problems if p.request_id == rid][-1] is True
    assert [s.status for s in transport.status_polls(rid)] == [404, 404, 404]


async def test_restart_resumes_unfinished_requests_from_the_store(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport, tmp_path: Path
) -> None:
    world = no_webhooks
    done, moving, idle = maker.make(3)
    path = tmp_path / "tracking.sqlite3"
    with StatusStore(path) as store:
        async with running(tracker_for(world, transport, store=store)) as first:
            first.track_many([done, moving, idle])
            drive_to_success(world, done)
            for rid in (moving, idle):
                advance(world, rid, "pending", in_tx=tx(8453))
            await wait_status(first, done, "success")
            await wait_status(first, moving, "pending")
            await wait_status(first, idle, "pending")
    # nobody watches while `moving` moves on
    advance(world, moving, "submitted", out_tx=tx(999))

    second_transport = CountingTransport()
    with StatusStore(path) as store:
        assert {s.request_id for s in store.unfinished()} == {moving, idle}
        async with running(tracker_for(world, second_transport, store=store)) as second:
            seen: list[StatusUpdate] = []
            reader = asyncio.create_task(collect(second.updates(until_done=True), seen))
            restored = second.resume()
            assert sorted(str(u.status) for u in restored if u) == ["pending", "pending"]
            await wait_status(second, moving, "submitted")
            await wait_until(lambda: second.polls_of(idle) >= 2, "idle to be polled again")
            advance(world, idle, "submitted", out_tx=tx(999))
            advance(world, idle, "success")
            advance(world, moving, "success")
            await asyncio.wait_for(reader, 10)
        assert store.unfinished() == []
        stored_done = store.get(done)
        assert stored_done is not None and stored_done.final
    await second_transport.aclose()
    # the finished request was not polled after the restart; the last-known 'pending' of
    # `idle` made its first polls duplicates, not news
    assert second_transport.status_polls(done) == []
    idle_seen = [str(u.status) for u in seen if u.request_id == idle]
    assert "pending" not in idle_seen and idle_seen[-1] == "success"
    assert [str(u.status) for u in seen if u.request_id == moving] == ["submitted", "success"]
    assert second.stats.duplicates + second.stats.unchanged >= 1


async def test_untrack_stops_polling_and_forgets_the_request(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    kept, dropped = maker.make(2)
    with StatusStore(":memory:") as store:
        async with running(tracker_for(no_webhooks, transport, store=store)) as tracker:
            tracker.track_many([kept, dropped])
            await wait_status(tracker, dropped, "waiting")
            tracker.untrack(dropped)
            polls_then = len(transport.status_polls(dropped))
            await wait_until(lambda: tracker.polls_of(kept) >= 4, "more polls of the kept one")
            assert len(transport.status_polls(dropped)) <= polls_then + 1  # one was in flight
            assert tracker.tracked() == [kept] and tracker.latest(dropped) is None
            assert store.get(dropped) is None
            drive_to_success(no_webhooks, kept)
            await asyncio.wait_for(tracker.wait_done(), 10)


async def test_run_returns_once_closed_and_streams_end(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    (rid,) = maker.make(1)
    tracker = tracker_for(no_webhooks, transport)
    tracker.track(rid)
    updates = tracker.updates()
    runner = asyncio.create_task(tracker.run())
    await wait_status(tracker, rid, "waiting")
    await tracker.aclose()
    await asyncio.wait_for(runner, 5)
    assert [str(u.status) async for u in updates] == ["waiting"]
    assert [u async for u in tracker.updates()] == []  # made after closing: ends at once
    polls = len(transport.status_polls(rid))
    await asyncio.sleep(0.3)
    assert len(transport.status_polls(rid)) == polls
    await tracker.service.aclose()  # type: ignore[attr-defined]


async def test_closing_in_the_tick_a_new_request_wakes_the_scheduler_still_stops_it(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport
) -> None:
    # Python 3.11's wait_for returns instead of raising when the awaited event is set in the
    # same tick as the cancel: the scheduler went on polling and aclose() waited for it forever
    # (a restart test hung CI that way).
    polled, woken_by = maker.make(2)
    async with running(tracker_for(no_webhooks, transport, policy=PollPolicy())) as tracker:
        tracker.track(polled)
        await wait_until(lambda: tracker.polls_of(polled) >= 1, "a first poll")
        await asyncio.sleep(0.1)  # the next poll is a second away: the scheduler waits for it
        tracker.track(woken_by)
        async with asyncio.timeout(5):
            await tracker.aclose()
        polls_at_close = tracker.stats.polls
        await asyncio.sleep(1.5)
        assert tracker.stats.polls == polls_at_close


async def test_an_attached_receiver_hands_the_tracker_each_delivery_before_its_200(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport, tmp_path: Path
) -> None:
    """The tracker has a delivery when its 200 comes back; the store writes it a moment later,
    and a crash in between loses that update only: the id is in the file, unfinished, and the
    resumed tracker polls the status back."""

    world = no_webhooks
    (rid,) = maker.make(1)
    advance(world, rid, "pending", in_tx=tx(8453))
    advance(world, rid, "submitted", out_tx=tx(999))
    body = json.dumps(World.status_payload(advance(world, rid, "success"))).encode()
    ts = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Signature-Timestamp": ts,
        "X-Signature-SHA256": independent_signature(world.api_key, ts, body),
    }
    path = tmp_path / "tracking.sqlite3"
    rare = PollPolicy(fast=30.0, active_cap=30.0, idle_cap=30.0)  # no poll in this test's time
    with StatusStore(path) as store:
        async with WebhookReceiver(world.api_key) as receiver, httpx.AsyncClient() as http:
            async with running(tracker_for(world, transport, store=store, policy=rare)) as tracker:
                tracker.track(rid, poll_now=False)
                tracker.attach(receiver)
                resp = await http.post(receiver.url, content=body, headers=headers)
                assert resp.json() == {"status": "accepted"}
                latest = tracker.latest(rid)  # nothing awaited since the answer
                assert latest is not None and latest.final and latest.source is Source.WEBHOOK

                # the process dies now: what another process finds in the file
                with StatusStore(path) as after_crash:
                    (left,) = after_crash.unfinished()
                    assert (left.request_id, left.latest) == (rid, None)
                    second_transport = CountingTransport()
                    async with running(
                        tracker_for(world, second_transport, store=after_crash)
                    ) as resumed:
                        assert resumed.resume() == [None]
                        await asyncio.wait_for(resumed.wait_done(), 10)
                        polled = resumed.latest(rid)
                    await second_transport.aclose()
                assert polled is not None and polled.source is Source.POLL
                assert polled.status is RequestStatus.SUCCESS and polled.final
                assert polled.updated_at_ms == latest.updated_at_ms

                # the first tracker's write comes a moment after the answer, by itself
                def written() -> bool:
                    with sqlite3.connect(path) as db:
                        row = db.execute(
                            "SELECT final FROM tracked WHERE request_id = ?", (rid,)
                        ).fetchone()
                    return row == (1,)

                await wait_until(written, "the update to be in the file")
                assert transport.status_polls(rid) == []

            # closed, the tracker let go of the receiver: the next delivery is queued
            again = body.replace(b'"success"', b'"refund"')
            headers["X-Signature-SHA256"] = independent_signature(world.api_key, ts, again)
            assert (await http.post(receiver.url, content=again, headers=headers)).is_success
            queued = await asyncio.wait_for(receiver.next_event(), 5)
            assert queued.event.data is not None and queued.event.data.status == "refund"
            assert tracker.latest(rid) == latest


async def test_a_burst_of_updates_is_written_at_once_in_bounded_batches(
    no_webhooks: World, maker: RequestMaker, transport: CountingTransport, tmp_path: Path
) -> None:
    """The store's write waits for the flush delay, unless STORE_FLUSH_ROWS updates wait: then
    they are written on the next turn of the loop, so no write holds the loop up for long; what
    waits is written when the tracker closes."""
    from crossdeck.sim.webhooks import build_status_payload
    from crossdeck.track.payload import parse_event
    from crossdeck.track.tracker import STORE_FLUSH_ROWS

    ids = maker.make(STORE_FLUSH_ROWS + 1)
    events = [
        parse_event(
            json.dumps(
                build_status_payload(
                    request_id=rid,
                    status="pending",
                    origin_chain_id=8453,
                    destination_chain_id=999,
                    in_tx_hashes=[tx(8453).hash],
                    tx_hashes=[],
                    updated_at_ms=1_770_000_000_000,
                )
            ).encode()
        )
        for rid in ids
    ]
    path = tmp_path / "tracking.sqlite3"

    def written() -> int:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT count(*) FROM tracked WHERE latest IS NOT NULL").fetchone()[0]

    rare = PollPolicy(fast=30.0, active_cap=30.0, idle_cap=30.0)
    with StatusStore(path) as store:
        async with running(
            tracker_for(no_webhooks, transport, store=store, policy=rare, store_flush_seconds=60)
        ) as t:
            for rid in ids:
                t.track(rid, poll_now=False)
            for event in events[: STORE_FLUSH_ROWS - 1]:
                t.feed_webhook(event)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert written() == 0  # a few waiting: they wait for the delay
            t.feed_webhook(events[STORE_FLUSH_ROWS - 1])
            await asyncio.sleep(0)
            assert written() == STORE_FLUSH_ROWS  # enough waiting: written at the next turn
            t.feed_webhook(events[-1])
            await asyncio.sleep(0)
            assert written() == STORE_FLUSH_ROWS
        assert written() == len(ids)
