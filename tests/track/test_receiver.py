"""`WebhookReceiver` on 127.0.0.1: deliveries signed in the test with `hmac`, POSTed with httpx."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from track_support import API_KEY, body_of, independent_signature, signed_headers, status_payload

from crossdeck.models.webhook import WebhookEvent
from crossdeck.track.receiver import ReceivedEvent, WebhookReceiver


async def deliver(
    client: httpx.AsyncClient, rx: WebhookReceiver, body: bytes, headers: dict[str, str]
) -> httpx.Response:
    return await client.post(rx.url, content=body, headers=headers)


async def next_event(rx: WebhookReceiver) -> ReceivedEvent:
    return await asyncio.wait_for(rx.next_event(), timeout=5)


async def assert_still_works(client: httpx.AsyncClient, rx: WebhookReceiver, tag: str) -> None:
    """A fresh valid delivery is accepted and is the next event: nothing bad got queued."""
    body = body_of(status_payload(f"0xalive-{tag}", "success"))
    resp = await deliver(client, rx, body, signed_headers(body))
    assert resp.status_code == 200, resp.text
    item = await next_event(rx)
    assert item.event.data is not None
    assert item.event.data.request_id == f"0xalive-{tag}"


async def test_valid_delivery_is_accepted_and_streamed(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    payload = status_payload("0xabc", "pending", updated_at=1_770_000_000_123)
    body = body_of(payload)
    headers = signed_headers(body)
    resp = await deliver(client, receiver, body, headers)
    assert resp.status_code == 200
    assert resp.json() == {"status": "accepted"}

    item = await next_event(receiver)
    assert isinstance(item.event, WebhookEvent)
    assert item.event.to_wire() == payload
    assert item.raw == body
    assert item.signed_at == int(headers["X-Signature-Timestamp"])
    assert item.delivery_key == "request.status.updated|0xabc|pending|1770000000123"
    assert abs(item.received_at - time.time()) < 60
    assert receiver.stats.accepted == 1


def _good() -> tuple[bytes, dict[str, str]]:
    body = body_of(status_payload("0xbad-input"))
    return body, signed_headers(body)


def _without(name: str) -> Callable[[], tuple[bytes, dict[str, str]]]:
    def make() -> tuple[bytes, dict[str, str]]:
        body, headers = _good()
        del headers[name]
        return body, headers

    return make


def _with_signature(change: Callable[[str], str]) -> Callable[[], tuple[bytes, dict[str, str]]]:
    def make() -> tuple[bytes, dict[str, str]]:
        body, headers = _good()
        headers["X-Signature-SHA256"] = change(headers["X-Signature-SHA256"])
        return body, headers

    return make


def _tampered() -> tuple[bytes, dict[str, str]]:
    body, headers = _good()
    return body.replace(b"pending", b"success"), headers


def _wrong_key() -> tuple[bytes, dict[str, str]]:
    body = body_of(status_payload("0xbad-input"))
    return body, signed_headers(body, key="not-the-key")


def _at(offset: int) -> Callable[[], tuple[bytes, dict[str, str]]]:
    def make() -> tuple[bytes, dict[str, str]]:
        body = body_of(status_payload("0xbad-input"))
        return body, signed_headers(body, timestamp=int(time.time()) + offset)

    return make


def _timestamp_text(text: str) -> Callable[[], tuple[bytes, dict[str, str]]]:
    def make() -> tuple[bytes, dict[str, str]]:
        body = body_of(status_payload("0xbad-input"))
        headers = signed_headers(body)
        headers["X-Signature-Timestamp"] = text
        headers["X-Signature-SHA256"] = independent_signature(API_KEY, text, body)
        return body, headers

    return make


def _signed_body(body: bytes) -> Callable[[], tuple[bytes, dict[str, str]]]:
    return lambda: (body, signed_headers(body))


def _deeply_nested() -> bytes:
    return b"[" * 100_000 + b"]" * 100_000


BAD_INPUTS: dict[str, tuple[Callable[[], tuple[bytes, dict[str, str]]], int, str]] = {
    "missing timestamp": (_without("X-Signature-Timestamp"), 401, "missing_timestamp"),
    "missing signature": (_without("X-Signature-SHA256"), 401, "missing_signature"),
    "short signature": (_with_signature(lambda s: s[:-1]), 401, "bad_length"),
    "long signature": (_with_signature(lambda s: s + "0"), 401, "bad_length"),
    "prefixed signature": (_with_signature(lambda s: "sha256=" + s), 401, "bad_length"),
    "upper-case hex": (_with_signature(str.upper), 401, "uppercase_hex"),
    "non-hex signature": (_with_signature(lambda s: "z" + s[1:]), 401, "bad_hex"),
    "one hex digit changed": (
        _with_signature(lambda s: ("1" if s[0] == "0" else "0") + s[1:]),
        401,
        "mismatch",
    ),
    "tampered body": (_tampered, 401, "mismatch"),
    "wrong key": (_wrong_key, 401, "mismatch"),
    "stale timestamp": (_at(-301), 401, "stale"),
    # a minute past the window, not one second: the header's whole second drops up to 1 s of
    # the clock, and the receiver reads the clock later than the sender (an edge of +301
    # passed as within the window once under load); the exact edges are tested in test_hmac_sig
    "future timestamp": (_at(+360), 401, "future"),
    "millisecond timestamp": (_timestamp_text(str(int(time.time() * 1000))), 401, "future"),
    "non-digit timestamp": (_timestamp_text("17e8"), 401, "bad_timestamp"),
    "negative timestamp": (_timestamp_text("-1"), 401, "bad_timestamp"),
    "non-JSON body": (_signed_body(b"not json at all"), 400, "bad_payload"),
    "invalid UTF-8 body": (_signed_body(b'{"event":"\xff"}'), 400, "bad_payload"),
    "empty body": (_signed_body(b""), 400, "bad_payload"),
    "JSON array": (_signed_body(b"[1,2,3]"), 400, "bad_payload"),
    "JSON string": (_signed_body(b'"request.status.updated"'), 400, "bad_payload"),
    "deeply nested JSON": (_signed_body(_deeply_nested()), 400, "bad_payload"),
    "other event name": (
        _signed_body(body_of({**status_payload(), "event": "request.created"})),
        400,
        "bad_payload",
    ),
    "no data": (
        _signed_body(body_of({"event": "request.status.updated", "timestamp": 1})),
        400,
        "bad_payload",
    ),
    "data not an object": (
        _signed_body(body_of({"event": "request.status.updated", "data": [1]})),
        400,
        "bad_payload",
    ),
    "no requestId": (
        _signed_body(body_of(status_payload(requestId=None))),
        400,
        "bad_payload",
    ),
    "updatedAt not a number": (
        _signed_body(body_of(status_payload(updatedAt="yesterday"))),
        400,
        "bad_payload",
    ),
    "txHashes not a list": (
        _signed_body(body_of(status_payload(txHashes="0x1"))),
        400,
        "bad_payload",
    ),
    "huge number": (
        _signed_body(b'{"event":"request.status.updated","timestamp":' + b"9" * 5000 + b"}"),
        400,
        "bad_payload",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS), ids=list(BAD_INPUTS))
async def test_bad_input_is_rejected_and_the_receiver_keeps_working(
    receiver: WebhookReceiver, client: httpx.AsyncClient, case: str
) -> None:
    make, status, reason = BAD_INPUTS[case]
    body, headers = make()
    resp = await deliver(client, receiver, body, headers)
    assert resp.status_code == status, resp.text
    assert resp.json()["error"] == reason
    assert receiver.stats.rejected[reason] == 1
    assert receiver.stats.accepted == 0
    assert API_KEY not in resp.text
    await assert_still_works(client, receiver, case.replace(" ", "-"))


async def test_oversized_body_with_content_length_is_413(
    client: httpx.AsyncClient,
) -> None:
    async with WebhookReceiver(API_KEY, max_body_bytes=1024) as rx:
        body = b'{"pad":"' + b"x" * 2000 + b'"}'
        resp = await deliver(client, rx, body, signed_headers(body))
        assert resp.status_code == 413
        assert resp.json()["error"] == "too_large"
        await assert_still_works(client, rx, "after-413")


async def test_oversized_chunked_body_is_413(client: httpx.AsyncClient) -> None:
    async with WebhookReceiver(API_KEY, max_body_bytes=1024) as rx:
        body = b'{"pad":"' + b"x" * 4000 + b'"}'

        async def chunks() -> AsyncIterator[bytes]:
            for start in range(0, len(body), 500):
                yield body[start : start + 500]

        resp = await client.post(rx.url, content=chunks(), headers=signed_headers(body))
        assert resp.status_code == 413
        assert rx.stats.rejected["too_large"] == 1
        await assert_still_works(client, rx, "after-chunked-413")


async def test_body_at_the_limit_is_accepted(client: httpx.AsyncClient) -> None:
    base = body_of(status_payload("0xlimit", "pending"))
    limit = len(base) + 100
    body = base[:-1] + b" " * 100 + b"}"  # JSON whitespace pads it to exactly the limit
    assert len(body) == limit
    async with WebhookReceiver(API_KEY, max_body_bytes=limit) as rx:
        resp = await deliver(client, rx, body, signed_headers(body))
        assert resp.status_code == 200, resp.text
        assert (await next_event(rx)).raw == body


async def test_replay_gets_2xx_but_is_processed_once(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    body = body_of(status_payload("0xreplayed", "submitted"))
    headers = signed_headers(body)
    first = await deliver(client, receiver, body, headers)
    again = await deliver(client, receiver, body, headers)
    assert (first.status_code, first.json()) == (200, {"status": "accepted"})
    assert (again.status_code, again.json()) == (200, {"status": "duplicate"})
    item = await next_event(receiver)
    assert item.event.data is not None and item.event.data.request_id == "0xreplayed"
    assert receiver.stats.duplicates == 1
    await assert_still_works(client, receiver, "after-replay")


async def test_retry_signed_again_later_is_a_duplicate(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    # The sender signs each retry with a fresh timestamp: a new signature, the same status change.
    body = body_of(status_payload("0xretried", "success"))
    now = int(time.time())
    first = await deliver(client, receiver, body, signed_headers(body, timestamp=now - 20))
    retry = await deliver(client, receiver, body, signed_headers(body, timestamp=now))
    assert first.json() == {"status": "accepted"}
    assert retry.json() == {"status": "duplicate"}
    # Re-encoded JSON (a gateway in between) is still the same status change.
    spaced = json.dumps(status_payload("0xretried", "success"), indent=2).encode()
    third = await deliver(client, receiver, spaced, signed_headers(spaced))
    assert third.json() == {"status": "duplicate"}
    await next_event(receiver)
    await assert_still_works(client, receiver, "after-retry")


async def test_distinct_status_changes_are_all_delivered(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    changes = [
        ("0xr", "waiting", 1),
        ("0xr", "pending", 2),
        ("0xr", "failure", 3),
        ("0xr", "pending", 4),  # failure is not always final
        ("0xr", "refund", 5),
        ("0xother", "waiting", 1),
    ]
    for request_id, status, updated_at in changes:
        body = body_of(status_payload(request_id, status, updated_at=updated_at))
        resp = await deliver(client, receiver, body, signed_headers(body))
        assert resp.json() == {"status": "accepted"}
    got = []
    for _ in changes:
        data = (await next_event(receiver)).event.data
        assert data is not None
        got.append((data.request_id, data.status, data.updated_at))
    assert got == changes


async def test_replay_memory_is_bounded_without_forgetting_the_window(
    client: httpx.AsyncClient,
) -> None:
    # It used to forget the oldest of a fixed count, so a replay of it inside the window was
    # processed again. Now a full memory makes new changes wait (503, the sender retries)
    # and every remembered one is still recognised.
    async with WebhookReceiver(API_KEY, replay_memory=2) as rx:
        bodies = [body_of(status_payload(f"0x{i}", "pending")) for i in range(3)]
        headers = [signed_headers(body) for body in bodies]
        for body, head in zip(bodies[:2], headers[:2], strict=True):
            assert (await deliver(client, rx, body, head)).json() == {"status": "accepted"}
        full = await deliver(client, rx, bodies[2], headers[2])
        assert full.status_code == 503 and full.json()["error"] == "replay_memory_full"
        assert full.headers["Retry-After"] == "1"
        oldest = await deliver(client, rx, bodies[0], headers[0])
        assert oldest.json() == {"status": "duplicate"}
        assert len(rx.replay_window) == 2


async def test_replay_window_forgets_a_change_once_its_timestamp_is_stale(
    client: httpx.AsyncClient,
) -> None:
    async with WebhookReceiver(API_KEY, replay_memory=1, tolerance_seconds=1) as rx:
        old = body_of(status_payload("0xold", "pending"))
        signed = signed_headers(old)
        assert (await deliver(client, rx, old, signed)).json() == {"status": "accepted"}
        await asyncio.sleep(2.1)  # the first delivery's timestamp leaves the 1 s window
        assert (await deliver(client, rx, old, signed)).json()["error"] == "stale"
        new = body_of(status_payload("0xnew", "pending"))
        assert (await deliver(client, rx, new, signed_headers(new))).json() == {
            "status": "accepted"
        }
        assert len(rx.replay_window) == 1


async def test_required_custom_header(client: httpx.AsyncClient) -> None:
    token = "Bearer 0x123-secret"
    async with WebhookReceiver(API_KEY, required_headers={"Authorization": token}) as rx:
        body = body_of(status_payload("0xauth"))
        for headers, status in [
            (signed_headers(body), 401),
            ({**signed_headers(body), "Authorization": "Bearer 0x124-secret"}, 401),
            ({**signed_headers(body), "Authorization": token.lower()}, 401),
            ({**signed_headers(body), "authorization": token}, 200),  # names are case-insensitive
        ]:
            resp = await deliver(client, rx, body, headers)
            assert resp.status_code == status, resp.text
            assert token not in resp.text
        assert rx.stats.rejected["bad_custom_header"] == 3
        assert (await next_event(rx)).event.data is not None


async def test_required_header_given_twice_is_refused(client: httpx.AsyncClient) -> None:
    async with WebhookReceiver(API_KEY, required_headers={"X-Hook-Token": "t"}) as rx:
        body = body_of(status_payload("0xtwice"))
        headers = [*signed_headers(body).items(), ("X-Hook-Token", "t"), ("X-Hook-Token", "t")]
        resp = await client.post(rx.url, content=body, headers=headers)
        assert resp.status_code == 401


async def test_repeated_signature_header_is_refused(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    body = body_of(status_payload("0xrepeat"))
    good = signed_headers(body)
    headers = [*good.items(), ("X-Signature-SHA256", "0" * 64)]
    resp = await client.post(receiver.url, content=body, headers=headers)
    assert resp.status_code == 401
    assert resp.json()["error"] == "repeated_header"
    await assert_still_works(client, receiver, "after-repeat")


async def test_only_post_on_the_configured_path(client: httpx.AsyncClient) -> None:
    async with WebhookReceiver(API_KEY, path="/hooks/relay") as rx:
        assert rx.url.endswith("/hooks/relay")
        body = body_of(status_payload("0xpath"))
        got = await client.get(rx.url)
        assert (got.status_code, got.headers["Allow"]) == (405, "POST")
        assert got.json()["error"] == "method_not_allowed"
        other = rx.url.replace("/hooks/relay", "/webhooks")
        elsewhere = await client.post(other, content=body, headers=signed_headers(body))
        assert (elsewhere.status_code, elsewhere.json()["error"]) == (404, "not_found")
        query = await client.post(rx.url + "?a=1", content=body, headers=signed_headers(body))
        assert query.status_code == 200  # the path is matched, not the query
        assert rx.stats.accepted == 1 and not rx.stats.rejected  # not deliveries: not counted


async def test_full_queue_answers_503_and_the_retry_gets_in(client: httpx.AsyncClient) -> None:
    async with WebhookReceiver(API_KEY, queue_size=1) as rx:
        first = body_of(status_payload("0xq1"))
        second = body_of(status_payload("0xq2"))
        assert (await deliver(client, rx, first, signed_headers(first))).status_code == 200
        full = await deliver(client, rx, second, signed_headers(second))
        assert full.status_code == 503
        assert full.headers["Retry-After"] == "1"
        await next_event(rx)
        # Refused for room, not remembered: the retry is accepted, not taken for a duplicate.
        retry = await deliver(client, rx, second, signed_headers(second))
        assert retry.json() == {"status": "accepted"}
        data = (await next_event(rx)).event.data
        assert data is not None and data.request_id == "0xq2"


async def test_answers_before_the_consumer_processes(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    # Nobody is consuming: every delivery is still answered, and waits in order.
    for i in range(20):
        body = body_of(status_payload(f"0xburst{i}"))
        assert (await deliver(client, receiver, body, signed_headers(body))).status_code == 200
    ids = []
    for _ in range(20):
        data = (await next_event(receiver)).event.data
        assert data is not None
        ids.append(data.request_id)
    assert ids == [f"0xburst{i}" for i in range(20)]


async def test_concurrent_duplicates_are_queued_once(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    body = body_of(status_payload("0xrace", "success"))
    responses = await asyncio.gather(
        *(deliver(client, receiver, body, signed_headers(body)) for _ in range(10))
    )
    assert all(r.status_code == 200 for r in responses)
    assert sorted(r.json()["status"] for r in responses) == ["accepted"] + ["duplicate"] * 9
    await next_event(receiver)
    await assert_still_works(client, receiver, "after-race")


async def test_events_iterator_ends_after_stop(client: httpx.AsyncClient) -> None:
    rx = WebhookReceiver(API_KEY)
    await rx.start()
    body = body_of(status_payload("0xlast"))
    assert (await deliver(client, rx, body, signed_headers(body))).status_code == 200
    await rx.stop()
    seen = [item.event.data.request_id async for item in rx.events() if item.event.data]
    assert seen == ["0xlast"]
    with pytest.raises(EOFError):
        await rx.next_event()
    with pytest.raises(httpx.ConnectError):
        await client.post(rx.url, content=body, headers=signed_headers(body))


async def test_repr_and_stats_never_show_the_key() -> None:
    rx = WebhookReceiver(API_KEY, required_headers={"Authorization": "Bearer hidden"})
    assert API_KEY not in repr(rx) and "hidden" not in repr(rx)
    assert "not started" in repr(rx)
    async with rx:
        assert rx.url in repr(rx)
    assert API_KEY not in repr(rx.stats)


def test_constructor_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="path"):
        WebhookReceiver(API_KEY, path="webhooks")
    with pytest.raises(ValueError, match="empty"):
        WebhookReceiver("")
    with pytest.raises(ValueError, match="positive"):
        WebhookReceiver(API_KEY, max_body_bytes=0)


async def test_rejection_messages_stay_short(
    receiver: WebhookReceiver, client: httpx.AsyncClient
) -> None:
    body = body_of({**status_payload(), "event": "e" * 100_000})
    resp = await deliver(client, receiver, body, signed_headers(body))
    assert resp.status_code == 400
    assert len(resp.json()["message"]) <= 200


@pytest.mark.parametrize(
    "raw",
    [
        b"POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
        b"POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Signature-SHA256: \xff\xfe\r\n"
        b"X-Signature-Timestamp: 1\r\nContent-Length: 2\r\n\r\n{}",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,  # a TLS hello
        b"GARBAGE\r\n\r\n",
    ],
    ids=["bad content-length", "non-ascii header", "tls hello", "garbage"],
)
async def test_malformed_http_never_crashes_the_receiver(
    receiver: WebhookReceiver, client: httpx.AsyncClient, raw: bytes
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", receiver.port)
    writer.write(raw)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(4096), timeout=5)
    writer.close()
    await writer.wait_closed()
    status_line = answer.split(b"\r\n", 1)[0]
    assert status_line == b"" or status_line.split()[1][:1] == b"4", answer[:200]
    assert receiver.stats.accepted == 0
    await assert_still_works(client, receiver, "after-malformed")
