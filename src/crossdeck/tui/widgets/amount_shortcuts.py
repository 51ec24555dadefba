"""Under the Quote form's Amount: the wallet's balance of the From currency, and Max / 25% /
50% / 75% buttons that fill the amount. What Max is (gas kept on a native currency, the venue's
first-send fee) is `crossdeck.portfolio.spendable`'s; this widget reads it and shows it.

On a Solana or Bitcoin origin the balance is the profile's Solana or Bitcoin wallet's (SOL and
SPL tokens, BTC), read from the chain's RPC or Esplora API.

The balance is read again for each (wallet, chain, currency): the old one is cleared at once,
and a read that comes back for another key than the form's current one is dropped, so the line
never shows another wallet's or another currency's balance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.constants import VENUE_CHAIN_ID
from crossdeck.models.display import Unit, amount_text, exact_units_text

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse
    from crossdeck.portfolio.spendable import Spendable
    from crossdeck.venue.client import VenueClient

# (wallet, chain id, currency address): whose balance of what the line is about
BalanceKey = tuple[str, int, str]


def balance_lines(spendable: Spendable, symbol: str, exact: bool = False) -> tuple[Text, str]:
    """'balance 100,000 USDC' and, when Max is less than the balance, 'Max 22.9021 ETH: keeps
    …' (on its own line: a narrow pane would cut it), as a wallet shows amounts; `exact`:
    every digit ('balance 22.902094430166925409 ETH') and how Max was reckoned."""
    unit = Unit(symbol, spendable.decimals)
    shown = exact_units_text if exact else amount_text
    said = Text(f"balance {shown(spendable.held, unit)}")
    note = ""
    if spendable.most != spendable.held:
        note = f"Max {shown(spendable.most, unit)}"
        note += f": {spendable.note}" if spendable.note else ""
        note += f" ({spendable.detail})" if exact and spendable.detail else ""
    return said, note


class AmountShortcuts(Vertical):
    DEFAULT_CSS = """
    AmountShortcuts { height: auto; }
    AmountShortcuts #amount-keys { height: auto; padding-left: 11; }
    AmountShortcuts Button { min-width: 5; margin-right: 1; }
    AmountShortcuts #amount-balance { width: 1fr; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key: BalanceKey | None = None
        self.spendable: Spendable | None = None
        self.symbol = ""
        self.reading = False  # a read for `key` is under way
        self.exact = False  # every digit (ctrl+b) rather than a wallet's rounding

    def compose(self) -> ComposeResult:
        # the keys are mounted with the first balance (`_show`), after the first frame: built
        # with the form, each was styled twice more before it (tests/tui/test_screen_bars.py)
        with Horizontal(id="amount-keys"):
            yield Static("", id="amount-balance")
        yield Static("", id="amount-max-note", classes="hint")

    def _show(self, balance: str | Text, note: str = "") -> None:
        self.query_one("#amount-balance", Static).update(balance)
        max_note = self.query_one("#amount-max-note", Static)
        max_note.update(Text(note, style="dim"))
        max_note.display = bool(note)
        # how Max was reckoned (gas price, fee rate) is on hover, and drawn with every digit
        # (ctrl+b): drawn always, its digits wrapped and pushed the Options line out of 80x24
        max_note.tooltip = self.spendable.detail if self.spendable and note else None
        buttons = list(self.query(Button))
        if not buttons and self.spendable is not None:
            from crossdeck.portfolio.spendable import FRACTIONS

            buttons = [Button("Max", id="amount-max", compact=True)]
            buttons += [Button(f"{p}%", id=f"amount-{p}", compact=True) for p in FRACTIONS]
            self.query_one("#amount-keys", Horizontal).mount_all(buttons, before="#amount-balance")
        for button in buttons:
            button.disabled = self.spendable is None

    def clear(self, said: str = "") -> None:
        self.key, self.spendable, self.reading = None, None, False
        self._show(Text(said, style="dim"))

    def reload(
        self,
        key: BalanceKey,
        *,
        decimals: int,
        symbol: str,
        chains: ChainsResponse,
        rpc: Mapping[int, str],
        venue: VenueClient,
        family: str = "evm",
    ) -> None:
        """Read `key`'s balance afresh (the shown one is cleared first); `family`: the origin
        chain's (`models.addresses.Family`, from its /chains vmType), which says how its
        balance is read."""
        self.key, self.spendable, self.symbol = key, None, symbol
        self.reading = True
        self._show(Text("balance: reading…", style="dim"))
        self._read(key, decimals, symbol, chains, dict(rpc), venue, family)

    @work(group="balance", exclusive=True, exit_on_error=False, name="Reading the balance")
    async def _read(
        self,
        key: BalanceKey,
        decimals: int,
        symbol: str,
        chains: ChainsResponse,
        rpc: dict[int, str],
        venue: VenueClient,
        family: str,
    ) -> None:
        # here, after the first frame: the module reads /chains' models (pydantic), which the
        # app's start path never imports (tests/tui/test_quote_screen_imports.py)
        from crossdeck.models.addresses import Family
        from crossdeck.portfolio.spendable import (
            NotReadable,
            bitcoin_spendable,
            evm_spendable,
            svm_spendable,
            venue_spendable,
        )

        wallet, chain_id, currency = key
        read_on_chain = {Family.SOLANA: svm_spendable, Family.BITCOIN: bitcoin_spendable}.get(
            Family(family), evm_spendable
        )
        try:
            if chain_id == VENUE_CHAIN_ID:
                spendable = await venue_spendable(venue, chains, currency, wallet, decimals)
            elif chain_id in rpc:
                url = rpc[chain_id]
                spendable = await read_on_chain(url, chain_id, currency, wallet, decimals, symbol)
            else:
                raise NotReadable("no RPC URL for this chain (Settings, F6)")
        except (CrossdeckError, NotReadable) as exc:
            if self.key == key:
                self.reading = False
                self._show(Text(f"balance not read: {exc}", style="yellow"))
            return
        if self.key != key:  # the form moved on (another wallet, chain or currency)
            return
        self.spendable, self.reading = spendable, False
        self._show(*balance_lines(spendable, symbol, self.exact))

    def toggle_exact(self) -> None:
        """Every digit of the balance and Max, or back to a wallet's rounding (ctrl+b)."""
        self.exact = not self.exact
        if self.spendable is not None:
            self._show(*balance_lines(self.spendable, self.symbol, self.exact))

    @on(Button.Pressed, "#amount-keys Button")
    def _fill(self, event: Button.Pressed) -> None:
        event.stop()
        spendable = self.spendable
        if spendable is None or event.button.id is None:
            return
        which = event.button.id.removeprefix("amount-")
        units = spendable.most if which == "max" else spendable.fraction(int(which))
        self.screen.query_one("#amount", Input).value = spendable.text(units)
