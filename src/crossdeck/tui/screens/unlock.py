"""The keyring password dialog, shown at start-up when the encrypted file keyring is in use, its
file exists and nothing else supplies its password (a keyring not created yet is never asked
for: the app says there is no saved key yet). The password goes to the keystore for this
process only."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class UnlockScreen(ModalScreen[str | None]):
    HELP_TITLE = "Keyring password"
    BINDINGS: ClassVar = [
        Binding(
            "escape",
            "skip",
            "Skip",
            id="unlock.skip",
            tooltip="Continue without the keyring: no API key, and signing will ask again",
        ),
    ]

    def __init__(
        self,
        keyring_file: Path | None,
        *,
        title: str = "Unlock the crossdeck keyring",
        body: str | None = None,
        placeholder: str = "keyring password",
    ) -> None:
        """The keyring's dialog; `title`, `body` and `placeholder` make it another password's
        (a Foundry keystore's)."""
        super().__init__()
        self.keyring_file = keyring_file
        self.title_text = title
        self.body = body or (
            f"The wallet key and API key are in the encrypted file {keyring_file}. "
            "Type its password (it stays in memory for this run only)."
        )
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="unlock-box", classes="dialog"):
            yield Static(f"[b]{self.title_text}[/b]")
            yield Static(self.body, markup=False)
            yield Input(password=True, placeholder=self.placeholder, id="unlock-password")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Unlock", variant="primary", id="unlock-ok")
                yield Button("Skip", id="unlock-skip")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value or None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "unlock-ok":
            self.dismiss(self.query_one(Input).value or None)
        else:
            self.dismiss(None)

    def action_skip(self) -> None:
        self.dismiss(None)
