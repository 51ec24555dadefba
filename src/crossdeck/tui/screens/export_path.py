"""The export's file, chosen before anything is written: a dialog holding a suggested path
(the data dir, a time-stamped name) that the user may change; its suffix picks the format
(.csv, .jsonl/.ndjson, .json). Escape cancels."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class ExportPathScreen(ModalScreen[Path | None]):
    HELP_TITLE = "Export to a file"
    BINDINGS: ClassVar = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Export nothing"),
    ]

    def __init__(self, suggested: Path, rows_words: str) -> None:
        """`rows_words`: which rows will be written, in words (the filter in use)."""
        super().__init__()
        self.suggested = suggested
        self.rows_words = rows_words

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box", classes="dialog"):
            yield Static("[b]Export to a file[/b]")
            yield Static(
                f"Writes {self.rows_words}. The file's suffix picks the format "
                "(.csv, .jsonl, .json); an existing file is not replaced.",
                markup=False,
            )
            yield Input(str(self.suggested), id="export-path")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", variant="primary", id="export-ok")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _chosen(self) -> Path | None:
        text = self.query_one(Input).value.strip()
        return Path(text).expanduser() if text else None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(self._chosen())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self._chosen() if event.button.id == "export-ok" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
