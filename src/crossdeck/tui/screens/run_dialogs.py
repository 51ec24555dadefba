"""The two questions the app asks about runs that outlive a screen: quitting while one is going
(`QuitDuringRunScreen`), and, at start, whether to continue the runs an earlier session left
unfinished (`ResumeOfferScreen`)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from crossdeck.execute.journal import RunRecord
from crossdeck.models.display import decimal_amount_text


def resume_command(request_id: str) -> str:
    return f"crossdeck resume {request_id}"


def _side(amount: object) -> str | None:
    """'0.01 ETH on chain 8453' from a quote's currencyIn / currencyOut (as the journal keeps
    it); None when the quote does not say."""
    if not isinstance(amount, dict):
        return None
    currency = amount.get("currency")
    currency = currency if isinstance(currency, dict) else {}
    symbol = currency.get("symbol") or "?"
    how_much = amount.get("amountFormatted")
    chain = currency.get("chainId")
    said = str(symbol)
    if isinstance(how_much, str) and how_much:
        try:  # as a wallet shows it (the one display rounding), the service's text otherwise
            said = decimal_amount_text(Decimal(how_much), str(symbol))
        except InvalidOperation:
            said = f"{how_much} {symbol}"
    return f"{said} on chain {chain}" if chain is not None else said


def run_route(quote: dict[str, object]) -> str:
    """A journaled run's move in words: '0.01 ETH on chain 8453 -> 31.2 HYPE on chain 999'."""
    details = quote.get("details")
    details = details if isinstance(details, dict) else {}
    pay, get = _side(details.get("currencyIn")), _side(details.get("currencyOut"))
    if pay is None and get is None:
        return "a move the journal does not describe"
    return f"{pay or '?'} -> {get or '?'}"


class QuitDuringRunScreen(ModalScreen[bool]):
    """True: quit anyway. A run that sent something is journaled and goes on without us."""

    HELP_TITLE = "Quit during a run"
    WIDE = 96  # `crossdeck resume 0x` + 64 hex digits on one line, inside the border
    BINDINGS: ClassVar = [
        Binding("escape,n", "stay", "Stay", id="quit_run.stay",
                tooltip="Back to the app; the run goes on"),
        Binding("y", "quit_anyway", "Quit", id="quit_run.quit",
                tooltip="Quit now; the run is journaled and `crossdeck resume` continues it"),
    ]  # fmt: skip

    def __init__(self, request_ids: Sequence[str], sent: Sequence[str]) -> None:
        super().__init__()
        self.request_ids = list(request_ids)
        self.sent = set(sent)

    def compose(self) -> ComposeResult:
        lines = []
        for rid in self.request_ids:
            if rid in self.sent:
                lines.append(f"{rid}\nsent: it goes on; continue it with\n  {resume_command(rid)}")
            else:
                lines.append(f"{rid}\nnothing sent yet: quitting ends it here")
        with Vertical(id="quit-run-box", classes="dialog"):
            yield Static("[b]A run is still going. Quit anyway?[/b]")
            yield Static("\n".join(lines), id="quit-run-list", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Stay", variant="primary", id="quit-run-stay")
                yield Button("Quit (y)", variant="warning", id="quit-run-quit")

    def on_mount(self) -> None:
        # an inline style: the app's .dialog rule (80 wide) outranks a screen's default CSS
        self.query_one("#quit-run-box").styles.max_width = self.WIDE
        self.query_one("#quit-run-stay", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "quit-run-quit")

    def action_stay(self) -> None:
        self.dismiss(False)

    def action_quit_anyway(self) -> None:
        self.dismiss(True)


class ResumeOfferScreen(ModalScreen[str | None]):
    """The request id to resume, or None for later (`crossdeck resume` works too)."""

    HELP_TITLE = "Unfinished runs"
    BINDINGS: ClassVar = [
        Binding("escape", "later", "Later", id="resume_offer.later",
                tooltip="Not now: Live status follows them; `crossdeck resume` continues them"),
    ]  # fmt: skip

    def __init__(self, runs: Sequence[RunRecord]) -> None:
        super().__init__()
        self.runs = list(runs)

    def compose(self) -> ComposeResult:
        with Vertical(id="resume-offer-box", classes="dialog") as box:
            box.styles.max_width = QuitDuringRunScreen.WIDE
            yield Static(
                f"[b]{len(self.runs)} run(s) of an earlier session did not finish[/b]\n"
                "Something of each was sent. Resume one in the Execute screen: what was sent "
                "is found, never sent twice."
            )
            yield OptionList(
                *(
                    Option(
                        f"{run_route(run.quote)}  ({run.label})\n  {run.request_id}",
                        id=run.request_id,
                    )
                    for run in self.runs
                ),
                id="resume-offer-list",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Resume", variant="primary", id="resume-offer-go")
                yield Button("Later", id="resume-offer-later")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def _chosen(self) -> str | None:
        options = self.query_one(OptionList)
        index = options.highlighted
        return self.runs[index].request_id if index is not None else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self._chosen() if event.button.id == "resume-offer-go" else None)

    def action_later(self) -> None:
        self.dismiss(None)
