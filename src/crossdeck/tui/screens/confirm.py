"""The confirm dialog shown before every signature or transaction: exactly what will be signed
(typed data: its domain and every field; a transaction: chain, from, to, value, the whole
calldata, gas and fees) and the result of every guard that checked it. Nothing is signed unless
the user says so here."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from crossdeck.execute.describe import label_width
from crossdeck.execute.events import SignRequest

KIND_WORDS = {
    "transaction": "a transaction (signed and sent from your wallet)",
    "typed_data": "EIP-712 typed data",
    "message": "a personal message (EIP-191)",
    "venue_action": "a venue action (EIP-712, then submitted to the venue)",
}


# how each kind of value the describer returns stands out (amounts and addresses are what a
# trader checks first; JSON is the exact payload)
KIND_STYLES = {
    "amount": "bold",
    "address": "cyan",
    "hash": "cyan",
    "calldata": "dim",
    "json": "green",
    "warning": "bold yellow",
}


def request_text(request: SignRequest) -> Text:
    """The describer's lines: each label in its column, the value beside it (a JSON value on
    the lines below its label, indented)."""
    text = Text()
    text.append(f"You are asked to sign {KIND_WORDS.get(request.kind, request.kind)}", style="bold")
    if request.chain_id is not None:
        text.append(f" · chain id {request.chain_id}")
    text.append("\n\n")
    width = label_width(request.lines)
    for line in request.lines:
        head, value = line.parts(width)
        text.append(head, style="bold")
        text.append(value + "\n", style=KIND_STYLES.get(line.kind, ""))
    return text


def leaving_text(request: SignRequest) -> Text | None:
    """What leaves the account in total, the venue's fee included, when the describer says it
    (a venue action): out of the scrolling box, so no screen is too short to show it."""
    total = next((line for line in request.lines if line.label == "in total"), None)
    if total is None:
        return None
    text = Text("In total  ", style="bold")
    text.append(total.value, style=KIND_STYLES.get(total.kind, ""))
    return text


def guards_text(request: SignRequest) -> Text:
    text = Text()
    if not request.guards:
        text.append("no guard results were given for this item", style="yellow")
        return text
    for result in request.guards:
        mark, style = ("✓", "green") if result.ok else ("✗", "bold red")
        text.append(f"{mark} {result.name}", style=style)
        text.append(f"  {result.message}\n")
    return text


class ConfirmScreen(ModalScreen[bool]):
    HELP_TITLE = "Confirm a signature"
    BINDINGS: ClassVar = [
        Binding(
            "y",
            "sign",
            "Sign",
            id="confirm.sign",
            tooltip="Sign exactly what is shown (and send it, for a transaction)",
        ),
        Binding(
            "n,escape",
            "reject",
            "Reject",
            id="confirm.reject",
            tooltip="Do not sign: the execution stops and nothing more is signed or sent",
        ),
    ]

    def __init__(
        self, request: SignRequest, signer: str | None = None, move: str | None = None
    ) -> None:
        """`signer`: who will sign, in words ("your browser wallet 0xabc…: confirm there");
        `move`: the whole transfer this signature is part of ("pay 25 USDC → receive …"),
        which the dialog covers on a short screen."""
        super().__init__()
        self.request = request
        self.signer = signer
        self.move = move

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(Text(self.request.title, style="bold"), id="confirm-title")
            if self.move:
                yield Static(Text(self.move), id="confirm-move")
            if self.signer:
                signer = Text("Signer  ", style="bold")
                signer.append(self.signer)
                yield Static(signer, id="confirm-signer")
            total = leaving_text(self.request)
            if total is not None:
                yield Static(total, id="confirm-total")
            with VerticalScroll(id="confirm-what"):
                yield Static(request_text(self.request), id="confirm-lines")
            yield Static("[b]Guards[/b]", classes="section")
            with VerticalScroll(id="confirm-guards"):
                yield Static(guards_text(self.request))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Sign (y)", variant="success", id="confirm-sign", compact=True)
                yield Button("Reject (n)", variant="error", id="confirm-reject", compact=True)

    def on_mount(self) -> None:
        self.query_one("#confirm-what").border_title = "What will be signed"
        self.query_one("#confirm-reject", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-sign")

    def action_sign(self) -> None:
        self.dismiss(True)

    def action_reject(self) -> None:
        self.dismiss(False)
