"""The Quote screen's form: the pickers filled from /chains, the amount and its units line, the
options composed on demand (ctrl+l), and the wire field -> widget map that puts the focus on the
field an error names. `QuoteScreen` (screens/quote.py) is this form with the quote beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, SelectionList, Static

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.constants import VENUE_CHAIN_ID
from crossdeck.tui import describe
from crossdeck.tui.quote_form import (
    BASE_FEE_COMPONENTS,
    QuoteFormValues,
    amount_decimals,
    amount_units,
    demo_referrer_warning,
    options_summary,
)
from crossdeck.tui.screens.base import ModeScreen, selected_chain_id
from crossdeck.tui.widgets.amount_shortcuts import AmountShortcuts
from crossdeck.tui.widgets.picker import Picker

if TYPE_CHECKING:
    from crossdeck.models import ChainsResponse, Quote
    from crossdeck.tui.widgets.quote_options import QuoteOptions


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


def field_row(label: str, *widgets: Widget, tooltip: str | None = None) -> Horizontal:
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


class QuoteFormScreen(ModeScreen):
    """The form's fields and options; what a change means for a shown quote is the screen's
    (`_form_edited`)."""

    def __init__(self) -> None:
        super().__init__()
        self.chains: ChainsResponse | None = None
        # values that arrived before the chains: applied once the pickers have their options
        self._pending: QuoteFormValues | None = None
        self._fee_components: list[str] = list(BASE_FEE_COMPONENTS)
        # the options' values while they are not composed (the form's own fields are read live)
        self._options_values = QuoteFormValues()
        self._options_section: QuoteOptions | None = None

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
        self._offer_recipients()
        self.refresh_balance()
        self._form_edited()  # e.g. Venue -> Withdraw: a quote shown before is out of date now

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
        self._offer_recipients()
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
        self.refresh_balance()

    @on(Picker.Changed, "#origin-currency")
    def _origin_currency_changed(self) -> None:
        self.refresh_balance()

    def refresh_balance(self) -> None:
        """Read the wallet's balance of the From currency afresh (beside Amount, with Max)."""
        from crossdeck.models.addresses import Family, family_of

        shortcuts = self.query_one("#amount-shortcuts", AmountShortcuts)
        services = self.crossdeck.services
        values = self.form_values()
        wallet = services.wallet_address
        chain_id, address = values.origin_chain_id, values.origin_currency
        chains = self.chains
        chain = chains.by_id(chain_id) if chains and chain_id is not None else None
        if chains is None or chain is None or chain.id is None or not address:
            shortcuts.clear()
            return
        # the family from the chain's /chains vmType: which wallet of the profile pays from it
        family = Family.EVM if chain.id == VENUE_CHAIN_ID else family_of(chain.id, chain.vm_type)
        if family is Family.SOLANA:
            wallet = services.solana_address
        elif family is Family.BITCOIN:
            wallet = services.bitcoin_address
        elif family is not Family.EVM:
            shortcuts.clear("balance: see Portfolio (F7) for this chain")
            return
        if not wallet:
            named = {Family.SOLANA: "Solana", Family.BITCOIN: "Bitcoin"}.get(family, "")
            shortcuts.clear(f"balance: this profile has no {named} wallet (Settings, F6)")
            return
        currency = next(
            (c for c in chain.currencies if (c.address or "").lower() == address.lower()), None
        )
        if currency is None or currency.address is None:
            shortcuts.clear()
            return
        from crossdeck.execute.gateways import rpc_from_chains

        configured = services.settings.rpc
        shortcuts.reload(
            (wallet, chain.id, currency.address),
            decimals=currency.decimals if currency.decimals is not None else 18,
            symbol=currency.symbol or "",
            chains=chains,
            rpc={**configured, **rpc_from_chains(configured, chains)},
            venue=services.venue,
            family=family,
        )

    @on(Picker.Changed, "#destination-chain")
    def _destination_chain_changed(self, event: Picker.Changed) -> None:
        self._set_currencies("destination", selected_chain_id(event.value), None)
        self._update_amount_hint()
        self._offer_recipients()

    def _offer_recipients(self) -> None:
        """The options' recent recipients: those of the destination chain's family only."""
        from crossdeck.tui.recipients import family_of_chain

        if self._options is None:
            return
        family = family_of_chain(self.chains, self.form_values().destination_chain_id)
        self._options.offer_recipients(self.crossdeck.recent_recipients(family) if family else [])

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
        """A field changed (the screen redraws what depends on the form)."""

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
