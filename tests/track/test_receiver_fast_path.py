"""The receiver's fast path (`crossdeck.track.receiver_fast`) answers as aiohttp's path does.

A delivery whose head and body arrive in one read is answered where its bytes are parsed; one
whose body comes later, or that is pipelined behind another, goes through aiohttp's request
loop. Over raw sockets, so that each test chooses how the bytes arrive.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from track_support import body_of, signed_headers, status_payload

from crossdeck.track.receiver import ReceivedEvent, WebhookReceiver
from crossdeck.track.receiver_fast import FastDeliveryHandler
from helpers.waiting import wait_until


def _request(rx: WebhookReceiver, body: bytes, headers: dict[str, str]) -> tuple[bytes, bytes]:
    lines = [f"POST {rx.path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode(), body


def _delivery(rx: WebhookReceiver, request_id: str, status: str = "pending") -> bytes:
    body = body_of(status_payload(request_id, status))
    head, body = _request(rx, body, signed_headers(body))
    return head + body


async def _answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], Any]:
    async with asyncio.timeout(10):
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")[:-2]
        headers = dict(line.split(": ", 1) for line in header_lines)
        body = await reader.readexactly(int(headers["Content-Length"]))
    return int(status_line.split()[1]), headers, json.loads(body)


async def _request_in_progress(rx: WebhookReceiver) -> None:
    """Until aiohttp's request loop is handling a request (waiting for its body)."""
    assert rx._runner is not None and rx._runner.server is not None
    connections = rx._runner.server.connections
    await wait_until(
        lambda: any(handler._request_in_progress for handler in connections),
        "aiohttp's request loop handling the request",
    )


@pytest.fixture
def fast_answers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The statuses the fast path answered, in order."""
    answered: list[int] = []
    answer = FastDeliveryHandler._answer

    def noted(self: FastDeliveryHandler, reply: Any) -> None:
        answered.append(reply.status)
        answer(self, reply)

    monkeypatch.setattr(FastDeliveryHandler, "_answer", noted)
    return answered


async def test_whole_and_split_deliveries_get_the_same_answers(
    receiver: WebhookReceiver, fast_answers: list[int]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", receiver.port)
    try:
        writer.write(_delivery(receiver, "0xfast"))
        fast = await _answer(reader)
        # the same connection, kept alive: head first, the body once the head was read
        body = body_of(status_payload("0xsplit"))
        head, body = _request(receiver, body, signed_headers(body))
        writer.write(head)
        await _request_in_progress(receiver)  # the body is not there yet
        writer.write(body)
        split = await _answer(reader)
        writer.write(_delivery(receiver, "0xfast"))  # a duplicate, on the fast path again
        again = await _answer(reader)
    finally:
        writer.close()
    assert (fast[0], fast[2]) == (200, {"status": "accepted"})
    assert (split[0], split[2]) == (200, {"status": "accepted"})
    assert (again[0], again[2]) == (200, {"status": "duplicate"})
    assert fast[1]["Content-Type"].startswith("application/json") and "Date" in fast[1]
    assert fast_answers == [200, 200]  # the split one went through aiohttp's loop
    assert receiver.stats.accepted == 2 and receiver.stats.duplicates == 1
    got = [(await receiver.next_event()).event.data for _ in range(2)]
    assert [d.request_id for d in got if d is not None] == ["0xfast", "0xsplit"]


async def test_pipelined_deliveries_are_answered_in_order(
    receiver: WebhookReceiver, fast_answers: list[int]
) -> None:
    bad = body_of(status_payload("0xbad"))
    bad_head, _ = _request(receiver, bad, {**signed_headers(bad), "X-Signature-SHA256": "0" * 64})
    reader, writer = await asyncio.open_connection("127.0.0.1", receiver.port)
    try:
        writer.write(_delivery(receiver, "0xone") + bad_head + bad + _delivery(receiver, "0xtwo"))
        answers = [await _answer(reader) for _ in range(3)]
    finally:
        writer.close()
    assert [(status, body) for status, _, body in answers] == [
        (200, {"status": "accepted"}),
        (401, {"error": "mismatch", "message": answers[1][2].get("message", "")}),
        (200, {"status": "accepted"}),
    ]
    assert fast_answers == []  # three requests in one read: aiohttp's loop took them all
    assert receiver.stats.accepted == 2 and receiver.stats.rejected["mismatch"] == 1


async def test_refusals_on_the_fast_path_keep_the_connection(
    receiver: WebhookReceiver, fast_answers: list[int]
) -> None:
    body = body_of(status_payload("0xkept"))
    head, _ = _request(receiver, body, {**signed_headers(body), "X-Signature-SHA256": "0" * 64})
    failing: list[ReceivedEvent] = []

    def sink(item: ReceivedEvent) -> None:
        failing.append(item)
        if len(failing) == 1:
            raise RuntimeError("the sink failed")

    receiver.deliver_to(sink)
    reader, writer = await asyncio.open_connection("127.0.0.1", receiver.port)
    try:
        writer.write(head + body)
        refused = await _answer(reader)
        writer.write(_delivery(receiver, "0xkept"))
        failed = await _answer(reader)
        writer.write(_delivery(receiver, "0xkept"))  # the sender's retry
        retried = await _answer(reader)
    finally:
        writer.close()
    assert refused[0] == 401 and refused[2]["error"] == "mismatch"
    assert failed[0] == 500 and failed[2] == {"error": "internal_error"}
    assert (retried[0], retried[2]) == (200, {"status": "accepted"})  # not remembered at 500
    assert fast_answers == [401, 500, 200]
    assert len(failing) == 2


async def test_an_idle_connection_after_a_fast_answer_is_closed_at_the_head_deadline(
    fast_answers: list[int],
) -> None:
    async with WebhookReceiver("test-api-key-0123456789", read_timeout=0.5) as rx:
        reader, writer = await asyncio.open_connection("127.0.0.1", rx.port)
        try:
            writer.write(_delivery(rx, "0xidle"))
            status, _, _ = await _answer(reader)
            async with asyncio.timeout(10):  # a limit; the deadline is 0.5 s
                assert await reader.read() == b""
        finally:
            writer.close()
    assert status == 200 and fast_answers == [200]
