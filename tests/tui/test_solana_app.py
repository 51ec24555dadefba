"""The app with Solana and Bitcoin against the demo world, from the keyboard: the chain pickers
offer them; a Venue deposit from Solana USDC (the Venue screen's form, then the Quote screen)
is confirmed with its Solana instructions in words and raises the withdrawable balance; a quote
from 8453 USDC to Solana pays the profile's Solana wallet and lands there; a Bitcoin recipient
of the wrong family is refused on the form, naming the field."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from textual.widgets import Input, Static
from tui_support import (
    chains_loaded,
    make_app,
    notifications,
    open_options,
    pick,
    screen_text,
    wait_until,
)

from crossdeck.execute import events as ev
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen
from crossdeck.tui.widgets.picker import Picker

SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"


def _withdrawable(world: Any) -> Decimal:
    body = {"type": "clearinghouseState", "user": world.wallet_address}
    return Decimal(httpx.post(world.venue_url + "/info", json=body).json()["withdrawable"])


def _spl_usdc(world: Any, owner: str) -> int:
    body = {
        "jsonrpc": "2.0", "id": 1, "method": "getTokenAccountsByOwner",
        "params": [owner, {"mint": SOLANA_USDC}, {"encoding": "jsonParsed"}],
    }  # fmt: skip
    answer = httpx.post(world.rpc[SOLANA_CHAIN_ID], json=body).json()
    return sum(
        int(a["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"])
        for a in answer["result"]["value"]
    )


async def _execute(pilot: Any) -> tuple[ExecuteScreen, list[str]]:
    app = pilot.app
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
    await pilot.press("ctrl+g")
    execute = await wait_until(
        pilot,
        lambda: next((s for s in app.screen_stack if isinstance(s, ExecuteScreen)), None),
        what="the Execute screen",
    )
    dialogs = []
    while True:
        # a dialog counts once its lines are mounted (pushed is not yet composed)
        await wait_until(
            pilot,
            lambda: (
                (isinstance(app.screen, ConfirmScreen) and app.screen.query("#confirm-lines"))
                or execute.outcome is not None
            ),
            what="a confirm dialog or the end",
            within=60,
        )
        if execute.outcome is not None and not isinstance(app.screen, ConfirmScreen):
            break
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        lines = dialog.query_one("#confirm-lines", Static).content
        dialogs.append(screen_text(app) + "\n" + getattr(lines, "plain", str(lines)))
        assert dialog.request.guards and all(g.ok for g in dialog.request.guards)
        await pilot.press("y")
        await wait_until(pilot, lambda d=dialog: app.screen is not d, what="it to close")
    return execute, dialogs


async def test_venue_deposit_from_solana_usdc_from_the_keyboard(world: Any, tui_dir: Path) -> None:
    before = _withdrawable(world)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.press("f3")
        await wait_until(pilot, lambda: "USDC from perps" in screen_text(app), what="venue")
        venue = app.screen
        chain = venue.query_one("#dep-chain", Picker)
        offered = [value for _, value in chain.options]
        assert SOLANA_CHAIN_ID in offered and 8253038 not in offered  # no Bitcoin wallet
        await pick(pilot, "#dep-chain", f"({SOLANA_CHAIN_ID})")
        assert chain.value == SOLANA_CHAIN_ID
        # the currencies follow the chain, USDC first
        assert venue.query_one("#dep-currency", Picker).value == SOLANA_USDC
        venue.query_one("#dep-amount", Input).value = "4"
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="the Quote screen")
        await wait_until(
            pilot, lambda: app.quote_screen.form_values().amount == "4", what="the form"
        )
        execute, dialogs = await _execute(pilot)
        assert len(dialogs) == 1
        assert "the service's depository: deposit 4000000 units of mint" in dialogs[0]
        assert "4 USDC (4000000)" in dialogs[0]
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
        sent = [e for e in execute.events if isinstance(e, ev.TxSent)]
        assert len(sent) == 1 and sent[0].chain_id == SOLANA_CHAIN_ID
    assert _withdrawable(world) > before


async def test_base_usdc_to_solana_pays_the_solana_wallet(world: Any, tui_dir: Path) -> None:
    solana_wallet = world.info["wallet"]["solana_address"]
    before = _spl_usdc(world, solana_wallet)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        quote = app.quote_screen
        offered = [value for _, value in quote.query_one("#destination-chain", Picker).options]
        assert SOLANA_CHAIN_ID in offered and 8253038 in offered
        await _pick(pilot, (8453, "USDC"), (SOLANA_CHAIN_ID, "USDC"))
        assert quote.form_values().destination_currency == SOLANA_USDC
        quote.query_one("#amount", Input).value = "3"
        await pilot.pause(0.2)
        execute, dialogs = await _execute(pilot)
        assert len(dialogs) == 2  # approve, deposit
        assert execute.quote.details.recipient == solana_wallet
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
        out = int(execute.quote.details.currency_out.amount)
    assert _spl_usdc(world, solana_wallet) - before == out


async def test_a_recipient_of_the_wrong_family_is_refused_on_the_form(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        quote = app.quote_screen
        await pick(pilot, "#destination-chain", "(8253038)")
        await open_options(pilot)
        quote.query_one("#recipient", Input).value = world.info["wallet"]["solana_address"]
        quote.query_one("#amount", Input).value = "0.01"
        await pilot.pause(0.1)
        await pilot.press("ctrl+r")
        await wait_until(
            pilot,
            lambda: any("takes a Bitcoin address" in n[1] for n in notifications(app)),
            what="the refusal",
        )
        assert quote.quote is None
        said = next(n[1] for n in notifications(app) if "Bitcoin" in n[1])
        assert said.startswith("recipient")


async def _pick(pilot: Any, origin: tuple[int, str], destination: tuple[int, str]) -> None:
    quote = pilot.app.quote_screen
    for side, (chain_id, symbol) in (("origin", origin), ("destination", destination)):
        await pick(pilot, f"#{side}-chain", f"({chain_id})")
        assert quote.query_one(f"#{side}-chain", Picker).value == chain_id
        await pick(pilot, f"#{side}-currency", symbol.lower())
        label = quote.query_one(f"#{side}-currency", Picker).label()
        assert label is not None and label.plain.startswith(symbol), label


async def test_solana_sol_to_base_eth_from_the_keyboard(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _pick(pilot, (SOLANA_CHAIN_ID, "SOL"), (8453, "ETH"))
        app.quote_screen.query_one("#amount", Input).value = "0.2"
        await pilot.pause(0.2)
        execute, dialogs = await _execute(pilot)
        assert "deposit 200000000 lamports of SOL" in dialogs[0]
        assert execute.quote.details.recipient == world.wallet_address
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome


async def test_base_eth_to_a_bitcoin_recipient_from_the_keyboard(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await _pick(pilot, (8453, "ETH"), (8253038, "BTC"))
        await open_options(pilot)
        app.quote_screen.query_one(
            "#recipient", Input
        ).value = "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"
        app.quote_screen.query_one("#amount", Input).value = "0.01"
        await pilot.pause(0.2)
        execute, _ = await _execute(pilot)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
