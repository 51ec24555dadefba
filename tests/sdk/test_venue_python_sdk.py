"""The venue's own Python SDK (`hyperliquid-python-sdk`, pinned in the dev group) against the
demo world's venue, as `crossdeck sim serve --brand public` runs it.

The SDK is the public venue's reading of its API, written by other hands than the world's: it
constructs `Info` and `Exchange` (which read `spotMeta` and `meta` at start), reads balances and
signs a `sendAsset` with its own code, and the world must agree with every step.

Two things stand between the SDK and a local venue, and this file handles each openly:
- The SDK signs `hyperliquidChain: "Mainnet"` only when its base URL is the public venue's URL,
  and `"Testnet"` for any other URL. The world is a "Mainnet" venue listening on 127.0.0.1, so
  the SDK is given the world's URL as `base_url` and ONLY that decision is redirected: the
  `Exchange` module's idea of the mainnet URL is set to the world's URL (`signs_for_the_world`).
  Everything the SDK signs is then exactly what it would sign for the public venue; one test
  shows that without the redirect the world refuses the SDK's "Testnet" signature.
- No network: every HTTP request the SDK makes goes through requests' `HTTPAdapter.send`, which
  `loopback_only` lets through to 127.0.0.1 only; anything else fails the test. The SDK's
  websocket is never opened (`skip_ws=True`; `Exchange` builds its `Info` that way itself).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import hyperliquid.exchange as sdk_exchange
import pytest
import requests
from eth_account import Account
from eth_account.signers.local import LocalAccount
from hyperliquid.exchange import Exchange
from hyperliquid.info import Info
from hyperliquid.utils.signing import get_timestamp_ms, sign_send_asset_action

from crossdeck.sim.venue import (
    HIP3_DEX_NAME,
    PERPS_USDC_ADDRESS,
    SPOT_TOKENS,
    SPOT_USDC_TOKEN_ID,
    USDC,
    USDE_TOKEN_ID,
    VENUE_CHAIN_VALUE,
    format_units,
    hip3_address,
)

OK = {"status": "ok", "response": {"type": "default"}}
USDC_TOKEN = f"USDC:{SPOT_USDC_TOKEN_ID}"


@pytest.fixture(scope="module")
def world(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm", brand="public") as running:
        yield running


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every URL the SDK requested; a request to any host but 127.0.0.1 fails the test."""
    requested: list[str] = []
    real_send = requests.adapters.HTTPAdapter.send

    def send(self: requests.adapters.HTTPAdapter, request: Any, *args: Any, **kw: Any) -> Any:
        if urlsplit(request.url).hostname != "127.0.0.1":
            raise AssertionError(f"the SDK tried to leave this machine: {request.url}")
        requested.append(request.url)
        return real_send(self, request, *args, **kw)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)
    return requested


@pytest.fixture
def signs_for_the_world(monkeypatch: pytest.MonkeyPatch, world: Any) -> None:
    # The SDK's only chain-name decision is `base_url == MAINNET_API_URL` in its exchange
    # module: pointing that name at the world makes it sign "Mainnet", the world's chain.
    monkeypatch.setattr(sdk_exchange, "MAINNET_API_URL", world.venue_url)


@pytest.fixture
def wallet(world: Any) -> LocalAccount:
    return Account.from_key(world.wallet_key)


def units(text: str, decimals: int) -> int:
    """A venue decimal string in smallest units (exact: the SDK hands back the venue's text)."""
    value = Decimal(text).scaleb(decimals)
    assert value == value.to_integral_value(), text
    return int(value)


def fresh(world: Any, usdc: int = 100) -> LocalAccount:
    """A new venue account holding `usdc` USDC on perps, as a deposit leaves it."""
    account: LocalAccount = Account.create()
    world.ledger.credit(account.address, PERPS_USDC_ADDRESS, usdc * 10**USDC.wei_decimals)
    return account


def books(world: Any, user: str) -> tuple[int, int, int]:
    """(perps, spot, HIP-3 xyz) USDC of `user`, in smallest units."""
    ledger = world.ledger
    return (
        ledger.balance(user, PERPS_USDC_ADDRESS),
        ledger.balance(user, SPOT_USDC_TOKEN_ID),
        ledger.balance(user, hip3_address(SPOT_USDC_TOKEN_ID, HIP3_DEX_NAME)),
    )


def test_info_constructs_and_reads_the_metadata_it_needs(world: Any, loopback_only: list[str]):
    info = Info(world.venue_url, skip_ws=True)
    # at start it read spotMeta and meta and mapped every coin to an asset number
    assert info.coin_to_asset["ETH"] == 0 and info.coin_to_asset["HYPE"] == 1
    assert info.name_to_coin["USDE/USDC"] == "@0"  # spot pairs from spotMeta, as the SDK names them
    assert info.coin_to_asset["@0"] == 10_000
    meta, ctxs = info.meta_and_asset_ctxs()
    assert [a["name"] for a in meta["universe"]] == ["ETH", "HYPE"] and len(ctxs) == 2
    spot_meta, spot_ctxs = info.spot_meta_and_asset_ctxs()
    assert spot_meta == info.spot_meta() and len(spot_ctxs) == len(spot_meta["universe"])
    with_dex = Info(world.venue_url, skip_ws=True, perp_dexs=["", HIP3_DEX_NAME])
    assert with_dex.coin_to_asset[f"{HIP3_DEX_NAME}:DEMO"] == 110_000  # HIP-3 DEX offsets
    assert loopback_only and all(u.startswith(world.venue_url) for u in loopback_only)


def test_balances_read_by_the_sdk_equal_the_world_ledger(world: Any, wallet: LocalAccount):
    info = Info(world.venue_url, skip_ws=True)
    ledger = world.ledger
    perps = info.user_state(wallet.address)
    assert units(perps["withdrawable"], USDC.wei_decimals) == ledger.withdrawable(wallet.address)
    assert ledger.withdrawable(wallet.address) > 0
    on_dex = info.user_state(wallet.address, dex=HIP3_DEX_NAME)
    assert units(on_dex["withdrawable"], USDC.wei_decimals) == ledger.balance(
        wallet.address, hip3_address(SPOT_USDC_TOKEN_ID, HIP3_DEX_NAME)
    )
    spot = info.spot_user_state(wallet.address)
    by_index = {b["token"]: b for b in spot["balances"]}
    held = [t for t in SPOT_TOKENS if ledger.balance(wallet.address, t.token_id)]
    assert sorted(by_index) == sorted(t.index for t in held) and held
    for token in held:
        balance = by_index[token.index]
        assert balance["coin"] == token.name
        assert units(balance["total"], token.wei_decimals) == ledger.balance(
            wallet.address, token.token_id
        )


@pytest.mark.usefixtures("signs_for_the_world")
def test_signed_send_asset_is_accepted_and_moves_the_balance(world: Any, wallet: LocalAccount):
    ledger = world.ledger
    receiver = Account.create().address
    exchange = Exchange(wallet, world.venue_url)
    perps_before = ledger.balance(wallet.address, PERPS_USDC_ADDRESS)

    answer = exchange.send_asset(receiver, "", "spot", USDC_TOKEN, 2.5)

    assert answer == OK
    record = ledger.sends()[-1]
    assert (record.user, record.destination) == (wallet.address.lower(), receiver.lower())
    assert record.signature_chain_id == 0x66EEE  # the SDK's own signatureChainId
    assert ledger.balance(receiver, SPOT_USDC_TOKEN_ID) == 250_000_000
    perps_after = ledger.balance(wallet.address, PERPS_USDC_ADDRESS)
    assert perps_before - perps_after == 250_000_000 + record.fee
    # and the SDK reads the new balances back
    spot = Info(world.venue_url, skip_ws=True).spot_user_state(receiver)
    assert spot["balances"][0]["coin"] == "USDC" and spot["balances"][0]["total"] == "2.5"


@pytest.mark.usefixtures("signs_for_the_world")
def test_token_spelled_as_wallets_spell_it_is_accepted(world: Any, wallet: LocalAccount):
    receiver = Account.create().address
    exchange = Exchange(wallet, world.venue_url)
    # the world lists this token as the public venue does ('USDE'); wallets write 'USDe'
    answer = exchange.send_asset(receiver, "spot", "spot", f"USDe:{USDE_TOKEN_ID}", 1.25)
    assert answer == OK
    assert world.ledger.balance(receiver, USDE_TOKEN_ID) == 125_000_000


@pytest.mark.usefixtures("signs_for_the_world")
def test_a_wrong_signature_is_refused_and_moves_nothing(world: Any, wallet: LocalAccount):
    ledger = world.ledger
    receiver = Account.create().address
    exchange = Exchange(wallet, world.venue_url)
    nonce = get_timestamp_ms()
    action = {
        "type": "sendAsset", "destination": receiver, "sourceDex": "", "destinationDex": "spot",
        "token": USDC_TOKEN, "amount": "1.0", "fromSubAccount": "", "nonce": nonce,
    }  # fmt: skip
    signature = sign_send_asset_action(wallet, action, True)  # the SDK's own signer
    tampered = {**action, "amount": "1000.0"}  # signed for 1, sent for 1000
    sends_before = len(ledger.sends())

    answer = exchange._post_action(tampered, signature, nonce)

    assert answer["status"] == "err"
    assert "does not exist" in answer["response"]  # the signature recovers another address
    assert ledger.balance(receiver, SPOT_USDC_TOKEN_ID) == 0
    assert len(ledger.sends()) == sends_before
    assert not ledger.nonce_used(wallet.address, nonce)
    # the untampered action, with its own signature, is accepted under the same nonce
    assert exchange._post_action(action, signature, nonce) == OK
    assert ledger.balance(receiver, SPOT_USDC_TOKEN_ID) == 100_000_000


def test_without_the_redirect_the_sdk_signs_testnet_and_the_world_refuses(
    world: Any, wallet: LocalAccount
):
    receiver = Account.create().address
    exchange = Exchange(wallet, world.venue_url)  # not the public URL: the SDK signs "Testnet"
    answer = exchange.send_asset(receiver, "", "spot", USDC_TOKEN, 1.0)
    assert answer["status"] == "err"
    assert "'Testnet'" in answer["response"] and repr(VENUE_CHAIN_VALUE) in answer["response"]
    assert world.ledger.balance(receiver, SPOT_USDC_TOKEN_ID) == 0


@pytest.mark.usefixtures("signs_for_the_world")
def test_usd_class_transfer_moves_usdc_between_perps_and_spot(world: Any):
    account = fresh(world)
    exchange = Exchange(account, world.venue_url)
    assert exchange.usd_class_transfer(10.0, False) == OK  # perps -> spot
    assert books(world, account.address) == (90 * 10**8, 10 * 10**8, 0)
    assert exchange.usd_class_transfer(4.5, True) == OK  # spot -> perps
    assert books(world, account.address) == (9450 * 10**6, 550 * 10**6, 0)
    # the SDK reads the moves back as the venue lists them, with no fee
    updates = Info(world.venue_url, skip_ws=True).user_non_funding_ledger_updates(
        account.address, 0
    )
    assert [u["delta"] for u in updates] == [
        {"type": "accountClassTransfer", "usdc": "10.0", "toPerp": False},
        {"type": "accountClassTransfer", "usdc": "4.5", "toPerp": True},
    ]
    assert not world.ledger.fee_paid(account.address)


@pytest.mark.usefixtures("signs_for_the_world")
def test_send_asset_round_trip_between_own_books_leaves_the_books_as_they_were(world: Any):
    account = fresh(world)
    exchange = Exchange(account, world.venue_url)
    me = account.address
    assert exchange.send_asset(me, "", "spot", USDC_TOKEN, 10.0) == OK
    assert books(world, me) == (90 * 10**8, 10 * 10**8, 0)
    assert exchange.send_asset(me, "spot", HIP3_DEX_NAME, USDC_TOKEN, 10.0) == OK
    assert books(world, me) == (90 * 10**8, 0, 10 * 10**8)
    assert exchange.send_asset(me, HIP3_DEX_NAME, "", USDC_TOKEN, 10.0) == OK
    assert books(world, me) == (100 * 10**8, 0, 0)  # a move between one's books pays no fee
    info = Info(world.venue_url, skip_ws=True, perp_dexs=["", HIP3_DEX_NAME])
    assert info.user_state(me)["withdrawable"] == "100.0"
    assert info.user_state(me, dex=HIP3_DEX_NAME)["withdrawable"] == "0.0"


@pytest.mark.usefixtures("signs_for_the_world")
def test_usd_transfer_to_a_new_account_pays_the_first_send_and_new_account_fees_once(world: Any):
    account, receiver = fresh(world), Account.create()
    exchange = Exchange(account, world.venue_url)
    assert (
        Info(world.venue_url, skip_ws=True).post(
            "/info",
            {"type": "preTransferCheck", "user": receiver.address, "source": account.address},
        )["fee"]
        == "1.0"
    )  # the receiver has no account yet: its activation is due
    assert exchange.usd_transfer(5.0, receiver.address) == OK
    # 1 USDC first-send fee and 1 USDC for the receiver's new account
    assert books(world, account.address)[0] == (100 - 5 - 1 - 1) * 10**8
    assert exchange.usd_transfer(5.0, receiver.address) == OK
    assert books(world, account.address)[0] == (100 - 10 - 1 - 1) * 10**8  # and only once
    assert books(world, receiver.address)[0] == 10 * 10**8
    updates = Info(world.venue_url, skip_ws=True).user_non_funding_ledger_updates(
        account.address, 0
    )
    assert [u["delta"]["fee"] for u in updates] == ["2.0", "0.0"]
    assert {u["delta"]["type"] for u in updates} == {"internalTransfer"}


@pytest.mark.usefixtures("signs_for_the_world")
def test_a_max_usd_transfer_ignoring_the_fee_is_refused_in_the_venues_words(world: Any):
    account = fresh(world, usdc=3)
    answer = Exchange(account, world.venue_url).usd_transfer(3.0, Account.create().address)
    assert answer["status"] == "err" and "first-send fee 1.0 USDC" in answer["response"]
    assert books(world, account.address)[0] == 3 * 10**8


@pytest.mark.usefixtures("signs_for_the_world")
def test_spot_transfer_sends_a_spot_token(world: Any):
    account, receiver = fresh(world), Account.create()
    exchange = Exchange(account, world.venue_url)
    assert exchange.usd_class_transfer(20.0, False) == OK
    assert exchange.spot_transfer(2.0, receiver.address, USDC_TOKEN) == OK
    assert books(world, account.address)[1] == (20 - 2 - 1 - 1) * 10**8  # both fees: a new receiver
    assert books(world, receiver.address)[1] == 2 * 10**8


@pytest.mark.usefixtures("signs_for_the_world")
def test_a_unified_account_reads_and_spends_its_usdc_on_spot(world: Any):
    account = fresh(world)
    exchange = Exchange(account, world.venue_url)
    info = Info(world.venue_url, skip_ws=True)
    assert info.query_user_abstraction_state(account.address) == "default"
    assert exchange.user_set_abstraction(account.address, "unifiedAccount") == OK
    assert info.query_user_abstraction_state(account.address) == "unifiedAccount"
    # the perps account reads 0 withdrawable; the collateral is the spot USDC
    assert info.user_state(account.address)["withdrawable"] == "0.0"
    spot = info.spot_user_state(account.address)["balances"]
    assert [(b["coin"], b["total"]) for b in spot] == [("USDC", "100.0")]
    refused = exchange.usd_class_transfer(1.0, False)
    assert refused["status"] == "err" and "unifiedAccount" in refused["response"]
    # a send from perps is taken from the unified balance, on spot
    receiver = Account.create()
    assert exchange.send_asset(receiver.address, "", "", USDC_TOKEN, 10.0) == OK
    assert books(world, account.address) == (0, (100 - 10 - 1 - 1) * 10**8, 0)  # both fees
    assert books(world, receiver.address)[0] == 10 * 10**8


@pytest.mark.usefixtures("signs_for_the_world")
def test_sub_accounts_and_vault_equities_as_the_sdk_reads_them(world: Any, wallet: LocalAccount):
    info = Info(world.venue_url, skip_ws=True)
    subs = info.query_sub_accounts(wallet.address)
    assert [s["name"] for s in subs] == ["desk"]
    sub = subs[0]["subAccountUser"]
    assert subs[0]["master"] == wallet.address.lower()
    assert subs[0]["clearinghouseState"]["withdrawable"] == format_units(
        world.ledger.withdrawable(sub), USDC.wei_decimals
    )
    assert info.user_role(sub) == {"role": "subAccount", "data": {"master": wallet.address.lower()}}
    equities = info.user_vault_equities(wallet.address)
    assert len(equities) == 1 and Decimal(equities[0]["equity"]) > 0
    assert info.query_sub_accounts(Account.create().address) is None
    # the master moves USDC out of its sub account with sendAsset's fromSubAccount
    before = world.ledger.balance(sub, PERPS_USDC_ADDRESS)
    from_sub = Exchange(wallet, world.venue_url, vault_address=sub)
    assert from_sub.send_asset(wallet.address, "", "spot", USDC_TOKEN, 1.0) == OK
    assert world.ledger.balance(sub, PERPS_USDC_ADDRESS) == before - 10**8  # no fee: own accounts
