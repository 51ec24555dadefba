"""Venue: the account as the venue means it (its mode, each book, what can be withdrawn and the
Max, sub accounts and vault equities: the same lines as `crossdeck venue balance`), spot
balances, the address forms of spec 2.4 for every venue currency /chains lists, a form moving
USDC between the books (`venue_transfer`), and deposit/withdraw forms that open the Quote screen
with the venue parameters filled in (destination 1337; origin 1337 + protocol v2; a recipient
only when typed); the withdrawal's Max is what the venue lets leave, less the first-send fee
while it is due."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, DataTable, Input, Label, Static
from textual.worker import Worker

from crossdeck.base.errors import CrossdeckError
from crossdeck.models import VENUE_CHAIN_ID, ChainsResponse
from crossdeck.models.display import decimal_amount_text
from crossdeck.models.text import short
from crossdeck.tui import describe
from crossdeck.tui.copy_links import CopiesAndLinks, Copyable
from crossdeck.tui.messages import ChainsLoaded, VenueLoaded
from crossdeck.tui.notices import describe_error
from crossdeck.tui.quote_form import venue_deposit_values, venue_withdrawal_values
from crossdeck.tui.screens.base import WIDE_SCREEN, ModeScreen, selected_chain_id
from crossdeck.tui.screens.venue_transfer import TransferForm
from crossdeck.tui.waits import service_at, venue_at, within
from crossdeck.tui.widgets.picker import Picker
from crossdeck.venue.account import read_account
from crossdeck.venue.account_words import account_lines
from crossdeck.venue.currencies import hip3_dexes
from crossdeck.venue.fee import usdc_text

FIRST_SEND_WARNING = (
    "The venue charges about 1 USDC on an account's first outbound send: a withdrawal of the "
    "whole balance can fail for want of that fee. Leave ~1 USDC behind the first time."
)


def _row(label: str, widget: Any) -> Horizontal:
    return Horizontal(Label(label, classes="field-label"), widget, classes="field-row")


class VenueScreen(CopiesAndLinks, ModeScreen):
    MODE = "venue"
    DEFAULT_CSS = """
    .venue-buttons { height: auto; }
    .venue-buttons Button { margin-right: 2; }
    """
    NOTHING_TO_COPY = "this profile has no wallet address"
    BINDINGS: ClassVar = [
        Binding(
            "ctrl+r",
            "refresh",
            "Refresh",
            id="venue.refresh",
            priority=True,
            tooltip="Read the venue balances again",
        ),
        Binding(
            "ctrl+g",
            "continue",
            "To quote",
            id="venue.continue",
            priority=True,
            tooltip="Open the focused deposit or withdraw form in the Quote screen",
        ),
        Binding(
            "ctrl+b",
            "deposit",
            "Deposit",
            id="venue.deposit",
            priority=True,
            tooltip="Open the deposit form in the Quote screen (into the venue)",
        ),
        Binding(
            "ctrl+y",
            "withdraw",
            "Withdraw",
            id="venue.withdraw",
            priority=True,
            tooltip="Open the withdraw form in the Quote screen (out of the venue)",
        ),
        Binding(
            "c",
            "copy",
            "Copy",
            id="venue.copy",
            tooltip="Copy the venue account's address (outside a text field; the palette copies "
            "each currency's address form too)",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.chains: ChainsResponse | None = None
        self.data: dict[str, Any] = {}
        self._token_column = True
        self._finals: set[str] = set()  # followed requests already seen final

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="venue-body"):
            with VerticalScroll(id="venue-left", classes="pane"):
                yield Static("Reading the venue…", id="venue-account")
                yield Static("[b]Spot balances[/b]", classes="section")
                yield DataTable(id="venue-spot", cursor_type="row", show_cursor=False)
                yield Static("[b]Venue currencies and their addresses[/b]", classes="section")
                yield DataTable(id="venue-forms", cursor_type="row", show_cursor=False)
            with VerticalScroll(id="venue-right"):
                with Vertical(id="deposit-form", classes="venue-form"):
                    yield _row("from chain", Picker[int](id="dep-chain", prompt="chain"))
                    yield _row("currency", Picker[str](id="dep-currency", prompt="currency"))
                    yield _row(
                        "amount", Input(placeholder="human units", id="dep-amount", compact=True)
                    )
                    yield _row(
                        "into", Picker[str](id="dep-venue-currency", prompt="venue currency")
                    )
                    yield _row(
                        "recipient",
                        Input(placeholder="your venue address", id="dep-recipient", compact=True),
                    )
                    yield Button("Deposit → Quote", id="dep-go", compact=True)
                with Vertical(id="withdraw-form", classes="venue-form"):
                    yield _row("from", Picker[str](id="wd-venue-currency", prompt="venue currency"))
                    yield _row(
                        "amount", Input(placeholder="human units", id="wd-amount", compact=True)
                    )
                    yield _row("to chain", Picker[int](id="wd-chain", prompt="chain"))
                    yield _row("currency", Picker[str](id="wd-currency", prompt="currency"))
                    yield _row(
                        "recipient",
                        Input(placeholder="your wallet", id="wd-recipient", compact=True),
                    )
                    yield Static(
                        Text(FIRST_SEND_WARNING, style="bold yellow"), id="first-send-warning"
                    )
                    with Horizontal(classes="venue-buttons"):
                        yield Button("Max", id="wd-max", compact=True)
                        yield Button("Withdraw → Quote", id="wd-go", compact=True)
                yield TransferForm()

    def on_mount(self) -> None:
        self.query_one("#venue-left").border_title = "Venue account"
        self.query_one("#deposit-form").border_title = "Deposit into the venue"
        self.query_one("#withdraw-form").border_title = "Withdraw from the venue"
        spot = self.query_one("#venue-spot", DataTable)
        spot.add_columns("coin", "token id", "total", "hold", "available")
        self._form_columns()
        # immediate: the last wallet's book goes in the same turn as the title bar changes
        self.crossdeck.wallet_changed.subscribe(self, self._on_wallet_changed, immediate=True)
        self._finals = self._final_requests()
        self.crossdeck.live_changed.subscribe(self, self._on_live_changed)
        self.load()

    def _final_requests(self) -> set[str]:
        return {rid for rid, tracked in self.crossdeck.live.requests.items() if tracked.final}

    def _on_live_changed(self, request_id: str | None) -> None:
        """A followed request ended (a deposit or withdrawal moved the venue books, and the
        first-send fee may be paid now): the account is read again, not left as it was."""
        finals = self._final_requests()
        ended, self._finals = finals - self._finals, finals
        if ended:
            self.load()

    def _on_wallet_changed(self, wallet: str | None) -> None:
        """Another signer or wallet: nothing of the last one's venue account stays on screen
        (its book, its spot rows, the transfer form's account); the new one's is read."""
        self.data = {}
        self.query_one("#venue-spot", DataTable).clear()
        self.query_one(TransferForm).forget_account()
        self.query_one("#first-send-warning", Static).update(
            Text(FIRST_SEND_WARNING, style="bold yellow")
        )
        self.query_one("#venue-account", Static).update(f"Reading {wallet or 'no wallet'}…")
        self.load()

    def _form_columns(self) -> None:
        """The currency-forms table's columns for the app's width: under 100 columns the token
        column would push the addresses' ends off the pane (the spot table above names each
        token id)."""
        forms = self.query_one("#venue-forms", DataTable)
        forms.clear(columns=True)
        forms.add_columns("currency", "form", "address (in quotes)")
        self._token_column = self.app.size.width >= WIDE_SCREEN
        if self._token_column:
            forms.add_column("sendAsset token")

    def on_resize(self) -> None:
        """Resized live across the wide/narrow line: laid out as if started at this size."""
        if self.is_mounted and self._token_column != (self.app.size.width >= WIDE_SCREEN):
            self._form_columns()
            self._render_forms()

    # -- workers -----------------------------------------------------------------------------

    @work(group="venue", exclusive=True, exit_on_error=False, name="Reading the venue")
    async def load(self) -> None:
        app = self.crossdeck
        await app.services_ready.wait()
        settings = app.settings
        wallet = app.services.wallet_address
        whose = f"Reading {wallet} on the venue…" if wallet else "Reading the venue…"
        self.query_one("#venue-account", Static).update(whose)  # whose: never another's name
        chains = await within(
            app.services.chains(),
            what="the service (/chains)",
            where=service_at(settings),
            retry="ctrl+r",
        )
        self.post_message(ChainsLoaded(chains))
        data = await within(
            self._read_account(chains), what="the venue", where=venue_at(settings), retry="ctrl+r"
        )
        self.post_message(VenueLoaded(data))

    async def _read_account(self, chains: ChainsResponse) -> dict[str, Any]:
        services = self.crossdeck.services
        user = services.wallet_address
        data: dict[str, Any] = {"user": user}
        if user:
            spot_meta, account = await asyncio.gather(
                services.spot_meta(), read_account(services.venue, user, hip3_dexes(chains))
            )
            data["account"] = account
            data["perps"], data["spot"], data["dexes"] = account.perps, account.spot, account.dexes
        else:
            spot_meta = await services.spot_meta()
        data["spot_meta"] = spot_meta
        return data

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # (the base class's handler, called as well, notifies)
        error = event.worker.error
        if event.worker.group == "venue" and error is not None:
            text = Text("The venue could not be read\n", style="bold red")
            text.append(describe_error(error).message)
            self.query_one("#venue-account", Static).update(text)

    # -- messages ----------------------------------------------------------------------------

    def on_chains_loaded(self, message: ChainsLoaded) -> None:
        self.chains = chains = message.chains
        evm = [
            (describe.chain_name(chains, c.id), c.id)
            for c in chains.chains
            if c.id is not None and c.id != VENUE_CHAIN_ID and not c.disabled
        ]
        venue = chains.venue
        venue_options = [
            (describe.currency_label(venue, c), c.address)
            for c in (venue.currencies if venue else [])
            if c.address
        ]
        # a deposit comes from a chain crossdeck signs on (not Bitcoin: no wallet for it)
        sending = [
            (label, i) for label, i in evm if getattr(chains.by_id(i), "vm_type", None) != "bvm"
        ]
        with self.prevent(Picker.Changed):
            for chain_select, options in (("#dep-chain", sending), ("#wd-chain", evm)):
                select = self.query_one(chain_select, Picker)
                select.set_options(options)
                if options:
                    select.value = options[0][1]
            for currency_select in ("#dep-venue-currency", "#wd-venue-currency"):
                select = self.query_one(currency_select, Picker)
                select.set_options(venue_options)
                if venue_options:
                    select.value = venue_options[0][1]
        self._fill_currencies("#dep-currency", evm[0][1] if evm else None)
        self._fill_currencies("#wd-currency", evm[0][1] if evm else None)

    def _fill_currencies(self, selector: str, chain_id: int | None) -> None:
        chain = self.chains.by_id(chain_id) if self.chains and chain_id is not None else None
        options = [
            (describe.currency_label(chain, c), c.address)
            for c in (chain.currencies if chain else [])
            if c.address
        ]
        select = self.query_one(selector, Picker)
        with self.prevent(Picker.Changed):
            select.set_options(options)
            # USDC first where there is one: the venue's main currency
            usdc = next((v for label, v in options if label.startswith("USDC")), None)
            if usdc or options:
                select.value = usdc or options[0][1]

    @on(Picker.Changed, "#dep-chain")
    def _deposit_chain(self, event: Picker.Changed) -> None:
        self._fill_currencies("#dep-currency", selected_chain_id(event.value))

    @on(Picker.Changed, "#wd-chain")
    def _withdraw_chain(self, event: Picker.Changed) -> None:
        self._fill_currencies("#wd-currency", selected_chain_id(event.value))

    def on_venue_loaded(self, message: VenueLoaded) -> None:
        if message.data.get("user") != self.crossdeck.services.wallet_address:
            return  # read for the wallet before a signer switch: the new one's reading follows
        self.data = message.data
        self._render_account()
        self._render_spot()
        self._render_forms()

    def _render_account(self) -> None:
        account = self.data.get("account")
        if account is None:
            text = Text("no wallet address for this profile", style="yellow")
        else:
            text = Text()
            for i, line in enumerate(account_lines(account)):
                style = "bold" if line.startswith(("account mode", "max withdraw")) else ""
                text.append(("\n" if i else "") + line, style=style)
            self.query_one(TransferForm).set_account(account)
            self._default_withdraw_currency(account.withdraw_book)
        # the withdraw form's fee note as this account stands, not the general warning
        self.query_one("#first-send-warning", Static).update(
            Text(
                self._fee_words(),
                style="bold yellow" if account is None or account.first_send_fee else "",
            )
        )
        self.query_one("#venue-account", Static).update(text)

    def _default_withdraw_currency(self, book: str) -> None:
        """The withdraw form leaves from the book the account's mode calls for (spot for a
        unified account)."""
        from crossdeck.venue.currencies import venue_place

        picker = self.query_one("#wd-venue-currency", Picker)
        venue = self.chains.venue if self.chains else None
        for currency in venue.currencies if venue else []:
            place = venue_place(currency.address or "")
            if place is not None and place[0] == book and currency.symbol == "USDC":
                with self.prevent(Picker.Changed):
                    picker.value = currency.address or ""
                return

    @on(Button.Pressed, "#wd-max")
    def withdraw_max(self) -> None:
        """The Max of the chosen venue currency's book: its withdrawable less the fee."""
        from crossdeck.venue.account import format_usdc
        from crossdeck.venue.currencies import venue_place

        account = self.data.get("account")
        place = venue_place(self._value("#wd-venue-currency") or "")
        if account is None or place is None:
            self.notify("read the venue account first (ctrl+r)", severity="warning")
            return
        book = place[1] if place[0] == "hip3" else place[0]
        most = account.max_send(book)
        self.query_one("#wd-amount", Input).value = format_usdc(most)
        fee = account.first_send_fee
        self.notify(
            f"{usdc_text(most)}: all of {book} less the first-send fee {usdc_text(fee)}"
            if fee
            else f"{usdc_text(most)}: all of {book}",
            title="Max",
        )

    def _render_spot(self) -> None:
        table = self.query_one("#venue-spot", DataTable)
        table.clear()
        spot = self.data.get("spot")
        meta = self.data.get("spot_meta")
        for balance in spot.balances if spot else []:
            token = meta.token_by_index(balance.token) if meta else None
            table.add_row(
                balance.coin,
                short(token.token_id, 8, 4) if token else "?",
                *(
                    Text(decimal_amount_text(figure, balance.coin), justify="right")
                    for figure in (balance.total, balance.hold, balance.available)
                ),
            )

    def _render_forms(self) -> None:
        from crossdeck.venue.currencies import describe_venue_currency
        from crossdeck.venue.errors import VenueDataError

        table = self.query_one("#venue-forms", DataTable)
        table.clear()
        venue = self.chains.venue if self.chains else None
        meta = self.data.get("spot_meta")
        for currency in venue.currencies if venue else []:
            address = currency.address or ""
            try:
                described = describe_venue_currency(address, meta)
            except VenueDataError:
                self._add_form_row(currency.symbol or "?", "unknown", address, "-")
                continue
            form: str = described.kind
            if described.kind == "hip3":
                form += f" {described.dex}"
            name, _, token_id = described.token_string.partition(":")
            self._add_form_row(
                currency.symbol or described.name, form, address, f"{name}:{short(token_id, 6, 4)}"
            )

    def _add_form_row(self, symbol: str, form: str, address: str, token: str) -> None:
        table = self.query_one("#venue-forms", DataTable)
        table.add_row(symbol, form, address, *([token] if self._token_column else []))

    # -- actions -----------------------------------------------------------------------------

    def _value(self, selector: str) -> Any:
        return self.query_one(selector, Picker).selection

    def action_refresh(self) -> None:
        self.load()

    def action_continue(self) -> None:
        focused = self.focused
        in_withdraw = focused is not None and any(
            node.id == "withdraw-form" for node in focused.ancestors
        )
        if in_withdraw:
            self.action_withdraw()
        else:
            self.action_deposit()

    def _typed_recipient(self, selector: str) -> str:
        """The recipient the user typed, else none: the quote then pays whichever wallet is
        current when it is asked (the builder's default), never the wallet of the moment the
        form was opened (a signer switched in Settings since would still be paid)."""
        return self.query_one(selector, Input).value.strip()

    @on(Button.Pressed, "#dep-go")
    def action_deposit(self) -> None:
        values = venue_deposit_values(
            origin_chain_id=self._value("#dep-chain"),
            origin_currency=self._value("#dep-currency"),
            venue_currency=self._value("#dep-venue-currency"),
            amount=self.query_one("#dep-amount", Input).value,
            recipient=self._typed_recipient("#dep-recipient"),
        )
        self._open_quote(values)

    @on(Button.Pressed, "#wd-go")
    def action_withdraw(self) -> None:
        values = venue_withdrawal_values(
            venue_currency=self._value("#wd-venue-currency"),
            destination_chain_id=self._value("#wd-chain"),
            destination_currency=self._value("#wd-currency"),
            amount=self.query_one("#wd-amount", Input).value,
            recipient=self._typed_recipient("#wd-recipient"),
        )
        if self._offer_a_move():
            return
        self.notify(self._fee_words(), title="Venue withdrawal", severity="warning", timeout=10)
        self._open_quote(values)

    def _withdraw_book(self) -> str | None:
        from crossdeck.venue.currencies import venue_place

        place = venue_place(self._value("#wd-venue-currency") or "")
        return None if place is None else (place[1] if place[0] == "hip3" else place[0])

    def _fee_words(self) -> str:
        """The first-send fee as this account stands (the warning before it is read)."""
        from crossdeck.venue.fee import SendFee

        account = self.data.get("account")
        if account is None:
            return FIRST_SEND_WARNING
        said = SendFee(account.first_send_fee).words
        if said:
            return (
                f"This account's first send pays the {said}, on top of the amount (Max leaves it)."
            )
        return "This account's first send is made: no venue first-send fee."

    def _offer_a_move(self) -> bool:
        """When the book cannot hold the amount and the fee but another book can make it up
        (a standard account), fill the transfer form with that move and say so; True then."""
        from crossdeck.models import parse_units
        from crossdeck.models.venue import USDC_DECIMALS
        from crossdeck.venue.account import book_words, format_usdc

        account, book = self.data.get("account"), self._withdraw_book()
        try:
            amount = parse_units(self.query_one("#wd-amount", Input).value.strip(), USDC_DECIMALS)
        except CrossdeckError:
            return False  # the Quote screen says what is wrong with the amount
        if account is None or book is None or account.unified:
            return False
        short = amount + account.first_send_fee - account.withdrawable(book)
        donor = next(
            (b for b, units in account.books().items() if b != book and units >= short), None
        )
        if short <= 0 or donor is None:
            return False
        self.query_one(TransferForm).offer(donor, book, format_usdc(short))
        self.notify(
            f"{book_words(book)} is {usdc_text(short)} short of the amount and the fee: "
            f"the form below moves it from {book_words(donor)} (Review, Sign), then withdraw.",
            title="Move between books first",
            severity="warning",
            timeout=10,
        )
        return True

    def _open_quote(self, values: Any) -> None:
        self.app.switch_mode("quote")
        self.app.call_after_refresh(self.crossdeck.prefill_quote, values)

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Refresh venue balances", "ctrl+r", self.action_refresh)
        yield SystemCommand(
            "Deposit into the venue", "Open the deposit in Quote (ctrl+b)", self.action_deposit
        )
        yield SystemCommand(
            "Withdraw from the venue", "Open the withdrawal in Quote (ctrl+y)", self.action_withdraw
        )
        yield from self.copy_commands()

    def copyables(self) -> list[Copyable]:
        user = self.data.get("user") or self.crossdeck.services.wallet_address
        items = [Copyable("venue account address", user)] if user else []
        venue = self.chains.venue if self.chains else None
        for currency in venue.currencies if venue else []:
            if currency.address:
                label = describe.currency_label(venue, currency)
                items.append(Copyable(f"address of {label}", currency.address))
        return items
