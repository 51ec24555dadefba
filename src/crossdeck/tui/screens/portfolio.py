"""Portfolio: what the wallet holds on every chain of /chains (EVM, and Solana where the profile
has a Solana address) and on the venue, read by the same layer as `crossdeck balances` (one
Multicall3 call per EVM chain, all chains at once, priced by the service). The total on top;
one row per asset, opened with enter to one row per chain; `m` on a chain's row starts a quote
from that chain and currency. Read again on ctrl+r and whenever a request the app follows ends
(its balances moved), and at once when the signer or wallet changes: a reading is shown
only under the wallet it was read for, with its age on the total line."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import ClassVar

from rich.console import JustifyMethod
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker

from crossdeck.base.errors import CrossdeckError
from crossdeck.config import Settings
from crossdeck.portfolio import Portfolio
from crossdeck.tui import waits
from crossdeck.tui.notices import describe_error
from crossdeck.tui.portfolio_rows import (
    HEADERS,
    Row,
    asset_key,
    fit_notes,
    portfolio_rows,
    total_line,
)
from crossdeck.tui.screens.base import WIDE_SCREEN, ModeScreen
from crossdeck.tui.waits import service_at, within

READING = "Reading every chain and the venue…"
AGE_TICK_SECONDS = 5.0  # how often the reading's age on the total line moves on


def _solana_address(settings: Settings) -> str | None:
    """The profile's Solana address, if it has one (blocking: the keyring); none for a
    read-only signer, whose address alone is read (as `crossdeck --from ADDR balances`)."""
    from crossdeck.credentials import resolve_solana_address

    if settings.signer.kind == "read-only":
        return None
    try:
        return resolve_solana_address(settings)
    except CrossdeckError:
        return None  # a locked or broken keyring: the other chains still show


class PortfolioLoaded(Message):
    """A reading, with the addresses it was read for: one whose wallet is no longer the
    app's (the signer changed while it was read) is dropped, never shown under another name."""

    def __init__(self, portfolio: Portfolio, owners: dict[str, str]) -> None:
        super().__init__()
        self.portfolio = portfolio
        self.owners = owners


class PortfolioScreen(ModeScreen):
    MODE = "portfolio"
    DEFAULT_CSS = """
    #portfolio-body { height: 1fr; }
    #portfolio-total { height: auto; margin-bottom: 1; }
    #portfolio-table { height: 1fr; }
    #portfolio-detail { height: auto; max-height: 3; color: $text-muted; }
    """
    BINDINGS: ClassVar = [
        Binding(
            "ctrl+r",
            "refresh",
            "Refresh",
            id="portfolio.refresh",
            priority=True,
            tooltip="Read every chain and the venue again",
        ),
        Binding(
            "m",
            "move",
            "Move this",
            id="portfolio.move",
            tooltip="Open the Quote screen with this row's chain and currency as the origin",
        ),
        Binding(
            "enter",
            "expand",
            "Chains",
            id="portfolio.expand",
            tooltip="Show or hide an asset's row per chain",
            show=True,
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.portfolio: Portfolio | None = None
        self.expanded: set[str] = set()
        self.rows: dict[str, Row] = {}
        self._finals: set[str] = set()  # followed requests already seen final
        self._cursor_to: str | None = None  # the row the cursor goes to on the next render
        self.read_at: float | None = None  # time.monotonic() of the reading shown
        self._wide: bool | None = None  # the width the rows were last laid out for
        self.owners: dict[str, str] = {}  # whose reading is shown

    def compose_body(self) -> ComposeResult:
        with Vertical(id="portfolio-body", classes="pane"):
            yield Static(READING, id="portfolio-total")
            yield DataTable(id="portfolio-table", cursor_type="row", zebra_stripes=False)
            yield Static("", id="portfolio-detail")

    def on_mount(self) -> None:
        self.query_one("#portfolio-body").border_title = "Portfolio"
        self._add_columns(self.query_one("#portfolio-table", DataTable))
        self._finals = self._final_requests()
        self.crossdeck.live_changed.subscribe(self, self._on_live_changed)
        # immediate: the last wallet's numbers go in the same turn as the title bar changes
        self.crossdeck.wallet_changed.subscribe(self, self._on_wallet_changed, immediate=True)
        self.set_interval(AGE_TICK_SECONDS, self._show_total)  # the reading's age goes on
        self.load()

    async def _owners(self) -> dict[str, str]:
        """The addresses the app's wallet reads as, per chain family."""
        app = self.crossdeck
        owner = app.services.wallet_address
        owners = {"evm": owner, "venue": owner} if owner else {}
        solana = await asyncio.to_thread(_solana_address, app.services.settings)
        if solana:
            owners["svm"] = solana
        return owners

    # -- reading ------------------------------------------------------------------------------

    @work(group="portfolio", exclusive=True, exit_on_error=False, name="Reading the portfolio")
    async def load(self) -> None:
        from crossdeck import compose
        from crossdeck.portfolio import read_portfolio

        app = self.crossdeck
        await app.services_ready.wait()
        owners = await self._owners()
        if not owners:
            self.query_one("#portfolio-total", Static).update(
                Text("no wallet address for this profile: `crossdeck wallet import`", "yellow")
            )
            return
        if self.portfolio is not None:
            self.query_one("#portfolio-detail", Static).update("reading again…")
        services, settings = app.services, app.settings
        chains = await within(
            services.chains(),
            what="the service (/chains)",
            where=service_at(settings),
            retry="ctrl+r",
        )
        # no limit around the whole reading: a slow chain or a slow price would then lose every
        # row read. Each chain gets half the app's network wait to be read and half to be
        # priced, so within that wait every chain shows: read, unreachable, or without a price
        portfolio = await read_portfolio(
            chains,
            owners,
            service=services.service,
            readers=compose.portfolio_readers(settings, services.venue),
            chain_seconds=waits.NETWORK_WAIT_SECONDS / 2,
        )
        self.post_message(PortfolioLoaded(portfolio, owners))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # (the base class's handler, called as well, notifies)
        error = event.worker.error
        if event.worker.group == "portfolio" and error is not None:
            text = Text("The portfolio could not be read\n", style="bold red")
            text.append(describe_error(error).message)
            self.query_one("#portfolio-total", Static).update(text)

    async def on_portfolio_loaded(self, message: PortfolioLoaded) -> None:
        if message.owners != await self._owners():
            return  # read for the wallet before a signer change; its own reading is under way
        self.portfolio = message.portfolio
        self.owners = message.owners
        self.read_at = time.monotonic()
        if not self.expanded:  # first reading: an asset held on one chain only is open
            self.expanded = {
                total.asset for total in message.portfolio.assets() if len(total.holdings) == 1
            }
        self.render_rows()

    def render_rows(self) -> None:
        portfolio = self.portfolio
        if portfolio is None:
            return
        self._show_total()
        table = self.query_one("#portfolio-table", DataTable)
        cursor_key = self._cursor_to or self._cursor_key()
        self._cursor_to = None
        # columns=True: their widths are measured again from these rows (a resize to 80
        # columns must not keep the wide rows' widths and push USD off the screen)
        table.clear(columns=True)
        self._add_columns(table)
        wide = self._wide = self.app.size.width >= WIDE_SCREEN
        rows = fit_notes(portfolio_rows(portfolio, self.expanded, wide=wide))
        self.rows = {row.key: row for row in rows}
        for row in rows:
            style = {"asset": "bold", "unreachable": "bold red", "note": "yellow"}.get(row.kind, "")
            usd = Text(row.usd, style="yellow" if row.usd == "no price" else style)
            # figures right-aligned so that their digits line up (an unreachable row's or a
            # note's words not)
            words = row.kind in ("unreachable", "note")
            justify: JustifyMethod = "left" if words else "right"
            usd.justify = amount_justify = justify
            table.add_row(
                Text(row.label, style=style),
                Text(row.amount, style=style, justify=amount_justify),
                usd,
                key=row.key,
                height=row.amount.count("\n") + 1,  # a note folded on its lines
            )
        if not rows:
            self.query_one("#portfolio-detail", Static).update("nothing held on the chains read")
            return
        keys = [row.key for row in rows]
        table.move_cursor(row=keys.index(cursor_key) if cursor_key in keys else 0)
        self._show_detail()

    @staticmethod
    def _add_columns(table: DataTable[Text]) -> None:
        for header, key in zip(HEADERS, ("label", "amount", "usd"), strict=True):
            table.add_column(header, key=key)

    def on_resize(self) -> None:
        """Resized live across the wide/narrow line: the rows laid out again as if the app had
        started at this size (the exact integers only where they fit)."""
        wide = self.app.size.width >= WIDE_SCREEN
        if self.is_mounted and self.portfolio is not None and self._wide != wide:
            self.render_rows()

    def _show_total(self) -> None:
        """Whose numbers, the total, and how old the reading is."""
        portfolio = self.portfolio
        if portfolio is None or self.read_at is None:
            return
        age = time.monotonic() - self.read_at
        total = Text(total_line(portfolio, age_seconds=age), style="bold")
        self.query_one("#portfolio-total", Static).update(total)

    def _cursor_key(self) -> str | None:
        table = self.query_one("#portfolio-table", DataTable)
        if table.row_count == 0:
            return None
        try:
            return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except Exception:  # no cell under the cursor
            return None

    def _current(self) -> Row | None:
        key = self._cursor_key()
        return self.rows.get(key) if key is not None else None

    @on(DataTable.RowHighlighted, "#portfolio-table")
    def _show_detail(self) -> None:
        row = self._current()
        self.query_one("#portfolio-detail", Static).update(row.detail if row else "")

    # -- refresh when a followed request ends ------------------------------------------------

    def _final_requests(self) -> set[str]:
        live = self.crossdeck.live
        return {rid for rid, tracked in live.requests.items() if tracked.final}

    def _on_wallet_changed(self, wallet: str | None) -> None:
        """Another signer or wallet: the last one's numbers go at once, the new one's are read."""
        if self.portfolio is None and not self.owners:
            self.load()
            return
        self.portfolio = None
        self.owners = {}
        self.read_at = None
        self.rows = {}
        self.query_one("#portfolio-table", DataTable).clear()
        self.query_one("#portfolio-detail", Static).update("")
        self.query_one("#portfolio-total", Static).update(
            f"Reading {wallet or 'the new wallet'} on every chain and the venue…"
        )
        self.load()

    def _on_live_changed(self, request_id: str | None) -> None:
        finals = self._final_requests()
        ended = finals - self._finals
        self._finals = finals
        if ended:  # a run ended: its balances moved on one chain or two
            self.load()

    # -- actions ------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self.load()

    @on(DataTable.RowSelected, "#portfolio-table")
    def action_expand(self) -> None:
        """Open an asset's rows per chain, or close them (from any of its rows)."""
        row = self._current()
        if row is None or row.asset is None:
            return
        if row.asset in self.expanded:
            self.expanded.discard(row.asset)
            self._cursor_to = asset_key(row.asset)
        else:
            self.expanded.add(row.asset)
        self.render_rows()

    def action_move(self) -> None:
        from crossdeck.tui.quote_form import QuoteFormValues

        row = self._current()
        holding = row.holding if row is not None else None
        if holding is None and row is not None and row.asset is not None and self.portfolio:
            held = next(t for t in self.portfolio.assets() if t.asset == row.asset).holdings
            holding = held[0] if len(held) == 1 else None
        if holding is None:
            self.notify(
                "put the cursor on a chain's row (enter shows an asset's chains)",
                title="Move this",
                severity="warning",
            )
            return
        values = QuoteFormValues(origin_chain_id=holding.chain_id, origin_currency=holding.currency)
        self.app.switch_mode("quote")
        self.app.call_after_refresh(self.crossdeck.prefill_quote, values)

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Refresh the portfolio", "ctrl+r", self.action_refresh)
        yield SystemCommand(
            "Move this holding", "A quote from the row's chain and currency (m)", self.action_move
        )
