"""The row of screen tabs under the header: the active one highlighted, each clickable."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

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


class NavTab(Static):
    def __init__(self, mode: str, key: str, title: str, *, active: bool) -> None:
        super().__init__(f" {key} {title} ", classes="nav-tab -active" if active else "nav-tab")
        self.mode = mode
        self.tooltip = f"Open the {title} screen ({key})"

    def on_click(self) -> None:
        self.app.switch_mode(self.mode)


class NavBar(Horizontal):
    def __init__(self, active: str) -> None:
        super().__init__(id="navbar")
        self.active = active

    def compose(self) -> ComposeResult:
        for mode, key, title in TABS:
            yield NavTab(mode, key, title, active=mode == self.active)
        # F1 (help) is in every footer; the palette key only here
        yield Static(HINT, id="nav-hint")

    def on_resize(self) -> None:
        # where the tabs leave too little room (80 columns), the key alone
        tabs = sum(len(f" {key} {title} ") for _, key, title in TABS)
        room = self.size.width - tabs
        self.query_one("#nav-hint", Static).update(HINT if room >= len(HINT) else SHORT_HINT)
