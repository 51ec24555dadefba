"""Quote: the form (chains and currencies from /chains, amount in human units, every option) on
the left, the quote in words on the right; ctrl+r quotes (again), ctrl+g executes. The form's
fields and options are `QuoteFormScreen`'s (screens/quote_fields.py); this module asks for the
quote, shows it and runs it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from crossdeck.models.field_errors import QuoteRequestError
from crossdeck.tui import describe
from crossdeck.tui.copy_links import Copyable
from crossdeck.tui.copy_links import palette_commands as copy_commands
from crossdeck.tui.messages import ChainsLoaded, QuoteReady
from crossdeck.tui.quote_form import QuoteFormValues, build_quote_request
from crossdeck.tui.screens.quote_fields import OptionsLine, QuoteFormScreen, field_row
from crossdeck.tui.waits import service_at, within
from crossdeck.tui.widgets.amount_shortcuts import AmountShortcuts
from crossdeck.tui.widgets.form_fields import NumberInput
from crossdeck.tui.widgets.picker import Picker
from crossdeck.tui.widgets.quote_view import EXECUTABLE_FOR_SECONDS, render_quote

if TYPE_CHECKING:
    # only annotated here: the guards import eth-abi and httpx, kept off the app's start path
    from crossdeck.execute.guards import GuardResult
    from crossdeck.models import Quote, QuoteRequest

NO_QUOTE_YET = "No quote yet: pick what to move, type an amount and press ctrl+r."

# A quote older than this is not executed: its fees and routes may have moved.
MAX_EXECUTE_AGE_SECONDS = EXECUTABLE_FOR_SECONDS


class QuoteScreen(QuoteFormScreen):
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
        Binding(
            "ctrl+b",
            "exact_balance",
            "Exact",
            id="quote.exact",
            priority=True,
            tooltip="Show the balance and Max beside Amount with every digit (again: rounded "
            "as a wallet shows them)",
        ),
    ]

    def action_exact_balance(self) -> None:
        self.query_one("#amount-shortcuts", AmountShortcuts).toggle_exact()

    def __init__(self) -> None:
        super().__init__()
        self.quote: Quote | None = None
        self.request: QuoteRequest | None = None
        self.fetched_at: datetime | None = None
        # a prefill from the Venue screen quotes as soon as the form holds it
        self._quote_when_filled = False
        # the latest ctrl+r: its request and the form values it was built from
        self._asked: tuple[QuoteRequest, QuoteFormValues] | None = None
        # the values the shown quote was asked with; the quote is out of date (ctrl+g refuses
        # it) once the form no longer holds them
        self._quoted_values: QuoteFormValues | None = None
        # the `funds` guard's verdict on the shown quote, once its worker has read the balances
        self.funds: list[GuardResult] | None = None
        # a withdrawal from the venue: its first-send fee while due, which the quote does not price
        self.venue_fees: list[str] = []

    # -- layout ------------------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        # only what every quote needs; the options are composed when asked for (ctrl+l)
        with Horizontal(id="quote-body"):
            with VerticalScroll(id="quote-form", classes="pane"):
                yield field_row(
                    "From",
                    Picker[int](id="origin-chain", prompt="chain"),
                    Picker[str](id="origin-currency", prompt="currency"),
                )
                yield field_row(
                    "To",
                    Picker[int](id="destination-chain", prompt="chain"),
                    Picker[str](id="destination-currency", prompt="currency"),
                )
                yield field_row(
                    "Amount",
                    NumberInput(placeholder="e.g. 1.5", id="amount", compact=True),
                    tooltip="In the currency's own units; converted exactly with its decimals",
                )
                yield Static("", id="amount-units", classes="hint")
                yield AmountShortcuts(id="amount-shortcuts")
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
        app.wallet_changed.subscribe(self, self._on_wallet_changed)
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

    @work(group="venue-fee", exclusive=True, exit_on_error=False, name="Venue fee")
    async def read_venue_fee(self, quote: Quote, request: QuoteRequest) -> None:
        """A withdrawal from the venue (origin 1337) names the first-send fee while it is due
        (read and worded as the command line's quote and every confirm do)."""
        from crossdeck.venue.account import VENUE_CHAIN
        from crossdeck.venue.fee import read_send_fee

        if request.origin_chain_id != VENUE_CHAIN or not request.user:
            return
        fee = await within(
            read_send_fee(self.crossdeck.services.venue, request.user),
            what="the venue's first-send fee",
            where="the venue URL (Settings, F6)",
            retry="ctrl+r",
        )
        if self.quote is quote and fee.words:
            self.venue_fees = [fee.words]
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
            self._error(event.worker.error, "The chains did not load", "press ctrl+r to try again")
            return
        if event.worker.group != "quote":
            return
        result = self.query_one("#quote-result")
        result.loading = event.state is WorkerState.RUNNING
        if event.state is WorkerState.ERROR:
            self._error(event.worker.error, "The quote failed", "fix it and press ctrl+r")

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
        # a deprecated quote endpoint's end and successor, where "" was (api.quote_api); a
        # read-only wallet's reason for Execute being off before it
        from crossdeck.api.quote_api import notice_line

        notice = notice_line(self.crossdeck.services.service.deprecations)
        reason = self.read_only_reason()
        if reason:
            said = Text(reason, style="bold yellow")
            if notice:
                said.append(f"\n{notice}")
            self._status(said)
        else:
            self._status(notice)
        self.funds = None
        self.venue_fees = []
        self._render_quote()
        if message.request.user:
            self.check_funds(message.quote, message.request)
            self.read_venue_fee(message.quote, message.request)

    def prefill(self, values: QuoteFormValues, *, quote: bool) -> None:
        """Fill the form and, with `quote`, ask for the quote at once (Venue -> Withdraw)."""
        if self.chains is None:
            self._pending, self._quote_when_filled = values, quote
            return
        self.apply_values(values)
        if quote:
            self.action_fetch_quote()

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

    # -- rendering ---------------------------------------------------------------------------

    def _status(self, text: str | Text) -> None:
        self.query_one("#quote-status", Static).update(text)

    def _error(self, error: BaseException | None, what: str, then: str) -> None:
        """The reason and its hint in the result pane, where the work was, until the next
        action (the notification only repeats it and goes)."""
        from crossdeck.tui.notices import describe_error

        said = Text(f"{what}: ", style="bold red")
        if error is not None:
            said.append(describe_error(error).message)
        said.append(f"\n{then}.", style="bold")
        self._status(said)

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
                extra_fees=self.venue_fees,
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
                bitcoin_wallet=self.crossdeck.services.bitcoin_address,
            )
        except QuoteRequestError as exc:
            self.crossdeck.show_error(exc, "Quote")
            self._error(exc, "This form cannot be quoted", "fix it and press ctrl+r")
            self.focus_field(exc.field)
            return
        self._asked = (request, values)
        self._status("Quoting…")
        self.fetch(request)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Execute is off for a read-only wallet (the footer greys it; the pane says why)."""
        if action == "execute" and self.read_only_reason() is not None:
            return None
        return super().check_action(action, parameters)

    def read_only_reason(self) -> str | None:
        """Why nothing can be executed from here, or None: the signer is a read-only address."""
        chosen = self.crossdeck.services.settings.signer
        if chosen.kind != "read-only":
            return None
        return (
            f"Execute is off: {chosen.address or 'this wallet'} is read-only (--from), so "
            "nothing can be signed. Choose a signer in Settings (F6) to execute this quote."
        )

    def _on_wallet_changed(self, wallet: str | None) -> None:
        """Another signer: Execute on or off (the footer), and the pane says why when off."""
        self.refresh_bindings()
        self.refresh_balance()  # never another wallet's balance
        if self.quote is not None:
            reason = self.read_only_reason()
            self._status(Text(reason, style="bold yellow") if reason else "")

    def action_execute(self) -> None:
        reason = self.read_only_reason()
        if reason is not None:  # reached through the palette
            self._status(Text(reason, style="bold yellow"))
            return
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
        self.refresh_balance()  # the run spent from it

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
