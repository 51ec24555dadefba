"""The row of screen tabs under the title: the active one highlighted, each clickable.

One widget drawing the whole row (a widget per tab was seven to style before every screen's
first frame); where the pointer is, that tab is lit and the tooltip names it."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.content import Content
from textual.widget import Widget

# mode -> (key shown, title); the keys are the app's default bindings (a keymap may move them,
# the help screen shows the real ones)
TABS: tuple[tuple[str, str, str], ...] = (
    ("quote", "F2", "Quote"),
    ("venue", "F3", "Venue"),
    ("history", "F4", "History"),
    ("live", "F5", "Live status"),
    ("settings", "F6", "Settings"),
    ("portfolio", "F7", "Portfolio"),
)

HINT = " ^p commands "
SHORT_HINT = " ^p "


def tab_text(key: str, title: str) -> str:
    return f" {key} {title} "


def tab_spans() -> list[tuple[int, int, str]]:
    """(first column, end column, mode) of each tab, left to right."""
    spans, column = [], 0
    for mode, key, title in TABS:
        width = len(tab_text(key, title))
        spans.append((column, column + width, mode))
        column += width
    return spans


TABS_WIDTH = tab_spans()[-1][1]


class NavBar(Widget):
    # styled in app.tcss
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "navbar--tab",
        "navbar--active",
        "navbar--hover",
        "navbar--hint",
    }

    def __init__(self, active: str) -> None:
        super().__init__(id="navbar")
        self.active = active
        self.hovered: str | None = None

    def render(self) -> Content:
        parts: list[Content] = []
        for mode, key, title in TABS:
            if mode == self.active:
                part = "navbar--active"
            elif mode == self.hovered:
                part = "navbar--hover"
            else:
                part = "navbar--tab"
            parts.append(Content.styled(tab_text(key, title), self.get_visual_style(part)))
        # F1 (help) is in every footer; the palette key only here, the key alone where the
        # tabs leave too little room (80 columns)
        room = self.size.width - TABS_WIDTH
        hint = HINT if room >= len(HINT) else SHORT_HINT
        parts.append(
            Content.styled(hint.rjust(max(room, 0)), self.get_visual_style("navbar--hint"))
        )
        return Content.assemble(*parts)

    def mode_at(self, x: int) -> str | None:
        return next((mode for start, end, mode in tab_spans() if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self.mode_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(None)

    def _hover(self, mode: str | None) -> None:
        if mode != self.hovered:
            self.hovered = mode
            found = next(((key, title) for m, key, title in TABS if m == mode), None)
            self.tooltip = f"Open the {found[1]} screen ({found[0]})" if found else None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        mode = self.mode_at(event.x)
        if mode is not None:
            event.stop()
            self.app.switch_mode(mode)
