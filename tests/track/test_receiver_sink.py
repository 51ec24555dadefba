"""`WebhookReceiver.deliver_to`: each delivery handed to a function before it is answered."""

from __future__ import annotations

import asyncio

import httpx
from track_support import API_KEY, body_of, signed_headers, status_payload

from crossdeck.track.receiver import ReceivedEvent, WebhookReceiver


async def post(client: httpx.AsyncClient, rx: WebhookReceiver, request_id: str) -> httpx.Response:
    body = body_of(status_payload(request_id, "success"))
    return await client.post(rx.url, content=body, headers=signed_headers(body))


def ids(items: list[ReceivedEvent]) -> list[str | None]:
    return [item.event.data.request_id if item.event.data else None for item in items]


async def test_the_sink_has_each_delivery_when_its_200_comes_back(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    taken: list[ReceivedEvent] = []
    receiver.deliver_to(taken.append)
    for n in range(3):
        resp = await post(client, receiver, f"0xsink{n}")
        assert resp.json() == {"status": "accepted"}
        # no await between the answer and this check: the handler called the sink before it
        assert ids(taken) == [f"0xsink{i}" for i in range(n + 1)]
    # a replay is answered as before and handed over once
    assert (await post(client, receiver, "0xsink0")).json() == {"status": "duplicate"}
    assert len(taken) == 3 and receiver.stats.accepted == 3
    # nothing was queued for events()
    receiver.deliver_to(None)
    assert (await post(client, receiver, "0xqueued")).status_code == 200
    item = await asyncio.wait_for(receiver.next_event(), 5)
    assert ids([item]) == ["0xqueued"] and len(taken) == 3


async def test_what_was_queued_before_goes_to_the_sink_first_in_order(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    for n in range(3):
        assert (await post(client, receiver, f"0xearly{n}")).status_code == 200
    taken: list[ReceivedEvent] = []
    receiver.deliver_to(taken.append)
    assert ids(taken) == ["0xearly0", "0xearly1", "0xearly2"]
    assert (await post(client, receiver, "0xlate")).status_code == 200
    assert ids(taken)[-1] == "0xlate"


async def test_a_sink_that_raises_gets_a_500_and_the_retry_is_taken_again(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    taken: list[ReceivedEvent] = []
    broken = True

    def sink(item: ReceivedEvent) -> None:
        if broken:
            raise RuntimeError("the consumer is broken")
        taken.append(item)

    receiver.deliver_to(sink)
    failed = await post(client, receiver, "0xretry")
    assert failed.status_code == 500
    assert failed.json() == {"error": "internal_error"}
    assert receiver.stats.accepted == 0
    broken = False
    # not remembered as seen: the sender's retry (signed again) is accepted, not a duplicate
    retry = await post(client, receiver, "0xretry")
    assert retry.json() == {"status": "accepted"}
    assert ids(taken) == ["0xretry"]


async def test_a_sink_set_after_stop_ends_nothing_and_events_still_end(
    client: httpx.AsyncClient,
) -> None:
    rx = WebhookReceiver(API_KEY)
    await rx.start()
    assert (await post(client, rx, "0xbefore")).status_code == 200
    await rx.stop()
    taken: list[ReceivedEvent] = []
    rx.deliver_to(taken.append)
    assert ids(taken) == ["0xbefore"]
    assert [item async for item in rx.events()] == []  # the stop mark stayed queued
