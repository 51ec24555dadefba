"""What every mode screen shares: header, screen tabs, footer, and palette commands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import ComposeResult, SystemCommand
from textual.screen import Screen
from textual.worker import Worker

from crossdeck.tui.focus_panes import LightsFocusedPane
from crossdeck.tui.widgets.footer import KeysFooter
from crossdeck.tui.widgets.navbar import NavBar
from crossdeck.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from crossdeck.tui.host import CrossdeckHost


# from this many columns the screens lay their panes side by side (the app's "-wide" class);
# under it ("-narrow", e.g. 80x24) app.tcss stacks them and tables drop the columns that
# would push amounts and hashes off the screen
WIDE_SCREEN = 100
# under this many lines ("-short", e.g. 24) dialogs give their scrolling parts fewer lines, so
# that their buttons stay on screen
TALL_SCREEN = 30


def selected_chain_id(value: object) -> int | None:
    """The chain a chain selector holds (its values are chain ids); None while it is blank."""
    return value if isinstance(value, int) else None


def _crossdeck_app(screen: Screen[Any]) -> CrossdeckHost:
    # every crossdeck screen runs inside CrossdeckApp (a CrossdeckHost); textual types `app`
    # as App[object]
    return cast("CrossdeckHost", screen.app)


class ReportsWorkerErrors:
    """Worker state messages do not bubble: each screen hands its workers' failures to the app,
    which turns them into one kind of notification."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if isinstance(self, Screen):  # always: this is mixed into screens only
            _crossdeck_app(self).report_worker_state(event)


class ModeScreen(LightsFocusedPane, ReportsWorkerErrors, Screen[None]):
    """A top-level screen (one per app mode)."""

    MODE: ClassVar[str] = ""
    # True: the screen tells the app when what it loads at start is shown (or failed), and
    # live tracking starts after that; else it starts after the first frame
    LOADS_AT_START: ClassVar[bool] = False

    @property
    def crossdeck(self) -> CrossdeckHost:
        return _crossdeck_app(self)

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield NavBar(self.MODE)
        yield from self.compose_body()
        # the palette's key is in the screen tabs' row: the footer keeps its width for keys
        yield KeysFooter()

    def _on_mount(self, event: events.Mount) -> None:
        # the first mode screen to paint marks the app's first frame (then tracking starts)
        self.call_after_refresh(self.crossdeck.first_frame)

    def compose_body(self) -> ComposeResult:
        yield from ()

    def palette_commands(self) -> Iterable[SystemCommand]:
        """Commands this screen adds to the command palette."""
        return ()
