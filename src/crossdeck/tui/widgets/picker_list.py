"""The list a Picker opens: a filter line over the options, just under (or over) the picker.

Imported only when a picker is opened, so the first frame composes none of it. The trader types
to narrow ("bas" leaves Base; a chain id or the start of an address works too), moves with the
arrows, chooses with Enter or a click, and leaves with escape or a click outside; the screen
dismisses with the chosen option's index in the picker's options (None: nothing chosen).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

# rows around the options: the box's border (2) and the filter line (1)
_CHROME_ROWS = 3
_MAX_OPTION_ROWS = 12
_MIN_WIDTH = 24


def matching(labels: list[str], values: list[str], typed: str) -> list[int]:
    """The indices of the options that `typed` names, best first: every word of it must be in
    the label (or the value, e.g. a chain id or address); a label that starts with it comes
    first, then one with a word that starts with it, then the rest, each in the options' order."""
    words = typed.lower().split()
    if not words:
        return list(range(len(labels)))
    query = " ".join(words)
    ranked: list[tuple[int, int]] = []
    for index, (label, value) in enumerate(zip(labels, values, strict=True)):
        name = label.lower()
        haystack = f"{name} {value.lower()}"
        if not all(word in haystack for word in words):
            continue
        if name.startswith(query):
            rank = 0
        elif any(part.startswith(words[0]) for part in name.replace("(", " ").split()):
            rank = 1
        else:
            rank = 2
        ranked.append((rank, index))
    return [index for _, index in sorted(ranked)]


class PickerList(ModalScreen[int | None]):
    """The options of one picker, filtered as the trader types."""

    DEFAULT_CSS = """
    PickerList {
        align: left top;
        background: $background 20%;
    }
    PickerList > #picker-box {
        width: auto;
        height: auto;
        border: round $primary;
        background: $surface;
        padding: 0;
    }
    PickerList #picker-filter {
        width: 1fr;
        height: 1;
    }
    PickerList #picker-options {
        height: auto;
        max-height: 12;
        border: none;
        padding: 0;
        background: $surface;
    }
    """

    BINDINGS: ClassVar = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("down", "move('cursor_down')", show=False),
        Binding("up", "move('cursor_up')", show=False),
        Binding("pagedown", "move('page_down')", show=False),
        Binding("pageup", "move('page_up')", show=False),
    ]

    def __init__(
        self,
        labels: list[Text],
        values: list[str],
        *,
        current: int | None,
        anchor: Region,
        typed: str = "",
        title: str = "",
    ) -> None:
        super().__init__()
        self._labels = labels
        self._plain = [label.plain for label in labels]
        self._values = values
        self._current = current
        self._anchor = anchor
        self._typed = typed
        self._title = title
        self._shown: list[int] = []
        self._mode_left = False

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            # not selected on focus: the letter that opened the list is the start of a name
            yield Input(
                self._typed,
                placeholder="type to filter",
                id="picker-filter",
                compact=True,
                select_on_focus=False,
            )
            yield OptionList(id="picker-options")

    def on_mount(self) -> None:
        box = self.query_one("#picker-box", Vertical)
        box.border_title = self._title
        box.border_subtitle = "↑↓ Enter · Esc"
        self._place(box)
        self._show(self._typed)
        self.query_one("#picker-filter", Input).focus()

    def _place(self, box: Vertical) -> None:
        """Just under the picker, or over it when the rows below are too few, as wide as the
        picker or its longest label, never past the screen's edges."""
        size = self.app.size
        anchor = self._anchor
        longest = max((label.cell_len for label in self._labels), default=0)
        width = min(max(anchor.width, longest + 4, _MIN_WIDTH), size.width)
        wanted = _CHROME_ROWS + min(len(self._labels), _MAX_OPTION_ROWS)
        below = size.height - (anchor.y + 1)
        above = anchor.y
        if below >= wanted or below >= above:
            y, rows = anchor.y + 1, min(wanted, below)
        else:
            rows = min(wanted, above)
            y = anchor.y - rows
        x = max(0, min(anchor.x, size.width - width))
        box.styles.offset = (x, y)
        box.styles.width = width
        box.styles.max_height = max(rows, _CHROME_ROWS + 1)
        self.query_one("#picker-options").styles.max_height = max(rows - _CHROME_ROWS, 1)

    def _show(self, typed: str) -> None:
        options = self.query_one("#picker-options", OptionList)
        self._shown = matching(self._plain, self._values, typed)
        options.clear_options()
        if not self._shown:
            nothing = Text(f"nothing matches “{typed}”", style="dim")
            options.add_option(Option(nothing, disabled=True))
            return
        options.add_options(Option(self._labels[index]) for index in self._shown)
        # the current choice stays highlighted while it matches; otherwise the best match
        at = self._shown.index(self._current) if self._current in self._shown and not typed else 0
        options.highlighted = at

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        event.stop()
        self._show(event.value)

    @on(Input.Submitted, "#picker-filter")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        highlighted = self.query_one("#picker-options", OptionList).highlighted
        if highlighted is None or not self._shown:
            self.app.bell()
            return
        self.dismiss(self._shown[highlighted])

    @on(OptionList.OptionSelected, "#picker-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self._shown:
            self.dismiss(self._shown[event.option_index])

    def action_move(self, action: str) -> None:
        options = self.query_one("#picker-options", OptionList)
        getattr(options, f"action_{action}")()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_screen_suspend(self) -> None:
        # F2-F7 switch modes over an open list; a screen pushed over it (help) does not
        self._mode_left = self not in self.app.screen_stack

    def on_screen_resume(self) -> None:
        # back in the mode the list was opened in: it was left unchosen, so it closes then
        # (textual removes screens only from the current mode's stack)
        if self._mode_left:
            self._mode_left = False
            self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        # a click outside the box closes the list, choosing nothing
        if event.widget is self:
            self.dismiss(None)
