"""WebhookSender against real receivers on 127.0.0.1:0 that verify every HMAC themselves."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import pytest

from crossdeck.sim.webhooks import (
    WebhookConfigError,
    WebhookSender,
    build_status_payload,
)
from helpers.waiting import wait_until

from .webhook_support import Receiver

KEY = "demo-api-key-0001"
FAST = {"base_delay": 0.01, "max_delay": 0.05}


def payload(status: str, request_id: str = "0x" + "ab" * 32, **kw) -> dict:
    return build_status_payload(
        request_id=request_id, status=status, origin_chain_id=8453, destination_chain_id=1337, **kw
    )


@pytest.fixture
async def receivers():
    made: list[Receiver] = []

    async def make(decide=None, api_key: str = KEY, port: int = 0) -> Receiver:
        receiver = await Receiver(api_key, decide).start(port)
        made.append(receiver)
        return receiver

    yield make
    for receiver in made:
        await receiver.stop()


async def test_delivery_is_signed_compact_json(receivers) -> None:
    rx = await receivers()
    sent = payload("pending", in_tx_hashes=["0x" + "11" * 32])
    async with WebhookSender({KEY: rx.url}, **FAST) as sender:
        sender.enqueue(KEY, sent)
        await asyncio.wait_for(sender.wait_idle(), 10)
    [arrival] = rx.arrivals
    assert arrival.verified
    assert arrival.path == "/hook"
    assert arrival.body == json.dumps(sent, separators=(",", ":")).encode()
    assert arrival.payload == sent
    assert arrival.headers["Content-Type"] == "application/json"
    stamp = arrival.headers["X-Signature-Timestamp"]
    assert stamp.isdigit() and abs(int(stamp) - time.time()) < 300
    assert arrival.headers["X-Signature-SHA256"] == arrival.headers["X-Signature-SHA256"].lower()
    assert [d.outcome for d in sender.deliveries] == ["delivered"]
    assert sender.deliveries[0].http_status == 200


async def test_retries_with_backoff_until_the_receiver_recovers(receivers) -> None:
    rx = await receivers(lambda r, a: 500 if len(r.arrivals) < 2 else 200)
    async with WebhookSender({KEY: rx.url}, **FAST) as sender:
        sender.enqueue(KEY, payload("success"))
        await asyncio.wait_for(sender.wait_idle(), 10)
    assert [a.answered for a in rx.arrivals] == [500, 500, 200]
    assert all(a.verified for a in rx.arrivals)  # re-signed on every retry
    assert [(d.attempt, d.outcome) for d in sender.deliveries] == [
        (0, "retrying"),
        (1, "retrying"),
        (2, "delivered"),
    ]
    assert [d.http_status for d in sender.deliveries] == [500, 500, 200]
    assert len({a.body for a in rx.arrivals}) == 1  # same body each time


async def test_a_receiver_that_comes_back_on_the_same_port_gets_it(receivers) -> None:
    probe = await receivers()
    port, url = probe.port, probe.url
    await probe.stop()  # the port is now closed: connection refused
    async with WebhookSender({KEY: url}, base_delay=0.02, max_delay=0.1) as sender:
        sender.enqueue(KEY, payload("submitted"))
        await wait_until(lambda: len(sender.deliveries) >= 2, "two deliveries", within=10)
        assert all(d.http_status is None and d.error for d in sender.deliveries)
        back = await receivers(port=port)
        await asyncio.wait_for(sender.wait_idle(), 10)
    assert [a.status for a in back.delivered()] == ["submitted"]
    assert sender.deliveries[-1].outcome == "delivered"
    assert sender.deliveries[0].outcome == "retrying"


async def test_custom_headers_arrive_and_cannot_override_signature(receivers) -> None:
    rx = await receivers()
    headers = {KEY: {"Authorization": "Bearer demo-token", "X-Tenant": "desk-7"}}
    async with WebhookSender({KEY: rx.url}, headers, **FAST) as sender:
        sender.enqueue(KEY, payload("waiting"))
        await asyncio.wait_for(sender.wait_idle(), 10)
        assert "demo-token" not in repr(sender) and KEY not in repr(sender)
        assert KEY not in repr(sender.deliveries)
    [arrival] = rx.arrivals
    assert arrival.headers["Authorization"] == "Bearer demo-token"
    assert arrival.headers["X-Tenant"] == "desk-7"
    with pytest.raises(WebhookConfigError, match="set by the sender"):
        WebhookSender({KEY: rx.url}, {KEY: {"X-Signature-SHA256": "forged"}})


async def test_order_is_kept_per_request_while_others_proceed(receivers) -> None:
    slow_id, fast_id = "0x" + "aa" * 32, "0x" + "bb" * 32

    def decide(r: Receiver, a) -> int:
        # The slow request's first status is refused until the fast request got through: if
        # the fast one were queued behind it, the slow one would exhaust its retries.
        fast_seen = any(x.request_id == fast_id for x in r.arrivals)
        return 200 if a.request_id == fast_id or fast_seen else 503

    rx = await receivers(decide)
    async with WebhookSender({KEY: rx.url}, max_retries=10, base_delay=0.02, max_delay=0.05) as s:
        for status in ("waiting", "pending", "submitted", "success"):
            s.enqueue(KEY, payload(status, slow_id))
        await wait_until(
            lambda: any(d.request_id == slow_id for d in s.deliveries),
            "the slow endpoint's delivery",
            within=10,
        )
        s.enqueue(KEY, payload("pending", fast_id))
        await asyncio.wait_for(s.wait_idle(), 10)
    slow = [a for a in rx.arrivals if a.request_id == slow_id]
    assert [a.status for a in slow if a.answered == 200] == [
        "waiting",
        "pending",
        "submitted",
        "success",
    ]
    # Nothing later was tried before 'waiting' succeeded.
    first_ok = next(i for i, a in enumerate(slow) if a.answered == 200)
    assert {a.status for a in slow[:first_ok]} == {"waiting"}
    assert first_ok >= 1
    assert all(a.verified for a in rx.arrivals)


async def test_gives_up_after_max_retries_then_moves_on(receivers) -> None:
    rx = await receivers(lambda r, a: 500 if a.status == "failure" else 200)
    async with WebhookSender({KEY: rx.url}, max_retries=3, **FAST) as sender:
        sender.enqueue(KEY, payload("failure", fail_reason="SLIPPAGE"))
        sender.enqueue(KEY, payload("refund", fail_reason="SLIPPAGE"))
        await asyncio.wait_for(sender.wait_idle(), 10)
    assert [a.status for a in rx.arrivals] == ["failure"] * 4 + ["refund"]
    assert [d.outcome for d in sender.deliveries] == ["retrying"] * 3 + ["gave_up", "delivered"]
    assert sender.pending() == 0


async def test_default_retry_budget_is_ten(receivers) -> None:
    rx = await receivers(lambda r, a: 502)
    async with WebhookSender({KEY: rx.url}, **FAST) as sender:
        sender.enqueue(KEY, payload("pending"))
        await asyncio.wait_for(sender.wait_idle(), 30)
    assert len(rx.arrivals) == 11  # the first try + 10 retries
    assert sender.deliveries[-1].outcome == "gave_up"


async def test_a_wrong_key_fails_verification_and_is_retried(receivers) -> None:
    rx = await receivers(api_key="the-real-key")
    async with WebhookSender({"another-key": rx.url}, max_retries=1, **FAST) as sender:
        sender.enqueue("another-key", payload("pending"))
        await asyncio.wait_for(sender.wait_idle(), 10)
    assert [a.answered for a in rx.arrivals] == [401, 401]
    assert not any(a.verified for a in rx.arrivals)


async def test_timeout_counts_as_a_failed_attempt(receivers) -> None:
    release = asyncio.Event()
    calls = itertools.count()

    async def stall_first(r: Receiver, a) -> int:
        if next(calls) == 0:
            await release.wait()  # the first request never gets its answer in time
        return 200

    rx = await receivers(stall_first)
    async with WebhookSender({KEY: rx.url}, timeout=0.3, **FAST) as s:
        s.enqueue(KEY, payload("pending"))
        await asyncio.wait_for(s.wait_idle(), 10)
        release.set()
    assert [d.outcome for d in s.deliveries] == ["retrying", "delivered"]
    assert "Timeout" in (s.deliveries[0].error or "")
    # The stalled first request may still be answered late; what counts is the sender's view.
    assert rx.delivered() and {a.status for a in rx.arrivals} == {"pending"}


async def test_queued_before_start_is_sent_after_start(receivers) -> None:
    rx = await receivers()
    sender = WebhookSender({KEY: rx.url}, **FAST)
    sender.enqueue(KEY, payload("waiting"))
    assert sender.pending() == 1 and rx.arrivals == []
    await sender.start()
    await asyncio.wait_for(sender.wait_idle(), 10)
    await sender.stop()
    assert [a.status for a in rx.delivered()] == ["waiting"]
    with pytest.raises(RuntimeError, match="stopped"):
        sender.enqueue(KEY, payload("pending"))


async def test_stop_without_drain_cancels_cleanly(receivers) -> None:
    rx = await receivers(lambda r, a: 500)
    sender = WebhookSender({KEY: rx.url}, base_delay=5, max_delay=5)
    await sender.start()
    sender.enqueue(KEY, payload("pending"))
    await wait_until(lambda: len(sender.deliveries) == 1, "one delivery", within=10)
    await asyncio.wait_for(sender.stop(drain=False), 5)
    assert sender.pending() == 1  # left unsent, not lost silently
    assert len(rx.arrivals) == 1


async def test_stop_drains_by_default(receivers) -> None:
    rx = await receivers()
    sender = WebhookSender({KEY: rx.url}, **FAST)
    await sender.start()
    for status in ("waiting", "pending", "submitted"):
        sender.enqueue(KEY, payload(status))
    await sender.stop()
    assert [a.status for a in rx.delivered()] == ["waiting", "pending", "submitted"]


async def test_unknown_key_is_logged_as_no_endpoint_until_configured(receivers) -> None:
    rx = await receivers()
    async with WebhookSender({}, **FAST) as sender:
        sender.enqueue(KEY, payload("waiting"))
        await asyncio.wait_for(sender.wait_idle(), 10)
        assert [d.outcome for d in sender.deliveries] == ["no_endpoint"]
        sender.set_endpoint(KEY, rx.url, {"Authorization": "Bearer t"})
        sender.enqueue(KEY, payload("pending"))
        await asyncio.wait_for(sender.wait_idle(), 10)
    assert [a.status for a in rx.delivered()] == ["pending"]
    assert rx.arrivals[0].headers["Authorization"] == "Bearer t"


async def test_each_key_signs_with_its_own_secret(receivers) -> None:
    rx_a = await receivers(api_key="key-a")
    rx_b = await receivers(api_key="key-b")
    async with WebhookSender({"key-a": rx_a.url, "key-b": rx_b.url}, **FAST) as sender:
        sender.enqueue("key-a", payload("pending"))
        sender.enqueue("key-b", payload("pending"))  # same request id, different key
        await asyncio.wait_for(sender.wait_idle(), 10)
    assert [a.verified for a in rx_a.arrivals + rx_b.arrivals] == [True, True]


def test_enqueue_refuses_what_is_not_a_status_payload() -> None:
    sender = WebhookSender({KEY: "http://127.0.0.1:9/hook"})
    with pytest.raises(ValueError, match="requestId"):
        sender.enqueue(KEY, {"event": "request.status.updated", "data": {}})
    with pytest.raises(TypeError):
        sender.enqueue(KEY, {"data": {"requestId": "0x1", "status": "pending", "x": object()}})
    assert sender.pending() == 0
