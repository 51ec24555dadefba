"""The Quote form's balance beside Amount, and Max / 25% / 50% / 75%, against the world: the
balance is the chain's (or the venue's), Max keeps the gas of a native payment and the venue's
first-send fee of a withdrawal."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_solana_app import _execute
from textual.widgets import Input, Static
from tui_support import chains_loaded, make_app, screen_text, settled_text, wait_until

from crossdeck.execute import events as ev
from crossdeck.models import NATIVE_ADDRESS, VENUE_CHAIN_ID
from crossdeck.models.display import Unit, amount_text, exact_units_text
from crossdeck.portfolio.spendable import (
    DEPOSIT_FRAME_VBYTES,
    LAMPORTS_PER_SIGNATURE,
    P2WPKH_INPUT_VBYTES,
    PAYMENT_GAS_LIMIT,
)
from crossdeck.venue.account import read_account
from crossdeck.venue.client import VenueClient
from crossdeck.wallet.gateway import EvmGateway


def _shortcuts(app: Any) -> Any:
    return app.quote_screen.query_one("#amount-shortcuts")


async def _read(pilot: Any, key: tuple[str, int, str]) -> Any:
    shortcuts = _shortcuts(pilot.app)
    await wait_until(
        pilot,
        lambda: shortcuts.spendable is not None and shortcuts.key == key,
        what=f"the balance of {key}",
    )
    return shortcuts.spendable


def _how_max_was_reckoned(app: Any) -> str:
    """How Max was reckoned: the Max note's tooltip (80x24 draws the note on one line:
    tests/tui/test_quote_screen.py)."""
    return str(app.quote_screen.query_one("#amount-max-note", Static).tooltip)


async def test_native_max_keeps_gas_and_fractions_fill_the_amount(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        values = screen.form_values()
        assert values.origin_currency == NATIVE_ADDRESS
        chain_id = values.origin_chain_id
        spendable = await _read(pilot, (world.wallet_address, chain_id, NATIVE_ADDRESS))
        async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
            held = await gateway.balance(world.wallet_address)
        assert spendable.held == held
        kept = spendable.held - spendable.most
        assert kept > 0 and kept % PAYMENT_GAS_LIMIT == 0  # max fee per gas x the margin
        assert f"{PAYMENT_GAS_LIMIT:,} gas at " in spendable.detail
        assert _how_max_was_reckoned(app) == spendable.detail
        eth = Unit("ETH", spendable.decimals)
        # as a wallet shows them (the one display function), every digit one key away
        assert f"balance {amount_text(held, eth)}" in (await settled_text(pilot))
        assert f"Max {amount_text(spendable.most, eth)}: keeps" in (await settled_text(pilot))
        await pilot.press("ctrl+b")

        def shown_balance() -> str:  # every digit may wrap onto a second line: read the widget
            return " ".join(str(screen.query_one("#amount-balance", Static).content).split())

        exact = exact_units_text(held, eth)
        await wait_until(
            pilot, lambda: shown_balance() == f"balance {exact}", what="the exact balance"
        )
        # and drawn whole, on the line the keys are on and the one below (not cut to
        # 'balance'): the frame after the widget's new text is laid out, so it is waited for

        def drawn() -> str:
            lines = screen_text(app).splitlines()
            row = next(i for i, ln in enumerate(lines) if " balance " in ln and "Max" in ln)
            return " ".join(lines[row : row + 3])

        await wait_until(
            pilot,
            lambda: all(part in drawn() for part in exact.split()),
            what=f"{exact} drawn whole beside the keys",
        )
        # every digit of Max and of how it was reckoned, for the balance read now: the form
        # reads it again as blocks come (the gas price moves), so it is the form's own reading;
        # the note's widget is read (it wraps where its digits fall, beside the other pane)

        def max_note_matches() -> bool:
            now = _shortcuts(app).spendable
            widget = screen.query_one("#amount-max-note", Static)
            note = " ".join(str(widget.content).split())
            most = f"Max {exact_units_text(now.most, eth)}: keeps"
            return most in note and f"({now.detail})" in note

        await wait_until(pilot, max_note_matches, what="Max and its reckoning, every digit")
        await pilot.press("ctrl+b")
        await wait_until(
            pilot,
            lambda: f"balance {amount_text(held, eth)}" in screen_text(app),
            what="the rounded balance again",
        )
        await pilot.click("#amount-max")
        spendable = _shortcuts(app).spendable  # what the keys fill from (read again as above)
        amount = screen.query_one("#amount", Input)
        assert amount.value == spendable.text(spendable.most)
        await pilot.click("#amount-50")
        assert amount.value == spendable.text(spendable.most * 50 // 100)
        await pilot.click("#amount-25")
        assert amount.value == spendable.text(spendable.most // 4)


async def test_venue_withdrawal_max_is_the_accounts_max_send(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        screen.apply_values(
            screen.form_values().with_changes(origin_chain_id=VENUE_CHAIN_ID, origin_currency=None)
        )
        values = screen.form_values()
        assert values.origin_chain_id == VENUE_CHAIN_ID
        currency = values.origin_currency
        assert currency is not None
        spendable = await _read(pilot, (world.wallet_address, VENUE_CHAIN_ID, currency))
        venue = VenueClient(world.venue_url)
        try:
            account = await read_account(venue, world.wallet_address, [])
        finally:
            await venue.aclose()
        book = "perps" if currency == "0x" + "0" * 32 else "spot"
        scale = 10 ** (8 - spendable.decimals) if spendable.decimals <= 8 else 1
        assert spendable.most == account.max_send(book) // scale
        assert spendable.held == account.withdrawable(book) // scale
        if account.first_send_fee_due:
            assert spendable.held > spendable.most
            fee = amount_text(account.first_send_fee, Unit("USDC", 8))
            assert f"keeps the venue's first-send fee {fee}" in spendable.note
        await pilot.click("#amount-max")
        assert screen.query_one("#amount", Input).value == spendable.text(spendable.most)


async def test_another_wallet_clears_the_balance_at_once(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        values = app.quote_screen.form_values()
        key = (world.wallet_address, values.origin_chain_id, values.origin_currency)
        mine = await _read(pilot, key)
        assert mine.held > 0
        shortcuts = _shortcuts(app)
        other = ("0x" + "11" * 20, key[1], key[2])
        shortcuts.reload(
            other,
            decimals=18,
            symbol="ETH",
            chains=app.quote_screen.chains,
            rpc=dict(world.rpc),
            venue=app.services.venue,
        )
        assert shortcuts.spendable is None  # the first wallet's balance is gone at once
        assert f"balance {amount_text(mine.held, Unit('ETH', 18))}" not in (
            await settled_text(pilot)
        )
        theirs = await _read(pilot, other)
        assert theirs.wallet == other[0] and theirs.held == 0 and theirs.most == 0


async def test_a_token_balance_reads_with_thousands_separated(world: Any, tui_dir: Path) -> None:
    """The world's wallet holds USDC by the thousand: the line beside Amount separates them,
    as the one display function does everywhere ('balance 100,000 USDC')."""
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        screen = app.quote_screen
        chain_id = screen.form_values().origin_chain_id
        chain = screen.chains.by_id(chain_id)
        usdc = next(c for c in chain.currencies if c.symbol == "USDC")
        screen.apply_values(screen.form_values().with_changes(origin_currency=usdc.address))
        spendable = await _read(pilot, (world.wallet_address, chain_id, usdc.address))
        async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
            held = await gateway.erc20_balance(usdc.address, world.wallet_address)
        assert spendable.held == spendable.most == held >= 1000 * 10**usdc.decimals
        said = f"balance {amount_text(held, Unit('USDC', usdc.decimals))}"
        assert "," in said and said in (await settled_text(pilot))
        assert f"balance {held // 10**usdc.decimals} USDC" not in (await settled_text(pilot))


def _get(url: str) -> Any:
    return httpx.get(url).json()


def _rpc(url: str, method: str, *params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    return httpx.post(url, json=body).json()["result"]


async def _origin(pilot: Any, vm_type: str, symbol: str) -> tuple[int, str]:
    """Put the first /chains chain of `vm_type` and its `symbol` currency on the From side."""
    screen = pilot.app.quote_screen
    chain = next(c for c in screen.chains.chains if c.vm_type == vm_type)
    currency = next(c for c in chain.currencies if c.symbol == symbol)
    screen.apply_values(
        screen.form_values().with_changes(
            origin_chain_id=chain.id, origin_currency=currency.address
        )
    )
    return chain.id, currency.address


async def test_solana_origin_shows_sol_and_spl_balances_and_max_keeps_fee_and_rent(
    world: Any, tui_dir: Path
) -> None:
    """A Solana origin (the chain /chains names vmType svm) reads the profile's Solana wallet:
    SOL with Max leaving a signature's fee and the rent-exempt minimum, an SPL token whole."""
    owner = world.info["wallet"]["solana_address"]
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        chain_id, sol = await _origin(pilot, "svm", "SOL")
        url = world.rpc[chain_id]
        spendable = await _read(pilot, (owner, chain_id, sol))
        held = _rpc(url, "getBalance", owner)["value"]
        rent = _rpc(url, "getMinimumBalanceForRentExemption", 0)
        assert spendable.held == held > 0
        assert spendable.held - spendable.most == LAMPORTS_PER_SIGNATURE + rent
        unit = Unit("SOL", spendable.decimals)
        text = await settled_text(pilot)
        assert f"balance {amount_text(held, unit)}" in text
        assert f"Max {amount_text(spendable.most, unit)}: keeps" in text
        assert "rent-exempt" in _how_max_was_reckoned(app)
        await pilot.click("#amount-max")
        amount = app.quote_screen.query_one("#amount", Input)
        assert amount.value == spendable.text(spendable.most)

        _, usdc = await _origin(pilot, "svm", "USDC")
        token = await _read(pilot, (owner, chain_id, usdc))
        accounts = _rpc(url, "getTokenAccountsByOwner", owner, {"mint": usdc},
                        {"encoding": "jsonParsed"})["value"]  # fmt: skip
        spl = sum(
            int(a["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"]) for a in accounts
        )
        assert token.held == token.most == spl > 0
        assert f"balance {amount_text(spl, Unit('USDC', token.decimals))}" in (
            await settled_text(pilot)
        )


@pytest.fixture
def btc_world(start_world: Any) -> Iterator[Any]:
    """A world of this test's own: a run of Max empties its Bitcoin wallet."""
    with start_world("py-evm") as world:
        yield world


async def test_bitcoin_origin_max_keeps_the_fee_at_the_fastest_rate(
    btc_world: Any, tui_dir: Path
) -> None:
    """A Bitcoin origin reads the profile's Bitcoin wallet's unspent outputs; Max leaves the
    fee of a deposit spending them all at the Esplora API's fastest estimate, and a quote and
    run of exactly Max succeeds."""
    owner = btc_world.info["wallet"]["bitcoin_address"]
    app = make_app(btc_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        chain_id, btc = await _origin(pilot, "bvm", "BTC")
        url = btc_world.rpc[chain_id]
        spendable = await _read(pilot, (owner, chain_id, btc))
        utxos = _get(f"{url}/address/{owner}/utxo")
        fastest = max(_get(f"{url}/fee-estimates").values())
        assert spendable.held == sum(int(u["value"]) for u in utxos) > 0
        vbytes = DEPOSIT_FRAME_VBYTES + P2WPKH_INPUT_VBYTES * len(utxos)
        assert spendable.held - spendable.most == math.ceil(fastest * vbytes)
        unit = Unit("BTC", spendable.decimals)
        text = await settled_text(pilot)
        assert f"balance {amount_text(spendable.held, unit)}" in text
        assert f"Max {amount_text(spendable.most, unit)}: keeps" in text
        assert "sat/vB" in _how_max_was_reckoned(app)
        await pilot.click("#amount-25")
        amount = app.quote_screen.query_one("#amount", Input)
        assert amount.value == spendable.text(spendable.most // 4)
        # Max is payable: the service's PSBT of exactly Max, fee included, is signed and lands
        screen = app.quote_screen
        screen.apply_values(
            screen.form_values().with_changes(
                destination_chain_id=8453, destination_currency=NATIVE_ADDRESS
            )
        )
        await pilot.pause(0.2)
        await pilot.click("#amount-max")
        assert amount.value == spendable.text(spendable.most)
        execute, _ = await _execute(pilot)
        outcome = execute.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
        assert int(execute.quote.details.currency_in.amount) == spendable.most
