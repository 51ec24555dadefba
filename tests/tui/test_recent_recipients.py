"""Recent recipients in the Quote options (a wallet's shortcut): an address a run actually sent
to is remembered in the app's state file (public addresses only, never a key), and offered
again, after a restart, in the options' 'recent' list of destinations of the same chain family
only, chosen from the keyboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_solana_app import _execute
from textual.widgets import Input
from tui_support import chains_loaded, make_app, open_options, pick, wait_until

from crossdeck.execute import events as ev
from crossdeck.models import NATIVE_ADDRESS
from crossdeck.tui.widgets.picker import Picker

# the second of the well-known development accounts: an EVM address that is not the wallet's
THEIRS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
HYPEREVM = 999


async def test_a_recipient_sent_to_is_offered_again_for_its_family_only(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        options = await open_options(pilot)
        assert options.query_one("#recent-recipients", Picker).options == []  # nothing sent yet
        screen.apply_values(
            screen.form_values().with_changes(
                destination_chain_id=HYPEREVM,
                destination_currency=NATIVE_ADDRESS,
                amount="0.01",
                recipient=THEIRS,
            )
        )
        await pilot.pause(0.2)
        execute, _ = await _execute(pilot)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
        assert execute.quote.details.recipient.lower() == THEIRS.lower()

    state_file = tui_dir / "tui-state.json"
    saved = state_file.read_text()
    assert json.loads(saved)["recipients"] == {"evm": [THEIRS]}
    assert world.wallet_key.removeprefix("0x") not in saved and world.api_key not in saved

    again = make_app(world, tui_dir)  # a restart: the same state file
    async with again.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = again.quote_screen
        screen.apply_values(
            screen.form_values().with_changes(
                destination_chain_id=HYPEREVM, destination_currency=NATIVE_ADDRESS
            )
        )
        options = await open_options(pilot)
        recent = options.query_one("#recent-recipients", Picker)
        await wait_until(pilot, lambda: [v for _, v in recent.options] == [THEIRS], what="offer")
        await pick(pilot, "#recent-recipients", "7099")  # from the keyboard: type, Enter
        assert options.query_one("#recipient", Input).value == THEIRS
        assert screen.form_values().recipient == THEIRS
        assert recent.is_blank  # it reads 'recent…' again, the address is in the field

        solana = next(c for c in screen.chains.chains if c.vm_type == "svm")
        screen.apply_values(
            screen.form_values().with_changes(
                destination_chain_id=solana.id, destination_currency=None, recipient=""
            )
        )
        await wait_until(pilot, lambda: recent.options == [], what="no EVM address for Solana")
