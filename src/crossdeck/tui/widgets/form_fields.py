"""Form fields that read without colour and keep the app's keys where nothing can be typed.

- `TickBox`: a checkbox drawn `[x]` when on and `[ ]` when off, so its state reads in any theme,
  on a monochrome terminal and in a screenshot (textual's own differs only by colour).
- `NumberInput`: a field for amounts and numbers. `?` cannot be typed in it, so `?` opens the
  help there as it does outside text fields.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widgets import Checkbox, Input

# what a number field takes: digits, a decimal point, thousands separators, a leading $
NUMBER_CHARACTERS = r"[0-9.,_$ ]*"


class TickBox(Checkbox):
    """A checkbox whose state is its text: `[x] label` / `[ ] label`."""

    BUTTON_LEFT = "["
    BUTTON_RIGHT = "]"

    @property
    def _button(self) -> Content:
        # the inner character says the state; colour only adds to it
        style = self.get_visual_style("toggle--button")
        inner = "x" if self.value else " "
        return Content.assemble(
            (self.BUTTON_LEFT, "bold"), (inner, style), (self.BUTTON_RIGHT, "bold")
        )


class NumberInput(Input):
    """An Input for amounts: only number characters type; `?` opens the help."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("restrict", NUMBER_CHARACTERS)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == "?":
            return False  # the app's "?" binding is not shadowed here
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        if event.character == "?":
            event.prevent_default()  # keeps Input's own handler from typing it
            event.stop()
            await self.run_action("app.help")
