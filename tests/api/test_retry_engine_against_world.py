"""The one retry engine (`crossdeck.retry`) through both clients, against the demo world.

A `FaultProxy` stands between each client and the world's service or venue: it answers some
requests in the world's place (429, 5xx) or forwards them and answers late (the world acted, the
client timed out). Everything else is the world's own answer. The rules under test are the
clients' `RESEND_RULES` tables: reads are resent after any transient failure; a request that
acts (a signed post to the service, a transfer to the venue) only when the server certainly did
not act on it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossdeck.api import client as service_module
from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import RateLimitedError, ServiceConnectionError, ServiceError
from crossdeck.models.venue import VenueSignature
from crossdeck.retry import IDEMPOTENT, NEVER, NOT_ACTED_ONLY, RetryPolicy
from crossdeck.venue import client as venue_module
from crossdeck.venue.client import VenueClient
from crossdeck.venue.errors import VenueConnectionError, VenueError
from crossdeck.venue.signing import signed_action
from helpers.fault_proxy import FaultProxy, answer, late
from helpers.waiting import SleepRecorder

NONCE = 1_700_000_000_000
BAD_SIGNATURE = VenueSignature(r="0x" + "11" * 32, s="0x" + "22" * 32, v=27)


@pytest.fixture
async def service_proxy(world: Any) -> AsyncIterator[FaultProxy]:
    proxy = FaultProxy(world.service_url)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()


@pytest.fixture
async def venue_proxy(world: Any) -> AsyncIterator[FaultProxy]:
    proxy = FaultProxy(world.venue_url)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()


def transfer() -> dict[str, Any]:
    """A venue transfer action the world refuses (its signature is not the wallet's)."""
    parameters = {
        "venueChain": "Mainnet",
        "destination": "0x" + "ee" * 20,
        "sourceDex": "",
        "destinationDex": "spot",
        "token": "USDC",
        "amount": "1",
        "fromSubAccount": "",
        "nonce": NONCE,
    }
    return signed_action({"type": "sendAsset", "parameters": parameters}, 8453)


# -- the rules, as data ------------------------------------------------------------------------


def test_the_resend_tables_name_every_route_that_acts() -> None:
    service = service_module.RESEND_RULES
    assert service.for_request("GET", "/chains") is IDEMPOTENT
    assert service.for_request("GET", "/intents/status/v3?requestId=0x1") is IDEMPOTENT
    assert service.for_request("POST", "/quote/v2") is IDEMPOTENT
    assert service.for_request("POST", "/transactions/index") is IDEMPOTENT
    # signed posts, named or not: a step's own `post` endpoint is unknown ahead
    for path in ("/authorize", "/execute/permits", "/some/step/endpoint"):
        assert service.for_request("POST", path) is NOT_ACTED_ONLY
    venue = venue_module.RESEND_RULES
    info, exchange = venue.for_request("POST", "/info"), venue.for_request("POST", "/exchange")
    assert info.after_unknown and {429, 500, 502, 503, 504} <= info.statuses
    assert not exchange.after_unknown and exchange.statuses == {429}
    # a route no table names is never resent
    assert venue.for_request("GET", "/info") is NEVER
    assert service.for_request("DELETE", "/chains") is NEVER


# -- the service -------------------------------------------------------------------------------


async def test_service_read_is_resent_after_5xx_and_honours_retry_after(
    service_proxy: FaultProxy, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    service_proxy.fail(
        "/chains",
        answer(503, {"message": "down", "errorCode": "SERVICE_UNAVAILABLE"}),
        answer(429, {"message": "slow down"}, **{"Retry-After": "3"}),
    )
    async with ServiceClient(service_proxy.url, retry=retry) as client:
        chains = await client.chains()
    assert chains.by_id(1337) is not None  # the world's own answer
    assert sleeps.delays == [0.1, 3.0]
    assert service_proxy.asked["/chains"] == 3 and service_proxy.reached["/chains"] == 1


async def test_service_read_is_resent_after_a_timeout(
    service_proxy: FaultProxy, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    service_proxy.fail("/chains", late())
    async with ServiceClient(service_proxy.url, timeout=0.3, retry=retry) as client:
        await client.chains()
    assert service_proxy.reached["/chains"] == 2
    assert sleeps.delays == [0.1]


async def test_service_gives_up_after_the_policy_s_attempts(
    service_proxy: FaultProxy, retry: RetryPolicy
) -> None:
    service_proxy.fail("/chains", *[answer(429, {"message": "later"})] * retry.max_attempts)
    async with ServiceClient(service_proxy.url, retry=retry) as client:
        with pytest.raises(RateLimitedError):
            await client.chains()
    assert service_proxy.asked["/chains"] == retry.max_attempts
    assert service_proxy.reached["/chains"] == 0


async def test_signed_post_that_reached_the_service_is_never_resent(
    service_proxy: FaultProxy, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    service_proxy.fail("/authorize", late())
    async with ServiceClient(service_proxy.url, timeout=0.3, retry=retry) as client:
        with pytest.raises(ServiceConnectionError) as info:
            await client.authorize({"nonce": NONCE}, "0x" + "ab" * 65)
    assert info.value.may_have_acted
    assert service_proxy.asked["/authorize"] == 1 == service_proxy.reached["/authorize"]
    assert sleeps.delays == []


async def test_signed_post_is_resent_only_on_not_acted_statuses(
    service_proxy: FaultProxy, retry: RetryPolicy
) -> None:
    service_proxy.fail(
        "/authorize",
        answer(503, {"message": "down"}),
        answer(429, {"message": "slow"}, **{"Retry-After": "0"}),
        answer(500, {"message": "price feed", "errorCode": "PRICE_FETCH_FAILED"}),
    )
    async with ServiceClient(service_proxy.url, retry=retry) as client:
        with pytest.raises(ServiceError) as info:
            await client.authorize({"nonce": NONCE}, "0x" + "ab" * 65)
    # the transient code is a reason to resend a read, not a post whose effect is unknown
    assert info.value.status == 500 and info.value.error_code == "PRICE_FETCH_FAILED"
    assert service_proxy.asked["/authorize"] == 3 and service_proxy.reached["/authorize"] == 0


# -- the venue ---------------------------------------------------------------------------------


async def test_venue_read_is_resent_after_429_5xx_and_a_timeout(
    venue_proxy: FaultProxy, world: Any, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    venue_proxy.fail(
        "/info", answer(429, {"response": "busy"}, **{"Retry-After": "2"}), answer(502), late()
    )
    async with VenueClient(venue_proxy.url, timeout=0.3, retry=retry) as client:
        state = await client.clearinghouse_state(world.wallet_address)
    assert state.withdrawable >= 0  # the world's own answer
    assert sleeps.delays == [2.0, 0.2, 0.4]
    assert venue_proxy.asked["/info"] == 4 and venue_proxy.reached["/info"] == 2


async def test_venue_transfer_that_reached_the_venue_is_never_resent(
    venue_proxy: FaultProxy, world: Any, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    venue_proxy.fail("/exchange", late())
    async with VenueClient(venue_proxy.url, timeout=0.3, retry=retry) as client:
        with pytest.raises(VenueConnectionError) as info:
            await client.exchange(transfer(), NONCE, BAD_SIGNATURE)
    assert info.value.may_have_acted and "check the venue balance" in str(info.value)
    assert venue_proxy.asked["/exchange"] == 1 == venue_proxy.reached["/exchange"]
    assert sleeps.delays == []


async def test_venue_transfer_is_resent_after_429_but_not_after_5xx(
    venue_proxy: FaultProxy, world: Any, retry: RetryPolicy
) -> None:
    venue_proxy.fail("/exchange", answer(429, {"response": "busy"}, **{"Retry-After": "0"}))
    async with VenueClient(venue_proxy.url, retry=retry) as client:
        with pytest.raises(VenueError, match="refused the action"):  # the world's own verdict
            await client.exchange(transfer(), NONCE, BAD_SIGNATURE)
        assert venue_proxy.asked["/exchange"] == 2 and venue_proxy.reached["/exchange"] == 1
        venue_proxy.fail("/exchange", answer(502, {"response": "bad gateway"}))
        with pytest.raises(VenueError) as info:
            await client.exchange(transfer(), NONCE, BAD_SIGNATURE)
    assert info.value.status == 502
    assert venue_proxy.asked["/exchange"] == 3 and venue_proxy.reached["/exchange"] == 1


@pytest.mark.parametrize("path", ["/info", "/exchange"])
async def test_a_refused_connection_is_resent_even_for_a_transfer(
    path: str, world: Any, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    # nothing listens there: the request never left, so resending cannot act twice
    proxy = FaultProxy(world.venue_url)
    url = await proxy.start()
    await proxy.stop()
    async with VenueClient(url, retry=retry) as client:
        with pytest.raises(VenueConnectionError) as info:
            if path == "/info":
                await client.spot_meta()
            else:
                await client.exchange(transfer(), NONCE, BAD_SIGNATURE)
    assert not info.value.may_have_acted
    assert f"after {retry.max_attempts} attempt(s)" in str(info.value)
    assert sleeps.delays == [0.1, 0.2, 0.4]
