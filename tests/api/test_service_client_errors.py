"""ServiceClient failures against a real HTTP server: error bodies, retries, timeouts."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import (
    MalformedResponseError,
    RateLimitedError,
    ServiceConnectionError,
    ServiceError,
    ServiceUnavailableError,
)
from crossdeck.base.exitcodes import ExitCode
from crossdeck.retry import RetryPolicy
from helpers.waiting import SleepRecorder

from . import fixtures as fx
from .server import Reply, ScriptedServer

SIGNATURE = "0x" + "34" * 65


def error(status: int, code: str, message: str = "went wrong", **extra: object) -> Reply:
    return Reply(status, {"message": message, "errorCode": code, **extra})


async def test_error_body_becomes_a_service_error_with_every_part(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    server.on(
        "GET",
        "/chains",
        error(400, "INVALID_ADDRESS", "user is not an address", errorData={"field": "user"}),
    )
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(ServiceError) as info:
            await client.chains()
    exc = info.value
    assert type(exc) is ServiceError
    assert exc.status == 400
    assert exc.error_code == "INVALID_ADDRESS"
    assert exc.message == "user is not an address"
    assert exc.error_data == {"field": "user"}
    assert b"INVALID_ADDRESS" in exc.raw_body  # type: ignore[operator]
    assert exc.exit_code == ExitCode.SERVICE_ERROR
    text = str(exc)
    assert "HTTP 400" in text and "INVALID_ADDRESS" in text and "GET /chains" in text
    assert "check the address" in text  # says what to do


async def test_non_json_error_body_is_kept_raw(server: ScriptedServer, retry: RetryPolicy) -> None:
    page = "<html><body>" + "bad gateway " * 100 + "</body></html>"
    server.on("GET", "/chains", Reply(502, page))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(ServiceError) as info:
            await client.chains()
    exc = info.value
    assert exc.status == 502 and exc.error_code is None
    assert exc.raw_body == page.encode()
    assert len(exc.raw_preview) < len(page)  # shown truncated, kept whole
    assert server.count("GET", "/chains") == 1  # 502 is not one of the retried answers


async def test_validation_400_is_never_retried(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    server.on("POST", "/quote/v2", error(400, "AMOUNT_TOO_LOW"))
    body = {
        "user": fx.USER,
        "originChainId": 8453,
        "destinationChainId": 1337,
        "originCurrency": fx.BASE_USDC,
        "destinationCurrency": fx.PERPS_USDC,
        "amount": "1",
        "tradeType": "EXACT_INPUT",
    }
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(ServiceError) as info:
            await client.quote(body)
    assert info.value.error_code == "AMOUNT_TOO_LOW"
    assert server.count("POST", "/quote/v2") == 1
    assert sleeps.delays == []


async def test_429_honours_retry_after_then_succeeds(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    server.on(
        "GET",
        "/chains",
        Reply(429, {"message": "slow down"}, headers={"Retry-After": "7"}),
        Reply(429, {"message": "slow down"}, headers={"Retry-After": later}),
        Reply(200, fx.chains()),
    )
    async with ServiceClient(server.url, retry=retry) as client:
        chains = await client.chains()
    assert chains.venue is not None
    assert server.count("GET", "/chains") == 3
    assert sleeps.delays[0] == 7.0
    assert 25 < sleeps.delays[1] <= 30  # the HTTP-date form, relative to now


async def test_429_asking_for_too_long_stops_with_the_wish(
    server: ScriptedServer, sleeps: SleepRecorder
) -> None:
    policy = RetryPolicy(max_attempts=4, max_retry_after=10, jitter=False, sleep=sleeps)
    server.on("GET", "/chains", Reply(429, {"message": "later"}, headers={"Retry-After": "120"}))
    async with ServiceClient(server.url, retry=policy) as client:
        with pytest.raises(RateLimitedError) as info:
            await client.chains()
    assert info.value.retry_after == 120
    assert "120" in str(info.value)
    assert server.count("GET", "/chains") == 1
    assert sleeps.delays == []


async def test_429_exhausting_attempts_raises_rate_limited(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    server.on("GET", "/chains", Reply(429, {"message": "slow down"}))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(RateLimitedError) as info:
            await client.chains()
    assert isinstance(info.value, ServiceError)
    assert info.value.status == 429 and info.value.retry_after is None
    assert server.count("GET", "/chains") == 4
    assert sleeps.delays == [0.1, 0.2, 0.4]  # exponential backoff


async def test_503_is_retried_with_backoff_then_succeeds(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    server.on(
        "GET",
        "/intents/status/v3",
        error(503, "SERVICE_UNAVAILABLE"),
        error(503, "SERVICE_UNAVAILABLE"),
        Reply(200, fx.status_v3("success")),
    )
    async with ServiceClient(server.url, retry=retry) as client:
        status = await client.status_v3(fx.REQUEST_ID)
    assert status.status == "success"
    assert server.count("GET", "/intents/status/v3") == 3
    assert sleeps.delays == [0.1, 0.2]


async def test_503_exhausted_is_service_unavailable(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    server.on("GET", "/chains", error(503, "SERVICE_UNAVAILABLE", "maintenance"))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(ServiceUnavailableError) as info:
            await client.chains()
    assert info.value.message == "maintenance"
    assert server.count("GET", "/chains") == 4


@pytest.mark.parametrize(
    "code", ["PRICE_FETCH_FAILED", "REQUEST_TIMED_OUT", "RPC_HTTP_ERROR", "SERVICE_UNAVAILABLE"]
)
async def test_transient_error_codes_are_retried_for_quotes(
    server: ScriptedServer, retry: RetryPolicy, code: str
) -> None:
    server.on("POST", "/quote/v2", error(500, code), Reply(200, fx.venue_withdrawal_quote()))
    request = {
        "user": fx.USER,
        "originChainId": 1337,
        "destinationChainId": 8453,
        "originCurrency": fx.PERPS_USDC,
        "destinationCurrency": fx.BASE_USDC,
        "amount": "1000000000",
        "tradeType": "EXACT_INPUT",
        "protocolVersion": "v2",
    }
    async with ServiceClient(server.url, retry=retry) as client:
        quote = await client.quote(request)
    assert quote.request_id == fx.REQUEST_ID
    assert server.count("POST", "/quote/v2") == 2


async def test_full_jitter_draws_within_the_exponential_cap(
    server: ScriptedServer, sleeps: SleepRecorder
) -> None:
    draws = iter([0.5, 0.25, 1.0])
    policy = RetryPolicy(
        max_attempts=4, base_delay=1.0, max_delay=3.0, sleep=sleeps, random=lambda: next(draws)
    )
    server.on("GET", "/chains", Reply(503, {}))
    async with ServiceClient(server.url, retry=policy) as client:
        with pytest.raises(ServiceUnavailableError):
            await client.chains()
    # caps 1, 2, 4->3 (max_delay), each scaled by the random draw
    assert sleeps.delays == [0.5, 0.5, 3.0]


async def test_malformed_json_on_200(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    server.on("GET", "/chains", Reply(200, b'{"chains": [ {"id": 1,'))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(MalformedResponseError) as info:
            await client.chains()
    assert info.value.status == 200
    assert "not JSON" in str(info.value)
    assert info.value.raw_body == b'{"chains": [ {"id": 1,'
    # a read that changes nothing is asked again on a malformed answer, like on a 5xx
    assert server.count("GET", "/chains") == retry.max_attempts
    assert sleeps.delays == [0.1, 0.2, 0.4]


async def test_one_malformed_answer_on_a_read_is_retried(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    """/chains, /quote/v2 and the status endpoints: one bad answer, then a good one."""
    server.on("GET", "/chains", Reply(200, b"<html>bad gateway</html>"), Reply(200, {"chains": []}))
    async with ServiceClient(server.url, retry=retry) as client:
        chains = await client.chains()
    assert chains.chains == [] and server.count("GET", "/chains") == 2


async def test_a_malformed_answer_to_a_signed_post_is_not_resent(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    server.on("POST", "/authorize", Reply(200, b"not json"))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(MalformedResponseError):
            await client.authorize({"a": 1}, "0x" + "ab" * 65)
    assert server.count("POST", "/authorize") == 1


async def test_wrong_shape_on_200_names_the_field(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    server.on("GET", "/chains", Reply(200, {"chains": [{"id": "eight"}]}))
    server.on("GET", "/requests/v2", Reply(200, ["not", "an", "object"]))
    server.on("GET", "/intents/status", Reply(200, b""))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(MalformedResponseError, match=r"chains\.0\.id"):
            await client.chains()
        with pytest.raises(MalformedResponseError, match="got list"):
            await client.requests()
        with pytest.raises(MalformedResponseError, match="empty body"):
            await client.status(fx.REQUEST_ID)


async def test_slow_server_times_out_and_idempotent_reads_are_retried(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains(), delay=30))
    async with ServiceClient(server.url, timeout=0.2, retry=retry) as client:
        with pytest.raises(ServiceConnectionError) as info:
            await client.chains()
    exc = info.value
    assert exc.exit_code == ExitCode.NETWORK
    assert exc.attempts == 4 and not exc.may_have_acted
    assert "timed out" in str(exc)
    assert server.count("GET", "/chains") == 4
    assert sleeps.delays == [0.1, 0.2, 0.4]


async def test_signature_post_is_not_resent_after_a_timeout(
    server: ScriptedServer, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    server.on("POST", "/authorize", Reply(200, {}, delay=30))
    async with ServiceClient(server.url, timeout=0.2, retry=retry) as client:
        with pytest.raises(ServiceConnectionError) as info:
            await client.authorize({"type": "nonce-mapping"}, SIGNATURE)
    assert info.value.may_have_acted
    assert "status before sending it again" in str(info.value)
    assert server.count("POST", "/authorize") == 1
    assert sleeps.delays == []


async def test_signature_post_is_not_resent_on_a_transient_500(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    server.on("POST", "/authorize", error(500, "REQUEST_TIMED_OUT"), Reply(200, {}))
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(ServiceError) as info:
            await client.authorize({"type": "nonce-mapping"}, SIGNATURE)
    assert info.value.error_code == "REQUEST_TIMED_OUT"
    assert server.count("POST", "/authorize") == 1


async def test_signature_post_is_resent_on_429_and_503(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    server.on(
        "POST",
        "/authorize",
        Reply(429, {"message": "slow"}, headers={"Retry-After": "0"}),
        error(503, "SERVICE_UNAVAILABLE"),
        Reply(200, {"steps": [{"id": "more"}]}),
    )
    async with ServiceClient(server.url, retry=retry) as client:
        answer = await client.authorize({"type": "nonce-mapping"}, SIGNATURE)
    assert answer == {"steps": [{"id": "more"}]}
    assert server.count("POST", "/authorize") == 3


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_refused_connection_is_a_connection_error_even_for_posts(
    retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    async with ServiceClient(url, retry=retry) as client:
        with pytest.raises(ServiceConnectionError) as info:
            await client.authorize({"type": "nonce-mapping"}, SIGNATURE)
    # a refused connection never reached the server, so even a signed post may be resent
    assert info.value.attempts == 4 and not info.value.may_have_acted
    assert sleeps.delays == [0.1, 0.2, 0.4]
    assert "ConnectError" in str(info.value)


async def test_truncated_body_is_a_connection_error_not_a_crash(retry: RetryPolicy) -> None:
    """A byte-level fault a real server cannot be made to produce on demand."""

    def cut(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("peer closed connection without sending complete body")

    transport = httpx.MockTransport(cut)
    async with ServiceClient("http://service.test", retry=retry, transport=transport) as client:
        with pytest.raises(ServiceConnectionError) as info:
            await client.authorize({"type": "nonce-mapping"}, SIGNATURE)
    assert info.value.may_have_acted and info.value.attempts == 1


async def test_undecodable_body_is_a_connection_error(
    server: ScriptedServer, retry: RetryPolicy
) -> None:
    garbled = Reply(200, b"this is not gzip", headers={"Content-Encoding": "gzip"})
    server.on("GET", "/chains", garbled)
    server.on("POST", "/authorize", garbled)
    async with ServiceClient(server.url, retry=retry) as client:
        with pytest.raises(ServiceConnectionError) as read:
            await client.chains()
        with pytest.raises(ServiceConnectionError) as post:
            await client.authorize({"type": "nonce-mapping"}, SIGNATURE)
    assert "DecodingError" in str(read.value)
    assert server.count("GET", "/chains") == 4  # a read may be asked again
    assert post.value.may_have_acted
    assert server.count("POST", "/authorize") == 1
