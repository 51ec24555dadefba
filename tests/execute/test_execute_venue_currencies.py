"""Venue withdrawals from every kind of venue currency (perps, spot, HIP-3), and from a world
that runs under the public brand: the client derives every brand-bearing name from the quote."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import VENUE_UNIT, Kit, finished, new_address, usdc_address

from crossdeck.execute import AwaitingSignature
from crossdeck.venue import hip3_address

SPOT_USDC = "0x6d1e7cde53ba9467b783cb7c530ce054"


async def withdraw(kit: Kit, currency: str, units: int) -> tuple[Any, list[Any], str]:
    kit.world.ledger.credit(kit.address, currency, 100 * VENUE_UNIT)
    recipient = new_address()
    quote, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=currency,
        destination_currency=usdc_address(kit.world, 8453),
        amount=str(units),
        recipient=recipient,
        protocol_version="v2",
    )
    events = await kit.run(quote, request=request)
    return quote, events, recipient


@pytest.mark.parametrize(
    ("currency", "dex"),
    [(SPOT_USDC, "spot"), (hip3_address(SPOT_USDC, "xyz"), "xyz")],
    ids=["spot", "hip3"],
)
async def test_withdrawal_from_spot_and_hip3(py_kit: Kit, currency: str, dex: str) -> None:
    kit = py_kit
    before = kit.world.ledger.balance(kit.address, currency)
    quote, events, recipient = await withdraw(kit, currency, 20 * VENUE_UNIT)

    assert finished(events).status == "success"
    send = [e.what for e in events if isinstance(e, AwaitingSignature)][-1]
    assert send.payload["message"]["sourceDex"] == dex
    assert send.payload["message"]["token"] == f"USDC:{SPOT_USDC}"
    guards = {g.name: g for g in send.guards}
    book = "spot" if dex == "spot" else f"the {dex} DEX"
    assert guards["send-asset-token"].ok and guards["send-asset-dex"].ok
    assert f"sends USDC:{SPOT_USDC}, the venue's own name" in guards["send-asset-token"].message
    assert f"leaves your {book} balance and lands on {book}" in guards["send-asset-dex"].message
    assert await kit.usdc(8453, recipient) == quote.details.currency_out.amount
    # 20 sent (plus the 1 USDC first-send fee, taken from the same book)
    after = kit.world.ledger.balance(kit.address, currency)
    assert before + 100 * VENUE_UNIT - after == 21 * VENUE_UNIT


@pytest.fixture(scope="module")
def public_world(start_world: Callable[..., Any]) -> Iterator[Any]:
    with start_world("py-evm", brand="public") as world:
        yield world


async def test_public_brand_names_come_from_the_quote(public_world: Any, tmp_path: Path) -> None:
    kit = Kit(public_world, tmp_path / "journal.sqlite3", signing_chain_id=8453)
    try:
        quote, events, recipient = await withdraw(kit, "0x" + "0" * 32, 30 * VENUE_UNIT)
        assert finished(events).status == "success"
        authorize, send = [e.what for e in events if isinstance(e, AwaitingSignature)]
        assert authorize.payload["domain"]["name"] == "RelayNonceMapping"
        assert authorize.payload["domain"]["chainId"] == 8453
        assert authorize.payload["message"]["chainId"] == "hyperliquid"
        assert send.payload["domain"]["name"] == "HyperliquidSignTransaction"
        assert send.payload["primaryType"] == "HyperliquidTransaction:SendAsset"
        assert send.payload["message"]["hyperliquidChain"] == "Mainnet"
        assert send.payload["message"]["signatureChainId"] == "0x2105"
        assert await kit.usdc(8453, recipient) == quote.details.currency_out.amount
    finally:
        await kit.aclose()
