"""Quote: the form (chains and currencies from /chains, amount in human units, every option) on
the left, the quote in words on the right; ctrl+r quotes (again), ctrl+g executes."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, SelectionList, Static
from textual.worker import Worker, WorkerState

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.constants import VENUE_CHAIN_ID
from crossdeck.models.field_errors import QuoteRequestError
from crossdeck.tui import describe
from crossdeck.tui.copy_links import Copyable
from crossdeck.tui.copy_links import palette_commands as copy_commands
from crossdeck.tui.messages import ChainsLoaded, QuoteReady
from crossdeck.tui.quote_form import (
    BASE_FEE_COMPONENTS,
    QuoteFormValues,
    amount_decimals,
    amount_units,
    build_quote_request,
    demo_referrer_warning,
    options_summary,
)
from crossdeck.tui.screens.base import ModeScreen, selected_chain_id
from crossdeck.tui.waits import service_at, within
from crossdeck.tui.widgets.form_fields import NumberInput
from crossdeck.tui.widgets.picker import Picker
from crossdeck.tui.widgets.quote_view import render_quote

if TYPE_CHECKING:
    # only annotated here: the guards import eth-abi and httpx, kept off the app's start path
    from crossdeck.execute.guards import GuardResult
    from crossdeck.models import ChainsResponse, Quote, QuoteRequest
    from crossdeck.tui.widgets.quote_options import QuoteOptions

NO_QUOTE_YET = "No quote yet: pick what to move, type an amount and press ctrl+r."

# A quote older than this is not executed: its fees and routes may have moved.
MAX_EXECUTE_AGE_SECONDS = 120

# wire field -> the widget that edits it
FIELD_WIDGETS = {
    "originChainId": "origin-chain",
    "originCurrency": "origin-currency",
    "destinationChainId": "destination-chain",
    "destinationCurrency": "destination-currency",
    "amount": "amount",
    "tradeType": "trade-type",
    "recipient": "recipient",
    "refundTo": "refund-to",
    "slippageTolerance": "slippage",
    "topupGas": "topup-gas",
    "topupGasAmount": "topup-amount",
    "subsidizeFees": "subsidize",
    "sponsoredFeeComponents": "components",
    "maxSubsidizationAmount": "cap",
    "useDepositAddress": "deposit-address",
    "strict": "strict",
    "usePermit": "permit",
    "protocolVersion": "protocol",
    "referrer": "referrer",
    "txs": "calls",
}
# the fields on the form itself; every other one is under the options (ctrl+l)
BASIC_FIELDS = {
    "origin-chain",
    "origin-currency",
    "destination-chain",
    "destination-currency",
    "amount",
}
_KNOWN_NON_SERVICE = {"swap", "execution", "app", "sponsored", "rent"}


def _row(label: str, *widgets: Widget, tooltip: str | None = None) -> Horizontal:
    caption = Label(label, classes="field-label")
    if tooltip:
        caption.tooltip = tooltip
    return Horizontal(caption, *widgets, classes="field-row")


class OptionsLine(Static, can_focus=True):
    """The line under the amount: which options are set, a warning for a demo trigger, and the
    way to open them (ctrl+l, or Enter / a click here)."""

    BINDINGS: ClassVar = [Binding("enter,space", "screen.toggle_options", show=False)]

    def show(self, said: list[str], warning: str | None, *, open: bool) -> None:
        text = Text()
        key = "ctrl+l hides them" if open else "ctrl+l or Enter shows them"
        text.append("Options ", style="bold")
        text.append(f"({key}): ", style="dim")
        text.append(", ".join(said) if said else "none set", style="")
        if warning:
            text.append("\n⚠ " + warning, style="bold yellow")
        self.update(text)

    async def on_click(self) -> None:
        await self.screen.run_action("toggle_options")


class QuoteScreen(ModeScreen):
    MODE = "quote"
    LOADS_AT_START = True  # the chain pickers
    AUTO_FOCUS = "#amount"  # the defaults name a route; what is left to type is how much
    BINDINGS: ClassVar = [
        Binding(
            "ctrl+r",
            "fetch_quote",
            "Quote",
            id="quote.fetch",
            priority=True,
            tooltip="Ask the service for a quote with these values (again: a fresh quote)",
        ),
        Binding(
            "ctrl+g",
            "execute",
            "Execute",
            id="quote.execute",
            priority=True,
            tooltip="Execute the quote: every signature is shown for confirmation first",
        ),
        Binding(
            "ctrl+o",
            "swap_sides",
            "Swap sides",
            id="quote.swap",
            priority=True,
            tooltip="Swap origin and destination (chain and currency)",
        ),
        Binding(
            "ctrl+l",
            "toggle_options",
            "Options",
            id="quote.options",
            priority=True,
            tooltip="Show or hide the options: send-to and refund addresses, slippage, gas on "
            "arrival, sponsorship, deposit address, permit, referrer",
        ),
        Binding(
            "ctrl+n",
            "reset_form",
            "Reset",
            id="quote.reset",
            priority=True,
            tooltip="Clear the form and the quote",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.chains: ChainsResponse | None = None
        self.quote: Quote | None = None
        self.request: QuoteRequest | None = None
        self.fetched_at: datetime | None = None
        self._pending: QuoteFormValues | None = None
        self._fee_components: list[str] = list(BASE_FEE_COMPONENTS)
        # the options' values while they are not composed (the form's own fields are read live)
        self._options_values = QuoteFormValues()
        self._options_section: QuoteOptions | None = None
        # a prefill from the Venue screen quotes as soon as the form holds it
        self._quote_when_filled = False
        # the latest ctrl+r: its request and the form values it was built from
        self._asked: tuple[QuoteRequest, QuoteFormValues] | None = None
        # the values the shown quote was asked with; the quote is out of date (ctrl+g refuses
        # it) once the form no longer holds them
        self._quoted_values: QuoteFormValues | None = None
        # the `funds` guard's verdict on the shown quote, once its worker has read the balances
        self.funds: list[GuardResult] | None = None

    # -- layout ------------------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        # only what every quote needs; the options are composed when asked for (ctrl+l)
        with Horizontal(id="quote-body"):
            with VerticalScroll(id="quote-form", classes="pane"):
                yield _row(
                    "From",
                    Picker[int](id="origin-chain", prompt="chain"),
                    Picker[str](id="origin-currency", prompt="currency"),
                )
                yield _row(
                    "To",
                    Picker[int](id="destination-chain", prompt="chain"),
                    Picker[str](id="destination-currency", prompt="currency"),
                )
                yield _row(
                    "Amount",
                    NumberInput(placeholder="e.g. 1.5", id="amount", compact=True),
                    tooltip="In the currency's own units; converted exactly with its decimals",
                )
                yield Static("", id="amount-units", classes="hint")
                yield OptionsLine(id="options-line")
            with VerticalScroll(id="quote-result", classes="pane"):
                yield Static(
                    NO_QUOTE_YET,
                    id="quote-status",
                )
                yield Static("", id="quote-view")

    def on_mount(self) -> None:
        self.query_one("#quote-form").border_title = "Quote"
        self.query_one("#quote-result").border_title = "Result"
        self.set_interval(1.0, self._tick)
        app = self.crossdeck
        app.quote_screen = self
        if app.pending_prefill is not None:
            self._pending, app.pending_prefill = app.pending_prefill, None
            self._quote_when_filled = app.pending_prefill_quotes
        self._show_options_line()
        # after the frame: the read imports the service client (httpx, the models)
        self.call_after_refresh(self.load_chains)

    # -- workers -----------------------------------------------------------------------------

    @work(group="chains", exclusive=True, exit_on_error=False, name="Loading chains")
    async def load_chains(self) -> None:
        app = self.crossdeck
        await app.services_ready.wait()
        chains = await within(
            app.services.chains(),
            what="the service (/chains)",
            where=service_at(app.settings),
            retry="ctrl+r",
        )
        self.post_message(ChainsLoaded(chains))

    @work(group="quote", exclusive=True, exit_on_error=False, name="Quote")
    async def fetch(self, request: QuoteRequest) -> None:
        app = self.crossdeck
        quote = await within(
            app.services.service.quote(request),
            what="the quote",
            where=service_at(app.settings),
            retry="ctrl+r",
        )
        self.post_message(QuoteReady(request, quote, self.crossdeck.clock()))

    @work(group="funds", exclusive=True, exit_on_error=False, name="Checking funds")
    async def check_funds(self, quote: Quote, request: QuoteRequest) -> None:
        """The same `funds` guard `crossdeck quote` runs: shown with the quote, not a refusal
        (the run refuses before its first signature)."""
        from crossdeck.execute.gateways import rpc_from_chains
        from crossdeck.execute.guards.funds import quote_time_funds

        services = self.crossdeck.services
        configured = services.settings.rpc
        rpc = {**configured, **rpc_from_chains(configured, self.chains)}  # as the run will
        results = await within(
            quote_time_funds(quote, request.user, self.chains, rpc, services.venue),
            what="the balance check (the chain's RPC or the venue)",
            where="the RPC URLs and the venue URL (Settings, F6)",
            retry="ctrl+r",
        )
        if self.quote is quote:  # not a quote that a newer one replaced meanwhile
            self.funds = results
            self._render_quote()

    def _chains_loading(self) -> bool:
        return any(
            worker.node is self
            and worker.group == "chains"
            and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in self.workers
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "chains" and event.state is WorkerState.ERROR:
            self.crossdeck.first_screen_settled.set()
            self._status("The chains did not load; press ctrl+r to try again.")
            return
        if event.worker.group != "quote":
            return
        result = self.query_one("#quote-result")
        result.loading = event.state is WorkerState.RUNNING
        if event.state is WorkerState.ERROR:
            self._status("The quote failed (see the notification); fix it and press ctrl+r.")

    # -- messages ----------------------------------------------------------------------------

    def on_chains_loaded(self, message: ChainsLoaded) -> None:
        self.chains = message.chains
        options = [
            (describe.chain_name(self.chains, c.id), c.id)
            for c in self.chains.chains
            if c.id is not None and not c.disabled
        ]
        with self.prevent(Picker.Changed):
            for widget_id in ("origin-chain", "destination-chain"):
                self.query_one(f"#{widget_id}", Picker).set_options(options)
        if self.quote is None:
            self._status(NO_QUOTE_YET)  # over "Loading the chains again…"
        pending = self._pending or self._default_values()
        self._pending = None
        self.apply_values(pending)
        if self._quote_when_filled:
            self._quote_when_filled = False
            self.action_fetch_quote()
        # the amount is what is left to type: on a short pane (80x24) scroll it, with the
        # units line under it, into view
        self.call_after_refresh(self._show_amount)
        # once the pickers are painted
        self.call_after_refresh(self.crossdeck.first_screen_settled.set)

    def _show_amount(self) -> None:
        if self.focused is self.query_one("#amount", Input):
            self.query_one("#amount-units").scroll_visible(animate=False)

    def on_quote_ready(self, message: QuoteReady) -> None:
        self.quote, self.request = message.quote, message.request
        self.fetched_at = message.fetched_at
        # a reply to an older ask (overtaken by a newer ctrl+r) is out of date from the start
        asked = self._asked
        self._quoted_values = asked[1] if asked and asked[0] is message.request else None
        self._learn_fee_components(message.quote)
        self._status("")
        self.funds = None
        self._render_quote()
        if message.request.user:
            self.check_funds(message.quote, message.request)

    # -- the form ----------------------------------------------------------------------------

    def _default_values(self) -> QuoteFormValues:
        chains = [c for c in (self.chains.chains if self.chains else []) if c.id is not None]
        evm = [c for c in chains if c.id != VENUE_CHAIN_ID and (c.vm_type or "evm") == "evm"]
        origin = evm[0] if evm else (chains[0] if chains else None)
        destination = next((c for c in chains if c.id == VENUE_CHAIN_ID), None) or (
            chains[1] if len(chains) > 1 else origin
        )

        def first_currency(chain: Any) -> str | None:
            currencies = chain.currencies if chain else []
            return currencies[0].address if currencies else None

        return QuoteFormValues(
            origin_chain_id=origin.id if origin else None,
            origin_currency=first_currency(origin),
            destination_chain_id=destination.id if destination else None,
            destination_currency=first_currency(destination),
        )

    def _currency_options(self, chain_id: int | None) -> list[tuple[str, str]]:
        chain = self.chains.by_id(chain_id) if self.chains and chain_id is not None else None
        if chain is None:
            return []
        return [
            (describe.currency_label(chain, c), c.address) for c in chain.currencies if c.address
        ]

    def _set_select(self, widget_id: str, value: object) -> None:
        select = self.query_one(f"#{widget_id}", Picker)
        with self.prevent(Picker.Changed):
            if value is None:
                select.clear()
            else:
                select.value = value

    def _set_currencies(self, side: str, chain_id: int | None, currency: str | None) -> None:
        options = self._currency_options(chain_id)
        select = self.query_one(f"#{side}-currency", Picker)
        with self.prevent(Picker.Changed):
            select.set_options(options)
            addresses = [address for _, address in options]
            if currency is not None:
                match = next((a for a in addresses if a.lower() == currency.lower()), None)
                currency = match
            if currency is None and addresses:
                currency = addresses[0]
            if currency is not None:
                select.value = currency

    def apply_values(self, values: QuoteFormValues) -> None:
        """Fill the form (the Venue screen prefills deposits and withdrawals this way)."""
        if self.chains is None:
            self._pending = values
            return
        self._set_select("origin-chain", values.origin_chain_id)
        self._set_currencies("origin", values.origin_chain_id, values.origin_currency)
        self._set_select("destination-chain", values.destination_chain_id)
        self._set_currencies(
            "destination", values.destination_chain_id, values.destination_currency
        )
        self._options_values = values
        with self.prevent(Input.Changed, Checkbox.Changed, Picker.Changed):
            self.query_one("#amount", Input).value = values.amount
        options = self._options
        if options is not None:
            with self.prevent(
                Input.Changed, Checkbox.Changed, Picker.Changed, SelectionList.SelectedChanged
            ):
                options.apply(values)
        self._update_amount_hint()
        self._show_options_line()
        self._form_edited()  # e.g. Venue -> Withdraw: a quote shown before is out of date now

    def prefill(self, values: QuoteFormValues, *, quote: bool) -> None:
        """Fill the form and, with `quote`, ask for the quote at once (Venue -> Withdraw)."""
        if self.chains is None:
            self._pending, self._quote_when_filled = values, quote
            return
        self.apply_values(values)
        if quote:
            self.action_fetch_quote()

    def form_values(self) -> QuoteFormValues:
        def select_value(widget_id: str) -> Any:
            return self.query_one(f"#{widget_id}", Picker).selection

        values = self._options_values.with_changes(
            origin_chain_id=select_value("origin-chain"),
            origin_currency=select_value("origin-currency"),
            destination_chain_id=select_value("destination-chain"),
            destination_currency=select_value("destination-currency"),
            amount=self.query_one("#amount", Input).value,
        )
        options = self._options
        return options.read(values) if options is not None else values

    # -- the options, composed on demand -----------------------------------------------------

    @property
    def _options(self) -> QuoteOptions | None:
        """The options section while it is composed (None while closed or closing)."""
        return self._options_section

    async def action_toggle_options(self) -> None:
        """Open the options under the form (their values kept), or close them again."""
        options = self._options
        if options is None:
            await self.open_options()
            self.query_one("#trade-type").focus()
            return
        self._options_values = self.form_values()
        if self.focused is not None and options in self.focused.ancestors:
            self.query_one("#options-line").focus()
        self._options_section = None  # from here on the form reads the kept values
        await options.remove()
        self._show_options_line()

    async def open_options(self) -> QuoteOptions:
        """The options section, composed and filled (for a field that lives there)."""
        from crossdeck.tui.widgets.quote_options import QuoteOptions

        options = self._options
        if options is not None:
            return options
        options = QuoteOptions(self._fee_components)
        await self.query_one("#quote-form").mount(options, after="#options-line")
        self._options_section = options
        with self.prevent(
            Input.Changed, Checkbox.Changed, Picker.Changed, SelectionList.SelectedChanged
        ):
            options.apply(self._options_values)
        self._show_options_line()
        self.call_after_refresh(options.scroll_visible, animate=False, top=True)
        return options

    def _show_options_line(self) -> None:
        values = self.form_values() if self.is_mounted else self._options_values
        self.query_one("#options-line", OptionsLine).show(
            options_summary(values), demo_referrer_warning(values), open=self._options is not None
        )

    @on(Picker.Changed, "#origin-chain")
    def _origin_chain_changed(self, event: Picker.Changed) -> None:
        self._set_currencies("origin", selected_chain_id(event.value), None)
        self._update_amount_hint()

    @on(Picker.Changed, "#destination-chain")
    def _destination_chain_changed(self, event: Picker.Changed) -> None:
        self._set_currencies("destination", selected_chain_id(event.value), None)
        self._update_amount_hint()

    @on(Picker.Changed, "#origin-currency, #destination-currency, #trade-type")
    @on(Input.Changed, "#amount")
    def _amount_inputs_changed(self) -> None:
        self._update_amount_hint()

    @on(Input.Changed, "#quote-form Input")
    @on(Picker.Changed, "#quote-form Picker")
    @on(Checkbox.Changed, "#quote-form Checkbox")
    @on(SelectionList.SelectedChanged, "#quote-form SelectionList")
    def _any_field_changed(self) -> None:
        self._form_edited()
        if self._options is not None:
            self._show_options_line()

    def _form_edited(self) -> None:
        """A field changed: redraw the quote, which says whether it still matches the form."""
        if self.quote is not None:
            self._render_quote()

    @property
    def quote_out_of_date(self) -> bool:
        """True when the form changed since the shown quote was asked for."""
        if self.quote is None:
            return False
        return self._quoted_values is None or self.form_values() != self._quoted_values

    def _update_amount_hint(self) -> None:
        hint = self.query_one("#amount-units", Static)
        if self.chains is None:
            hint.update("")
            return
        values = self.form_values()
        if not values.amount.strip():
            hint.update(Text("converted exactly to the smallest unit", style="dim"))
            return
        try:
            _, decimals = amount_decimals(values, self.chains)
            units = amount_units(values, self.chains)
        except CrossdeckError as exc:
            hint.update(Text(exc.message, style="yellow"))
            return
        hint.update(Text(f"= {units} ({decimals} decimals)", style="dim"))

    def _ensure_component(self, name: str) -> None:
        if name not in self._fee_components:
            self._fee_components.append(name)
        if self._options is not None:
            self._options.ensure_component(name)

    def _learn_fee_components(self, quote: Quote) -> None:
        """The service's own fee component is named after it: learn it from a quote."""
        names: set[str] = set()
        details = quote.details
        if details is not None and details.expanded_price_impact:
            names |= set(details.expanded_price_impact)
        sponsorship = quote.fee_sponsorship
        if sponsorship is not None and sponsorship.quoted and sponsorship.quoted.components:
            names |= set(sponsorship.quoted.components)
        for name in sorted(names - _KNOWN_NON_SERVICE):
            self._ensure_component(name)

    def focus_field(self, wire_field: str) -> None:
        widget_id = FIELD_WIDGETS.get(wire_field.split(".")[0])
        if not widget_id:
            return
        if widget_id in BASIC_FIELDS:
            self.query_one(f"#{widget_id}").focus()
            return

        async def open_then_focus() -> None:
            options = await self.open_options()
            options.query_one(f"#{widget_id}").focus()

        self.call_later(open_then_focus)

    # -- rendering ---------------------------------------------------------------------------

    def _status(self, text: str) -> None:
        self.query_one("#quote-status", Static).update(text)

    def _render_quote(self) -> None:
        if self.quote is None or self.fetched_at is None:
            self.query_one("#quote-view", Static).update("")
            return
        self.query_one("#quote-view", Static).update(
            render_quote(
                self.quote,
                self.chains,
                self.fetched_at,
                self.crossdeck.clock(),
                form_changed=self.quote_out_of_date,
                funds=self.funds or (),
            )
        )

    def _tick(self) -> None:
        if self.quote is not None:
            self._render_quote()

    def show_quote(self, request: QuoteRequest, quote: Quote, fetched_at: Any) -> None:
        """Show a quote as if it had just been fetched (tests and snapshots use this too)."""
        self._asked = (request, self.form_values())  # it stands for the form as it is
        self.on_quote_ready(QuoteReady(request, quote, fetched_at))

    # -- actions -----------------------------------------------------------------------------

    def action_fetch_quote(self) -> None:
        if self.chains is None:
            if self._chains_loading():
                self.notify("the chains are still loading; try again in a moment", title="Quote")
            else:  # the last load failed: try again
                self._status("Loading the chains again…")
                self.notify(
                    "loading the chains again; press ctrl+r once they are in", title="Quote"
                )
                self.load_chains()
            return
        values = self.form_values()
        try:
            request = build_quote_request(
                values,
                self.crossdeck.services.wallet_address,
                self.chains,
                solana_wallet=self.crossdeck.services.solana_address,
            )
        except QuoteRequestError as exc:
            self.crossdeck.show_error(exc, "Quote")
            self.focus_field(exc.field)
            return
        self._asked = (request, values)
        self._status("Quoting…")
        self.fetch(request)

    def action_execute(self) -> None:
        if self.quote is None or self.request is None or self.fetched_at is None:
            self.notify("get a quote first (ctrl+r)", title="Execute", severity="warning")
            return
        if self.quote_out_of_date:
            self.notify(
                "the form changed since this quote; press ctrl+r to re-quote, then ctrl+g",
                title="Execute",
                severity="warning",
            )
            return
        age = (self.crossdeck.clock() - self.fetched_at).total_seconds()
        if age > MAX_EXECUTE_AGE_SECONDS:
            self.notify(
                f"this quote is {int(age)}s old; press ctrl+r for a fresh one, then ctrl+g",
                title="Execute",
                severity="warning",
            )
            return
        from crossdeck.tui.screens.execute import ExecuteScreen

        self.app.push_screen(
            ExecuteScreen(self.request, self.quote, self.chains), callback=self._executed
        )

    def _executed(self, outcome: object) -> None:
        # a quote runs once (the journal refuses a second run): ask for a fresh one next
        request_id = self.quote.request_id if self.quote else None
        self.quote = self.request = self.fetched_at = None
        self._render_quote()
        status = getattr(outcome, "status", None)
        if status is not None:
            # the whole request stays in the form, so that ctrl+r quotes the same move again
            said = f"Request {request_id} ended: {status} (Live status keeps it, F5)."
        elif getattr(outcome, "error_type", None) == "GuardRefused":
            said = f"Request {request_id} was refused before signing; nothing was sent."
        else:
            said = f"Request {request_id} stopped before it ended (see Execute's result)."
        self._status(said + " The form still holds it: ctrl+r quotes it again.")

    def action_swap_sides(self) -> None:
        values = self.form_values()
        self.apply_values(
            values.with_changes(
                origin_chain_id=values.destination_chain_id,
                origin_currency=values.destination_currency,
                destination_chain_id=values.origin_chain_id,
                destination_currency=values.origin_currency,
            )
        )

    def action_reset_form(self) -> None:
        self.quote = self.request = self.fetched_at = None
        self._render_quote()
        self._status(NO_QUOTE_YET)
        self.apply_values(self._default_values())

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Get a quote", "Quote the form's values (ctrl+r)", self.action_fetch_quote
        )
        yield SystemCommand(
            "Execute the quote", "Sign and send its steps (ctrl+g)", self.action_execute
        )
        yield SystemCommand("Swap origin and destination", "ctrl+o", self.action_swap_sides)
        yield SystemCommand("Reset the quote form", "ctrl+n", self.action_reset_form)
        if self.quote is not None and self.quote.request_id:
            copy = Copyable("request id of the quote", self.quote.request_id)
            yield from copy_commands(self.app, [copy], [])
