"""The help screen: every binding of the app and of the screen it was opened from, with the keys
the user's keymap gives them, their ids (for the keymap) and what they do."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


def bindings_of(owner: type | object) -> list[Binding]:
    """The `Binding`s a class declares (every crossdeck binding is a `Binding`)."""
    declared: Iterable[BindingType] = getattr(owner, "BINDINGS", [])
    return [b for b in declared if isinstance(b, Binding)]


def keys_for(binding: Binding, keymap: dict[str, str]) -> str:
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return ", ".join(k.strip() for k in keys.split(","))


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar = [
        Binding(
            "escape,f1",
            "dismiss_help",
            "Close",
            id="help.close",
            tooltip="Close the help screen and return to where you were",
        ),
    ]

    def __init__(self, sections: list[tuple[str, list[Binding]]], keymap: dict[str, str]) -> None:
        super().__init__()
        self.sections = sections
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                "[b]crossdeck keys[/b]  ·  rebind any of them in the config file's "
                "[b]keymap[/b] table (id = keys)  ·  ctrl+p opens the command palette  ·  "
                "the mouse works too",
                id="help-title",
            )
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Where", "Keys", "Action", "Id", "What it does")
        for title, bindings in self.sections:
            for binding in bindings:
                table.add_row(
                    Text(title, style="bold"),
                    Text(keys_for(binding, self.keymap), style="bold"),
                    binding.description or binding.action,
                    binding.id or "-",
                    binding.tooltip or "",
                )
        table.focus()

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
