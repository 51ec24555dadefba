"""The Venue screen's transfer form: USDC between the account's books (perps, spot, a HIP-3
DEX), or to another address when one is typed. "Review" builds the transfer and holds it to the
form through the venue-action guards (a refusal is shown, nothing signed) and shows it in words;
"Sign" (only after a review of exactly these values) opens the confirm dialog every signature
goes through, then signs with the app's signer, checks the signature, posts it, and asks the
screen to read the account again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from crossdeck.base.errors import CrossdeckError
from crossdeck.tui.notices import describe_error
from crossdeck.tui.widgets.picker import Picker

if TYPE_CHECKING:
    from crossdeck.execute.venue_actions import PreparedTransfer
    from crossdeck.venue.account import VenueAccount


def _row(label: str, widget: Any) -> Horizontal:
    return Horizontal(Label(label, classes="field-label"), widget, classes="field-row")


class TransferForm(Vertical):
    """Set `account` (the screen does, after each read) to fill the books."""

    DEFAULT_CSS = "TransferForm #tr-review { height: auto; }"

    def __init__(self) -> None:
        super().__init__(id="transfer-form", classes="venue-form")
        self.account: VenueAccount | None = None
        self.prepared: PreparedTransfer | None = None
        self._reviewed: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        yield _row("from", Picker[str](id="tr-from", prompt="book"))
        yield _row("to", Picker[str](id="tr-to", prompt="book"))
        yield _row("amount", Input(placeholder="USDC", id="tr-amount", compact=True))
        yield _row(
            "to address",
            Input(placeholder="(yours; another leaves it)", id="tr-address", compact=True),
        )
        yield _row(
            "sub acct",
            Input(placeholder="(none; its address or name)", id="tr-sub", compact=True),
        )
        yield Static("", id="tr-review")
        with Horizontal(classes="venue-buttons"):
            yield Button("Review", id="tr-go", compact=True)
            yield Button("Sign", id="tr-sign", compact=True, disabled=True)

    def on_mount(self) -> None:
        self.border_title = "Move between your books"

    def set_account(self, account: VenueAccount) -> None:
        from crossdeck.venue.account import book_words

        self.account = account
        books = [(book_words(b), b) for b in account.books()]
        for selector, default in (("#tr-from", "perps"), ("#tr-to", "spot")):
            picker = self.query_one(selector, Picker)
            with self.prevent(Picker.Changed):
                picker.set_options(books)
                picker.value = default

    def forget_account(self) -> None:
        """The wallet changed: nothing reviewed for the last one can be signed."""
        self.account = None
        self.prepared = None
        self._reviewed = None
        self.query_one("#tr-sign", Button).disabled = True
        self._show("")

    def offer(self, source: str, destination: str, amount: str) -> None:
        """Fill the form with a move the withdrawal needs first, and focus its Review."""
        self.query_one("#tr-from", Picker).value = source
        self.query_one("#tr-to", Picker).value = destination
        self.query_one("#tr-amount", Input).value = amount
        self.query_one("#tr-address", Input).value = ""
        self.query_one("#tr-sub", Input).value = ""
        self.query_one("#tr-go", Button).focus()

    def _values(self) -> tuple[Any, ...]:
        return (
            self.query_one("#tr-from", Picker).selection,
            self.query_one("#tr-to", Picker).selection,
            self.query_one("#tr-amount", Input).value.strip(),
            self.query_one("#tr-address", Input).value.strip(),
            self.query_one("#tr-sub", Input).value.strip(),
        )

    def _show(self, text: Text | str) -> None:
        self.query_one("#tr-review", Static).update(text)

    @on(Button.Pressed, "#tr-go")
    def review(self) -> None:
        self.prepared = None
        self.query_one("#tr-sign", Button).disabled = True
        self._review(self._values())

    @work(group="venue-review", exclusive=True, exit_on_error=False)
    async def _review(self, values: tuple[Any, ...]) -> None:
        """Build the transfer of the form's `values`, read the venue's fees on it when it leaves
        the account (the destination's activation is the venue's to say), and hold it to the
        guards: shown in words, or refused with nothing signed."""
        from crossdeck.execute.venue_actions import prepare
        from crossdeck.models import parse_units
        from crossdeck.models.venue import USDC_DECIMALS
        from crossdeck.venue.actions import TransferRequest
        from crossdeck.venue.fee import NO_FEE, read_transfer_fee

        account, host = self.account, self.screen.crossdeck  # type: ignore[attr-defined]
        source, destination, amount, address, sub = values
        try:
            if account is None:
                raise CrossdeckError("the venue account is not read yet (ctrl+r)")
            if not source or not destination:
                raise CrossdeckError("choose the books to move between")
            request = TransferRequest(
                user=account.user,
                source=source,
                destination=destination,
                amount=parse_units(amount or "0", USDC_DECIMALS),
                unified=account.unified,
                to_address=address or None,
                # the same fromSubAccount `venue transfer --from-sub-account` builds
                from_sub_account=account.sub_account(sub) if sub else None,
            )
            fee = NO_FEE
            if request.leaves_account and request.to_address:
                fee = await read_transfer_fee(
                    host.services.venue, account.user, request.to_address, account.first_send_fee
                )
            self.prepared = prepare(request, host.settings.venue.name, account.user, fee)
        except CrossdeckError as exc:
            notice = describe_error(exc)
            self._show(Text(f"refused, nothing signed: {notice.message}", style="bold red"))
            return
        text = Text()
        for i, line in enumerate(self.prepared.lines):
            style = "bold yellow" if line.startswith("THIS LEAVES") else ("bold" if i == 0 else "")
            text.append(line + "\n", style=style)
        text.append(f"{len(self.prepared.results)} guards passed; Sign to send", style="green")
        self._show(text)
        self._reviewed = values
        self.query_one("#tr-sign", Button).disabled = False

    @on(Button.Pressed, "#tr-sign")
    def sign(self) -> None:
        if self.prepared is None or self._values() != self._reviewed:
            self._show(Text("the form changed since the review: Review again", style="yellow"))
            self.query_one("#tr-sign", Button).disabled = True
            return
        self.query_one("#tr-sign", Button).disabled = True
        self._submit(self.prepared)

    @work(group="venue-transfer", exclusive=True, exit_on_error=False)
    async def _submit(self, prepared: PreparedTransfer) -> None:
        from crossdeck.execute.venue_actions import submit
        from crossdeck.tui.screens.confirm import ConfirmScreen

        services = self.screen.crossdeck.services  # type: ignore[attr-defined]
        # the dialog every signature goes through: the exact typed data, the guards, the fee
        # and what leaves the account in total; nothing is signed unless it says so
        dialog = ConfirmScreen(prepared.sign_request(), services.signer_words)
        if not await self.app.push_screen_wait(dialog):
            self._show(Text("declined: nothing was signed", style="yellow"))
            self.query_one("#tr-sign", Button).disabled = False
            return
        try:
            signer = await services.signer()
            await submit(prepared, signer, services.venue)
        except CrossdeckError as exc:
            self._show(Text(f"not sent: {describe_error(exc).message}", style="bold red"))
            return
        self.prepared = None
        self._show(Text("done: the venue accepted the transfer", style="bold green"))
        self.screen.load()  # type: ignore[attr-defined]
