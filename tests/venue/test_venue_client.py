"""VenueClient against the world's venue: /info reads, /exchange submissions, and faults a
proxy in front of it answers in its place."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount

from crossdeck.base.errors import InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.retry import RetryPolicy
from crossdeck.sim.venue import info as world_info
from crossdeck.venue.client import VenueClient
from crossdeck.venue.errors import (
    VenueConnectionError,
    VenueDataError,
    VenueError,
    VenueMalformedResponseError,
)
from crossdeck.venue.signing import build_send_asset_typed_data, signed_action, split_signature
from helpers.fault_proxy import Fault
from helpers.waiting import SleepRecorder

from .conftest import WorldVenue
from .test_venue_signing import DESTINATION, NONCE, send_asset_step


def sign_send_asset(wallet: LocalAccount, chain_id: int = 8453, amount: str = "12.5"):
    """What the executor does with a quote's deposit step: build, sign, split."""
    action, types, primary = send_asset_step()
    action["parameters"]["amount"] = amount
    data = build_send_asset_typed_data(action, types, primary, chain_id)
    signature = split_signature(Account.sign_typed_data(wallet.key, full_message=data).signature)
    return signed_action(action, chain_id), signature


def info_bodies(venue: WorldVenue) -> list[Any]:
    return [json.loads(raw) for raw in venue.received["/info"]]


async def test_info_reads_send_the_documented_bodies(venue: WorldVenue, wallet: LocalAccount):
    venue.fund(wallet.address, perps="100.25", USDC="7.5")
    async with VenueClient(venue.url) as client:
        meta = await client.spot_meta()
        perps = await client.clearinghouse_state(wallet.address)
        perps_dex = await client.clearinghouse_state(wallet.address, dex="")
        spot = await client.spot_clearinghouse_state(wallet.address)
    assert meta.token_by_name("USDC") is not None
    assert perps.withdrawable == Decimal("100.25") == perps_dex.withdrawable
    assert spot.balance_of("USDC").total == Decimal("7.5")  # type: ignore[union-attr]
    assert info_bodies(venue) == [
        {"type": "spotMeta"},
        {"type": "clearinghouseState", "user": wallet.address},
        {"type": "clearinghouseState", "user": wallet.address, "dex": ""},
        {"type": "spotClearinghouseState", "user": wallet.address},
    ]


async def test_user_is_checked_before_sending(venue: WorldVenue) -> None:
    async with VenueClient(venue.url) as client:
        with pytest.raises(InputError, match="address"):
            await client.clearinghouse_state("0x1234")
    assert venue.received["/info"] == []


async def test_info_retries_429_and_5xx(
    venue: WorldVenue, wallet: LocalAccount, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    venue.fail("/info", Fault(429, "rate limited", headers={"Retry-After": "2"}), Fault(502))
    async with VenueClient(venue.url, retry=retry) as client:
        meta = await client.spot_meta()
    assert len(meta.tokens) == len(world_info.spot_meta()["tokens"])
    assert len(venue.received["/info"]) == 3
    assert sleeps.delays == [2.0, 0.2]


async def test_info_gives_up_after_the_attempts(venue: WorldVenue, retry: RetryPolicy) -> None:
    venue.fail("/info", *[Fault(500, "boom")] * 3)
    async with VenueClient(venue.url, retry=retry) as client:
        with pytest.raises(VenueError) as info:
            await client.spot_meta()
    assert info.value.status == 500 and info.value.response == "boom"
    assert len(venue.received["/info"]) == 3


async def test_info_4xx_is_not_retried(venue: WorldVenue, retry: RetryPolicy) -> None:
    async with VenueClient(venue.url, retry=retry) as client:
        with pytest.raises(VenueError) as info:
            await client.info({"type": "noSuchThing"})
    assert info.value.status == 422
    assert "Failed to deserialize" in str(info.value)
    assert info.value.exit_code == ExitCode.SERVICE_ERROR
    assert len(venue.received["/info"]) == 1


async def test_info_malformed_answers(venue: WorldVenue, retry: RetryPolicy) -> None:
    venue.fail("/info", Fault(200, "{not json"), Fault(200, {"tokens": "nope"}))
    async with VenueClient(venue.url, retry=retry) as client:
        with pytest.raises(VenueMalformedResponseError, match="not JSON"):
            await client.spot_meta()
        with pytest.raises(VenueMalformedResponseError, match="tokens"):
            await client.spot_meta()


async def test_info_timeout_is_retried_then_a_connection_error(
    venue: WorldVenue, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    venue.fail("/info", *[Fault(200, {}, delay=30)] * 3)
    async with VenueClient(venue.url, timeout=0.2, retry=retry) as client:
        with pytest.raises(VenueConnectionError) as info:
            await client.spot_meta()
    assert not info.value.may_have_acted and info.value.exit_code == ExitCode.NETWORK
    assert len(venue.received["/info"]) == 3
    assert sleeps.delays == [0.1, 0.2]


async def test_exchange_ok_moves_the_money(venue: WorldVenue, wallet: LocalAccount) -> None:
    venue.fund(wallet.address, perps="100")
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url) as client:
        answer = await client.exchange(action, NONCE, signature)
        after = await client.clearinghouse_state(wallet.address)
        solver = await client.spot_clearinghouse_state(DESTINATION)
    assert answer == {"status": "ok", "response": {"type": "default"}}
    assert after.withdrawable == Decimal("87.5")
    assert solver.balance_of("USDC").total == Decimal("12.5")  # type: ignore[union-attr]
    (raw,) = venue.received["/exchange"]
    posted = json.loads(raw)
    assert posted == {"action": action, "nonce": NONCE, "signature": signature.to_wire()}
    assert type(posted["signature"]["v"]) is int


async def test_exchange_status_err_carries_the_venue_message(
    venue: WorldVenue, wallet: LocalAccount
) -> None:
    venue.fund(wallet.address, perps="5")
    action, signature = sign_send_asset(wallet, amount="12.5")
    async with VenueClient(venue.url) as client:
        with pytest.raises(VenueError) as info:
            await client.exchange(action, NONCE, signature)
        after = await client.clearinghouse_state(wallet.address)
    assert info.value.status == 200
    assert str(info.value.response).startswith("Insufficient balance")
    assert "Insufficient balance" in str(info.value)
    assert after.withdrawable == Decimal("5")


async def test_exchange_signed_by_someone_else_is_refused(
    venue: WorldVenue, wallet: LocalAccount, other_wallet: LocalAccount
) -> None:
    venue.fund(wallet.address, perps="100")
    action, _ = sign_send_asset(wallet)
    _, foreign = sign_send_asset(other_wallet)
    async with VenueClient(venue.url) as client:
        with pytest.raises(VenueError, match="does not exist"):
            await client.exchange(action, NONCE, foreign)


async def test_exchange_http_4xx(venue: WorldVenue, wallet: LocalAccount) -> None:
    venue.fail("/exchange", Fault(422, "Failed to deserialize the JSON body"))
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url) as client:
        with pytest.raises(VenueError) as info:
            await client.exchange(action, NONCE, signature)
    assert info.value.status == 422
    assert len(venue.received["/exchange"]) == 1


async def test_exchange_is_not_resent_after_a_timeout(
    venue: WorldVenue, wallet: LocalAccount, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    venue.fund(wallet.address, perps="100")
    venue.fail("/exchange", Fault(200, {"status": "ok"}, delay=30))
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url, timeout=0.2, retry=retry) as client:
        with pytest.raises(VenueConnectionError) as info:
            await client.exchange(action, NONCE, signature)
    assert info.value.may_have_acted
    assert "check the venue balance" in str(info.value)
    assert len(venue.received["/exchange"]) == 1
    assert sleeps.delays == []


async def test_exchange_is_not_resent_after_a_5xx(
    venue: WorldVenue, wallet: LocalAccount, retry: RetryPolicy
) -> None:
    venue.fund(wallet.address, perps="100")
    venue.fail("/exchange", Fault(502, "bad gateway"))
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url, retry=retry) as client:
        with pytest.raises(VenueError) as info:
            await client.exchange(action, NONCE, signature)
    assert info.value.status == 502
    assert len(venue.received["/exchange"]) == 1


async def test_exchange_is_resent_after_429(
    venue: WorldVenue, wallet: LocalAccount, retry: RetryPolicy, sleeps: SleepRecorder
) -> None:
    venue.fund(wallet.address, perps="100")
    venue.fail("/exchange", Fault(429, "too many requests"))
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url, retry=retry) as client:
        answer = await client.exchange(action, NONCE, signature)
    assert answer["status"] == "ok"
    assert len(venue.received["/exchange"]) == 2
    assert sleeps.delays == [0.1]


async def test_exchange_refuses_a_nonce_that_differs_from_the_action(
    venue: WorldVenue, wallet: LocalAccount
) -> None:
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url) as client:
        with pytest.raises(VenueDataError, match="nonce"):
            await client.exchange(action, NONCE + 1, signature)
    assert venue.received["/exchange"] == []


async def test_undecodable_exchange_answer_may_have_acted(
    venue: WorldVenue, wallet: LocalAccount, retry: RetryPolicy
) -> None:
    venue.fail("/exchange", Fault(200, "not gzip", headers={"Content-Encoding": "gzip"}))
    action, signature = sign_send_asset(wallet)
    async with VenueClient(venue.url, retry=retry) as client:
        with pytest.raises(VenueConnectionError) as info:
            await client.exchange(action, NONCE, signature)
    assert info.value.may_have_acted
    assert len(venue.received["/exchange"]) == 1
