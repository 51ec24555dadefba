"""The Quote form's options beyond what to move and how much: composed only when asked for
(ctrl+l, or Enter on the options line), so that the first frame draws the few fields every
quote needs. Closed, the form keeps their values and the options line says which are set.

New options belong here: a field in `compose`, its value in `read` and `apply`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Label, SelectionList
from textual.widgets.selection_list import Selection

from crossdeck.tui.quote_form import TRADE_TYPES, QuoteFormValues
from crossdeck.tui.widgets.form_fields import NumberInput, TickBox
from crossdeck.tui.widgets.picker import Picker

# the trade types as a trader says them
TRADE_TYPE_WORDS = {
    "EXACT_INPUT": "what I pay",
    "EXACT_OUTPUT": "what arrives",
    "EXPECTED_OUTPUT": "about what arrives",
}
assert set(TRADE_TYPE_WORDS) == set(TRADE_TYPES)


def _row(label: str, *widgets: Widget, tooltip: str | None = None) -> Horizontal:
    caption = Label(label, classes="field-label")
    if tooltip:
        caption.tooltip = tooltip
    return Horizontal(caption, *widgets, classes="field-row")


class QuoteOptions(Vertical):
    """The options fields; `apply` fills them, `read` returns the form's values with them."""

    def __init__(self, fee_components: list[str]) -> None:
        super().__init__(id="quote-options")
        self._fee_components = list(fee_components)

    def compose(self) -> ComposeResult:
        yield _row(
            "amount is",
            Picker[str](
                [(f"{words} ({name})", name) for name, words in TRADE_TYPE_WORDS.items()],
                value="EXACT_INPUT",
                allow_blank=False,
                id="trade-type",
                prompt="amount is",
            ),
            tooltip="what I pay: the amount leaves your wallet; what arrives: it is received",
        )
        yield _row(
            "send to",
            Input(placeholder="your wallet", id="recipient", compact=True),
            Picker[str](id="recent-recipients", prompt="recent"),
            tooltip="An address of the destination chain's family; 'recent' offers those a "
            "run sent to (Enter on it, then arrows and Enter)",
        )
        yield _row(
            "refund to",
            Input(placeholder="send-to address, else you", id="refund-to", compact=True),
        )
        yield _row(
            "slippage",
            NumberInput(placeholder="auto (bps: 50 = 0.5%)", id="slippage", compact=True),
        )
        yield _row(
            "",
            TickBox("add gas on arrival, $", id="topup-gas", compact=True),
            NumberInput(placeholder="2", id="topup-amount", compact=True),
            tooltip="Dollars of the destination chain's gas currency for the recipient "
            "(EVM chains only); default $2",
        )
        yield _row(
            "",
            TickBox("sponsor pays fees, up to $", id="subsidize", compact=True),
            NumberInput(placeholder="no cap", id="cap", compact=True),
            tooltip="A sponsor pays the fee components ticked below, up to this many dollars",
        )
        yield SelectionList[str](
            *[Selection(name, name, True) for name in self._fee_components],
            id="components",
        )
        yield _row(
            "",
            TickBox("pay to a deposit address", id="deposit-address", compact=True),
            TickBox("strict", id="strict", compact=True),
        )
        yield _row("", TickBox("sign a permit (EIP-3009)", id="permit", compact=True))
        yield _row(
            "referrer",
            Input(placeholder="optional, e.g. your app's name", id="referrer", compact=True),
        )
        yield _row(
            "calls",
            Input(placeholder="TO,VALUE(wei),DATA; … run after the fill", id="calls", compact=True),
            tooltip="Calls the service makes on the destination chain after the fill, as "
            "--call takes them: contract,value in wei,0x calldata; several separated by ';'. "
            "Their value is paid out of what arrives; one that reverts fails and refunds.",
        )
        yield _row(
            "protocol",
            Picker[str](
                [("auto (v2 for venue withdrawals)", "auto"), ("v2", "v2")],
                value="auto",
                allow_blank=False,
                id="protocol",
                prompt="protocol",
            ),
        )

    def on_mount(self) -> None:
        self.query_one("#components", SelectionList).border_title = "sponsored fees"

    def offer_recipients(self, addresses: list[str]) -> None:
        """The recent recipients of the destination chain's family, latest first."""
        picker = self.query_one("#recent-recipients", Picker)
        with self.prevent(Picker.Changed):
            picker.set_options([(address, address) for address in addresses])
            picker.clear()

    def on_picker_changed(self, event: Picker.Changed) -> None:
        if event.picker.id == "recent-recipients" and isinstance(event.value, str):
            self.query_one("#recipient", Input).value = event.value
            event.picker.clear()  # it reads 'recent…' again: the address is in the field

    def ensure_component(self, name: str) -> None:
        if name in self._fee_components:
            return
        self._fee_components.append(name)
        self.query_one("#components", SelectionList).add_option(Selection(name, name, True))

    def apply(self, values: QuoteFormValues) -> None:
        self.query_one("#trade-type", Picker).value = values.trade_type
        self.query_one("#recipient", Input).value = values.recipient
        self.query_one("#refund-to", Input).value = values.refund_to
        self.query_one("#slippage", Input).value = values.slippage_bps
        self.query_one("#topup-gas", TickBox).value = values.topup_gas
        self.query_one("#topup-amount", Input).value = values.topup_gas_usd
        self.query_one("#subsidize", TickBox).value = values.subsidize_fees
        self.query_one("#cap", Input).value = values.max_subsidization_usd
        self.query_one("#deposit-address", TickBox).value = values.use_deposit_address
        self.query_one("#strict", TickBox).value = values.strict
        self.query_one("#permit", TickBox).value = values.use_permit
        self.query_one("#protocol", Picker).value = values.protocol_version or "auto"
        self.query_one("#referrer", Input).value = values.referrer
        self.query_one("#calls", Input).value = values.calls
        components = self.query_one("#components", SelectionList)
        if values.sponsored_components is None:
            components.select_all()
        else:
            components.deselect_all()
            for name in values.sponsored_components:
                self.ensure_component(name)
                components.select(name)

    def read(self, values: QuoteFormValues) -> QuoteFormValues:
        components = self.query_one("#components", SelectionList)
        chosen = tuple(components.selected)
        everything = len(chosen) == components.option_count
        protocol = self.query_one("#protocol", Picker).selection
        trade_type = self.query_one("#trade-type", Picker).selection
        return values.with_changes(
            trade_type=trade_type if isinstance(trade_type, str) else "EXACT_INPUT",
            recipient=self.query_one("#recipient", Input).value,
            refund_to=self.query_one("#refund-to", Input).value,
            slippage_bps=self.query_one("#slippage", Input).value,
            topup_gas=self.query_one("#topup-gas", TickBox).value,
            topup_gas_usd=self.query_one("#topup-amount", Input).value,
            subsidize_fees=self.query_one("#subsidize", TickBox).value,
            sponsored_components=None if everything else chosen,
            max_subsidization_usd=self.query_one("#cap", Input).value,
            use_deposit_address=self.query_one("#deposit-address", TickBox).value,
            strict=self.query_one("#strict", TickBox).value,
            use_permit=self.query_one("#permit", TickBox).value,
            protocol_version=None if protocol in (None, "auto") else str(protocol),
            referrer=self.query_one("#referrer", Input).value,
            calls=self.query_one("#calls", Input).value,
        )
