"""Sending from Bitcoin in the app, from the keyboard, against the demo world: the Quote screen
quotes BTC from the profile's Bitcoin wallet (the world file's), the confirm dialog says the PSBT
in words (its inputs, the deposit, the change, the fee in sats and sat/vB), and the request
reaches success with the change back in the wallet and the fee as shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from test_solana_app import _execute, _pick
from textual.widgets import Input
from tui_support import chains_loaded, make_app

from crossdeck.execute import events as ev

BITCOIN = 8253038


def _held(world: Any, address: str) -> int:
    utxos = httpx.get(f"{world.rpc[BITCOIN]}/address/{address}/utxo").json()
    return sum(int(u["value"]) for u in utxos)


def _withdrawable(world: Any) -> float:
    body = {"type": "clearinghouseState", "user": world.wallet_address}
    return float(httpx.post(world.venue_url + "/info", json=body).json()["withdrawable"])


async def test_btc_to_base_eth_from_the_keyboard(world: Any, tui_dir: Path) -> None:
    wallet = world.info["wallet"]["bitcoin_address"]
    before = _held(world, wallet)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _pick(pilot, (BITCOIN, "BTC"), (8453, "ETH"))
        app.quote_screen.query_one("#amount", Input).value = "0.001"
        await pilot.pause(0.2)
        execute, dialogs = await _execute(pilot)
        assert execute.quote.details.sender == wallet
        assert execute.quote.details.recipient == world.wallet_address
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
    [dialog] = dialogs
    assert "deposit 0.001 BTC (100000 sats)" in dialog
    assert f"back to this wallet {wallet}" in dialog
    fee = before - 100_000 - _held(world, wallet)
    assert f"({fee} sats)" in dialog and "sat/vB" in dialog


async def test_btc_to_the_venue_perps_from_the_keyboard(world: Any, tui_dir: Path) -> None:
    before = _withdrawable(world)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _pick(pilot, (BITCOIN, "BTC"), (1337, "USDC"))
        app.quote_screen.query_one("#amount", Input).value = "0.001"
        await pilot.pause(0.2)
        execute, dialogs = await _execute(pilot)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
    assert "deposit 0.001 BTC (100000 sats)" in dialogs[0]
    assert _withdrawable(world) > before
