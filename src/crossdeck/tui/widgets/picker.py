"""Picker: a chain or currency chooser that costs one line until it is opened.

textual's `Select` composes a current-value row, an overlay and an option list (with their CSS)
for every picker on the first frame; the Quote screen's four cost about a tenth of the app's
start. A Picker is one focusable line (the chosen option's label and a ▾); the list, with
type-to-filter, is a small modal screen (`picker_list`) imported and composed only when the
trader opens it (Enter, space, a click, or typing a letter).

It keeps what crossdeck used of `Select`: `value` (`Picker.NULL` while nothing is chosen),
`set_options` (which clears the choice, as Select's does), `clear`, `disabled`, and a `Changed`
message with `value` and `control`, posted whenever the value changes, from a choice or from code,
and never when it does not: `with screen.prevent(Picker.Changed)` silences it as it did Select's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar, Final, Generic, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

if TYPE_CHECKING:
    from rich.console import RenderableType

ValueT = TypeVar("ValueT")

MARKER = "▾"


class NoChoice:
    """The value of a picker with nothing chosen (as `Select.NULL`); falsy, one instance."""

    def __repr__(self) -> str:
        return "Picker.NULL"

    def __bool__(self) -> bool:
        return False


NULL: Final = NoChoice()


def _shortened(text: Text, room: int) -> Text:
    """`text` in `room` cells with an ellipsis, cut after a whole word where one fits in most
    of the room: "USDC (perps)…", not an address cut into a different-looking "0x000…"."""
    plain = text.plain
    space = plain.rfind(" ", 0, room)
    end = space if space >= room // 2 else room - 1
    short = text[:end]
    short.rstrip()
    short.append("…")
    return short


class InvalidPickerValue(ValueError):
    """A value that is none of the picker's options (as Select's InvalidSelectValueError)."""


class Picker(Generic[ValueT], Widget, can_focus=True):
    """One line showing the chosen option; Enter, space, a click or a typed letter opens the
    list (arrows, type to filter, Enter chooses, escape cancels); focus comes back here."""

    # not BLANK: that is Widget.BLANK (a bool), which `value is Select.BLANK` compared values to
    NULL: ClassVar[NoChoice] = NULL

    DEFAULT_CSS = """
    Picker {
        width: 1fr;
        height: 1;
        padding: 0 1 0 0;
        margin-right: 1;  /* two pickers in a row: the marker is not read as the next one's */
        background: $surface;
        color: $foreground;
        pointer: pointer;
    }
    Picker:focus {
        background: $primary 45%;
        text-style: bold;
    }
    Picker:disabled {
        color: $text-disabled;
    }
    """

    BINDINGS: ClassVar = [Binding("enter,space", "open", "Choose", show=False)]

    class Changed(Message):
        """The picker's value changed (`value` may be `Picker.NULL`)."""

        def __init__(self, picker: Picker[object], value: object) -> None:
            super().__init__()
            self.picker = picker
            self.value = value

        @property
        def control(self) -> Picker[object]:
            return self.picker

    def __init__(
        self,
        options: Iterable[tuple[RenderableType, ValueT]] = (),
        *,
        prompt: str = "choose",
        allow_blank: bool = True,
        value: ValueT | NoChoice = NULL,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(id=id, classes=classes, disabled=disabled)
        self.prompt = prompt
        self._allow_blank = allow_blank
        self._options: list[tuple[Text, ValueT]] = []
        self._value: ValueT | NoChoice = NULL
        self._set_option_list(options)
        if value is not NULL:
            self._value = self._checked(value)
        elif not allow_blank and self._options:
            self._value = self._options[0][1]

    # -- what code reads and sets --------------------------------------------------------------

    @property
    def options(self) -> list[tuple[Text, ValueT]]:
        """The options as (label, value), in their order (a copy)."""
        return list(self._options)

    @property
    def value(self) -> ValueT | NoChoice:
        return self._value

    @value.setter
    def value(self, value: ValueT | NoChoice) -> None:
        self._checked(value)
        if value is self._value or (value is not NULL and value == self._value):
            return
        self._value = value
        self.refresh()
        self.post_message(self.Changed(self, value))  # type: ignore[arg-type]

    def _checked(self, value: ValueT | NoChoice) -> ValueT | NoChoice:
        if value is NULL:
            if not self._allow_blank:
                raise InvalidPickerValue(f"#{self.id} cannot be blank")
        elif not any(option == value for _, option in self._options):
            raise InvalidPickerValue(f"{value!r} is not an option of #{self.id}")
        return value

    @property
    def selection(self) -> ValueT | None:
        """The chosen value, or None while blank."""
        value = self._value
        return None if isinstance(value, NoChoice) else value

    def is_blank(self) -> bool:
        return self._value is NULL

    def clear(self) -> None:
        self.value = NULL

    def set_options(self, options: Iterable[tuple[RenderableType, ValueT]]) -> None:
        """Replace the options; the choice is cleared (or the first taken without a blank), as
        `Select.set_options` does: the caller sets the value it wants after."""
        self._set_option_list(options)
        if self._allow_blank or not self._options:
            self._value_quietly_or_post(NULL)
        else:
            self._value_quietly_or_post(self._options[0][1])
        self.refresh()

    def label(self) -> Text | None:
        """The chosen option's label, None while blank."""
        value = self._value
        if value is NULL:
            return None
        return next((label for label, option in self._options if option == value), None)

    def _set_option_list(self, options: Iterable[tuple[RenderableType, ValueT]]) -> None:
        self._options = [
            (label if isinstance(label, Text) else Text(str(label)), value)
            for label, value in options
        ]

    def _value_quietly_or_post(self, value: ValueT | NoChoice) -> None:
        # set_options may clear a value the new options no longer hold: post as a set would
        if value is self._value or (value is not NULL and value == self._value):
            return
        self._value = value
        self.post_message(self.Changed(self, value))  # type: ignore[arg-type]

    # -- drawing -------------------------------------------------------------------------------

    def render(self) -> Text:
        label = self.label()
        text = label.copy() if label is not None else Text(f"{self.prompt}…", style="dim")
        text.no_wrap = True
        width = self.content_size.width
        if width <= 2:
            return text
        room = width - 2  # a space and the marker
        if text.cell_len > room:
            text = _shortened(text, room)
        text.append(" " * (room - cell_len(text.plain) + 1))
        text.append(MARKER, style="dim" if self.disabled else "")
        return text

    # -- opening the list ----------------------------------------------------------------------

    def action_open(self, typed: str = "") -> None:
        if self.disabled:
            return
        if not self._options:
            self.app.bell()  # nothing to choose yet (the options are still loading)
            return
        from crossdeck.tui.widgets.picker_list import PickerList

        options = self._options
        current = next((i for i, (_, v) in enumerate(options) if v == self._value), None)

        def chosen(index: int | None) -> None:
            if index is not None and options is self._options:  # not options replaced meanwhile
                self.value = options[index][1]
            self.focus()

        self.app.push_screen(
            PickerList(
                [label for label, _ in options],
                [str(value) for _, value in options],
                current=current,
                anchor=self.region,
                typed=typed,
                title=self.prompt,
            ),
            callback=chosen,
        )

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_open()

    def on_key(self, event: events.Key) -> None:
        # typing a name opens the list with it as the filter: "bas" and Enter picks Base; a key
        # the screen or app binds (`?` for help, `c` to copy) keeps its meaning
        character = event.character
        if (
            character is None
            or not character.isprintable()
            or character.isspace()
            or event.key in self.app.active_bindings
        ):
            return
        event.stop()
        event.prevent_default()
        self.action_open(character)
