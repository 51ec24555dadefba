"""The demo world's own `WebhookSender` (written separately from the spec) against our receiver."""

from __future__ import annotations

import asyncio

from track_support import API_KEY

from crossdeck.sim.webhooks import WebhookSender, build_status_payload
from crossdeck.track.receiver import WebhookReceiver


def payload(status: str, updated_at: int, **extra: object) -> dict:
    return build_status_payload(
        request_id="0xsim-request",
        status=status,
        origin_chain_id=8453,
        destination_chain_id=1337,
        in_tx_hashes=["0x" + "12" * 32],
        tx_hashes=["0x" + "34" * 32] if status == "success" else [],
        updated_at_ms=updated_at,
        **extra,
    )


async def test_sender_deliveries_verify_and_arrive_in_order() -> None:
    token = "Bearer sim-token"
    async with WebhookReceiver(API_KEY, required_headers={"Authorization": token}) as rx:
        sender = WebhookSender(
            {API_KEY: rx.url}, {API_KEY: {"Authorization": token}}, max_retries=0
        )
        statuses = ["waiting", "pending", "submitted", "success"]
        async with sender:
            for n, status in enumerate(statuses):
                sender.enqueue(API_KEY, payload(status, 1_000 + n))
            await asyncio.wait_for(sender.wait_idle(), timeout=10)
        assert [d.outcome for d in sender.deliveries] == ["delivered"] * 4
        got = []
        for _ in statuses:
            item = await asyncio.wait_for(rx.next_event(), timeout=5)
            assert item.event.data is not None
            got.append(item.event.data.status)
        assert got == statuses
        assert rx.stats.accepted == 4
        assert not rx.stats.rejected


async def test_failure_payload_with_deposit_address_and_referrer_parses() -> None:
    async with WebhookReceiver(API_KEY) as rx:
        sender = WebhookSender({API_KEY: rx.url}, max_retries=0)
        async with sender:
            sender.enqueue(
                API_KEY,
                payload(
                    "refund",
                    7,
                    fail_reason="DOUBLE_SPEND",
                    deposit_address={"address": "0xdead", "depositAddressType": "strict"},
                    details={"revert": "0x08c379a0"},
                    referrer="crossdeck",
                ),
            )
            await asyncio.wait_for(sender.wait_idle(), timeout=10)
        data = (await asyncio.wait_for(rx.next_event(), timeout=5)).event.data
        assert data is not None
        assert (data.status, data.fail_reason, data.referrer) == (
            "refund",
            "DOUBLE_SPEND",
            "crossdeck",
        )
        assert data.deposit_address is not None
        assert data.details == {"revert": "0x08c379a0"}


async def test_resent_status_change_is_answered_2xx_and_processed_once() -> None:
    async with WebhookReceiver(API_KEY) as rx:
        sender = WebhookSender({API_KEY: rx.url}, max_retries=0)
        async with sender:
            same = payload("success", 42)
            sender.enqueue(API_KEY, same)
            sender.enqueue(API_KEY, same)  # the service delivering the same change again
            sender.enqueue(API_KEY, payload("refund", 43))
            await asyncio.wait_for(sender.wait_idle(), timeout=10)
        assert [d.outcome for d in sender.deliveries] == ["delivered"] * 3
        first = await asyncio.wait_for(rx.next_event(), timeout=5)
        second = await asyncio.wait_for(rx.next_event(), timeout=5)
        assert first.event.data is not None and second.event.data is not None
        assert (first.event.data.status, second.event.data.status) == ("success", "refund")
        assert rx.stats.duplicates == 1


async def test_retry_after_503_is_re_signed_and_accepted() -> None:
    # A receiver whose consumer is behind answers 503; the sender retries (signing again with a
    # fresh timestamp) and the retry verifies once there is room.
    async with WebhookReceiver(API_KEY, queue_size=1) as rx:
        sender = WebhookSender({API_KEY: rx.url}, max_retries=5, base_delay=0.05, max_delay=0.2)
        async with sender:
            sender.enqueue(API_KEY, payload("pending", 1))
            sender.enqueue(API_KEY, payload("success", 2))
            # Nothing is consumed yet, so the second delivery must bounce before we read.
            for _ in range(1000):
                if any(d.http_status == 503 for d in sender.deliveries):
                    break
                await asyncio.sleep(0.01)
            first = await asyncio.wait_for(rx.next_event(), timeout=10)
            second = await asyncio.wait_for(rx.next_event(), timeout=10)
            await asyncio.wait_for(sender.wait_idle(), timeout=10)
        assert first.event.data is not None and second.event.data is not None
        assert (first.event.data.status, second.event.data.status) == ("pending", "success")
        outcomes = [(d.status, d.http_status, d.outcome) for d in sender.deliveries]
        assert outcomes[0] == ("pending", 200, "delivered")
        assert ("success", 503, "retrying") in outcomes
        assert outcomes[-1] == ("success", 200, "delivered")
        assert rx.stats.accepted == 2
        assert rx.stats.duplicates == 0
        assert set(rx.stats.rejected) == {"queue_full"}
