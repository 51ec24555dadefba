"""Execute (placeholder until crossdeck.execute lands)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static


class ExecuteScreen(Screen[None]):
    HELP_TITLE = "Execute"
    BINDINGS: ClassVar = [
        Binding("escape", "back", "Back", id="execute.back", tooltip="Back to the quote"),
    ]

    def __init__(self, request: Any, quote: Any, chains: Any) -> None:
        super().__init__()
        self.request, self.quote, self.chains = request, quote, chains

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("execute")
        yield Footer()

    def action_back(self) -> None:
        self.dismiss(None)
