"""The help screen: every binding of the app and of the screen it was opened from, with the keys
the user's keymap gives them, their ids (for the keymap) and what they do."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.keys import key_to_character
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


def bindings_of(owner: type | object) -> list[Binding]:
    """The `Binding`s a class declares (every crossdeck binding is a `Binding`)."""
    declared: Iterable[BindingType] = getattr(owner, "BINDINGS", [])
    return [b for b in declared if isinstance(b, Binding)]


def keys_for(binding: Binding, keymap: dict[str, str]) -> str:
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    # a printable key as the character it types ("?", not "question_mark")
    return ", ".join(_key_text(k.strip()) for k in keys.split(","))


def _key_text(key: str) -> str:
    character = key_to_character(key) if "+" not in key else None
    return character if character and character.isprintable() and key != "space" else key


# the help box's frame: border, padding, the table's scrollbar and the cells' padding
HELP_BOX_WIDTH = 116
FRAME_COLUMNS = 2 + 2 + 2 + 2
CELL_PADDING = 2
MIN_WHAT_WIDTH = 24


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar = [
        Binding(
            "escape,f1,question_mark",
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
        self._widths: list[int] = []
        self._what_width = 0

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
        self._fill()
        self.query_one(DataTable).focus()

    def on_resize(self) -> None:
        """Resized live: "What it does" takes the new width left, as if opened at this size."""
        if self.is_mounted and self._what_width != self._what_width_now():
            self._fill()

    def _what_width_now(self) -> int:
        box = min(HELP_BOX_WIDTH, self.app.size.width) - FRAME_COLUMNS
        return max(MIN_WHAT_WIDTH, box - sum(w + CELL_PADDING for w in self._widths) - CELL_PADDING)

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        rows = [
            (
                Text(title, style="bold"),
                Text(keys_for(binding, self.keymap), style="bold"),
                Text(binding.id or "-"),
                # the footer's word for it, then what it does
                Text.assemble(
                    (binding.description or binding.action, "bold"),
                    f": {binding.tooltip}" if binding.tooltip else "",
                ),
            )
            for title, bindings in self.sections
            for binding in bindings
        ]
        heads = ("Where", "Keys", "Id")
        self._widths = [
            max([len(head)] + [row[at].cell_len for row in rows]) for at, head in enumerate(heads)
        ]
        # "What it does" takes the width left and wraps in it, whatever the terminal's width
        self._what_width = self._what_width_now()
        for head, width in zip(heads, self._widths, strict=True):
            table.add_column(head, width=width)
        table.add_column("What it does", width=self._what_width)
        for row in rows:
            table.add_row(*row, height=None)
        table.move_cursor(row=cursor)

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
