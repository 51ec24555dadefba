"""The client's venue pieces against the demo world's venue (crossdeck.sim), both brands.

The sim is a second, independent reading of the spec; agreeing with it on addressing, typed
data and /exchange semantics is the point of this test.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import pytest
from aiohttp import web
from eth_account import Account
from eth_account.signers.local import LocalAccount

from crossdeck.sim.brand import BRANDS, Brand
from crossdeck.sim.venue import (
    PERPS_USDC_ADDRESS as SIM_PERPS_USDC,
)
from crossdeck.sim.venue import (
    VenueLedger,
    make_venue_app,
)
from crossdeck.venue.client import VenueClient
from crossdeck.venue.currencies import PERPS_USDC_ADDRESS, describe_venue_currency
from crossdeck.venue.errors import VenueError
from crossdeck.venue.signing import build_send_asset_typed_data, signed_action, split_signature
from helpers.typed_data import send_asset_fields

SOLVER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"


@pytest.fixture(params=["neutral", "public"])
async def sim_venue(
    request: pytest.FixtureRequest,
) -> AsyncIterator[tuple[str, VenueLedger, Brand]]:
    brand = BRANDS[request.param]
    ledger = VenueLedger()
    ledger.open_account(SOLVER)  # the service's address has its account on the venue
    runner = web.AppRunner(make_venue_app(ledger, brand))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}", ledger, brand
    finally:
        await runner.cleanup()


def deposit_item(brand: Brand, token: str, amount: str, nonce: int) -> dict[str, Any]:
    """The deposit step's item data as a quote of this brand carries it (spec 4.4)."""
    return {
        "action": {
            "type": "sendAsset",
            "parameters": {
                brand.venue_chain_field: "Mainnet",
                "destination": SOLVER,
                "sourceDex": "",
                "destinationDex": "spot",
                "token": token,
                "amount": amount,
                "fromSubAccount": "",
                "nonce": nonce,
            },
        },
        "nonce": nonce,
        "eip712Types": {brand.send_asset_type: send_asset_fields(brand.venue_chain_field)},
        "eip712PrimaryType": brand.send_asset_type,
    }


async def test_currency_addressing_agrees_with_the_sim(
    sim_venue: tuple[str, VenueLedger, Brand],
) -> None:
    url, _, _ = sim_venue
    assert PERPS_USDC_ADDRESS == SIM_PERPS_USDC
    async with VenueClient(url) as client:
        meta = await client.spot_meta()
    kinds = set()
    for currency in VenueLedger.currencies():
        ours = describe_venue_currency(currency.address, meta)
        kinds.add(ours.kind)
        assert ours.dex == currency.dex, currency
        assert ours.name == currency.token.name, currency
        assert ours.token_string == currency.token.wire, currency
    assert kinds == {"perps", "spot", "hip3"}


async def test_signed_send_asset_is_accepted_by_the_sim_venue(
    sim_venue: tuple[str, VenueLedger, Brand], wallet: LocalAccount
) -> None:
    url, ledger, brand = sim_venue
    ledger.credit(wallet.address, SIM_PERPS_USDC, 100 * 10**8)
    async with VenueClient(url) as client:
        meta = await client.spot_meta()
        usdc = describe_venue_currency(PERPS_USDC_ADDRESS, meta)
        nonce = time.time_ns() // 1_000_000
        item = deposit_item(brand, usdc.token_string, "10", nonce)
        data = build_send_asset_typed_data(
            item["action"], item["eip712Types"], item["eip712PrimaryType"], 8453
        )
        assert data["domain"]["name"] == brand.sign_domain
        raw = Account.sign_typed_data(wallet.key, full_message=data).signature
        action = signed_action(item["action"], 8453)
        answer = await client.exchange(action, item["nonce"], split_signature(raw))
        assert answer["status"] == "ok"

        perps = await client.clearinghouse_state(wallet.address)
        solver_spot = await client.spot_clearinghouse_state(SOLVER)
        # 100 - 10 sent - 1 first-send fee (facts.md)
        assert perps.withdrawable == Decimal("89")
        assert solver_spot.balance_of("USDC").total == Decimal("10")  # type: ignore[union-attr]

        with pytest.raises(VenueError, match="nonce") as info:
            await client.exchange(action, item["nonce"], split_signature(raw))
        assert info.value.status == 200


async def test_a_signature_over_other_data_is_refused_by_the_sim(
    sim_venue: tuple[str, VenueLedger, Brand], wallet: LocalAccount
) -> None:
    url, ledger, brand = sim_venue
    ledger.credit(wallet.address, SIM_PERPS_USDC, 100 * 10**8)
    nonce = time.time_ns() // 1_000_000
    item = deposit_item(brand, "USDC:0x6d1e7cde53ba9467b783cb7c530ce054", "10", nonce)
    signed_on = build_send_asset_typed_data(
        item["action"], item["eip712Types"], item["eip712PrimaryType"], 8453
    )
    raw = Account.sign_typed_data(wallet.key, full_message=signed_on).signature
    # the message claims another chain than the one signed: a different signer recovers
    action = signed_action(item["action"], 1)
    async with VenueClient(url) as client:
        with pytest.raises(VenueError):
            await client.exchange(action, nonce, split_signature(raw))
        perps = await client.clearinghouse_state(wallet.address)
    assert perps.withdrawable == Decimal("100")
