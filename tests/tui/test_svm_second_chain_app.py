"""The app on the world's second SVM chain (Eclipse, 9286185), from the keyboard: its chain
picker offers it, an Eclipse ETH deposit to Base ETH is confirmed with its instructions in
Eclipse's own currency (never SOL), sent on Eclipse and reaches success, paying the EVM
wallet (the family of each chain is /chains')."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_solana_app import _execute, _pick
from textual.widgets import Input
from tui_support import chains_loaded, make_app

from crossdeck.execute import events as ev

ECLIPSE = 9286185


async def test_eclipse_eth_to_base_eth_from_the_keyboard(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _pick(pilot, (ECLIPSE, "ETH"), (8453, "ETH"))
        app.quote_screen.query_one("#amount", Input).value = "0.02"
        await pilot.pause(0.2)
        execute, dialogs = await _execute(pilot)
        assert "one transaction on Eclipse (9286185)" in dialogs[0]
        assert "deposit 20000000 lamports of ETH" in dialogs[0]
        assert "lamports of SOL" not in dialogs[0]
        quote = execute.quote
        assert quote.details.currency_in.currency.chain_id == ECLIPSE
        assert quote.details.sender == world.info["wallet"]["solana_address"]
        assert quote.details.recipient == world.wallet_address
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
