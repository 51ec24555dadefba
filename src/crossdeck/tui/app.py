"""The crossdeck Textual app: `run_app(profile, world)` for the CLI, `CrossdeckApp` for tests.

Screens are app modes (Quote, Venue, History, Live status, Settings), each with its own stack;
Execute is pushed over Quote. Every network call runs in a worker that calls a layer and posts a
typed message; `on_worker_state_changed` here turns any failed worker into one notification that
says what to do. Heavy layers (eth-account, aiohttp) are imported by the workers that need them.

The app is built from three bases, one job each: this module (start-up, styling, themes,
navigation, help, errors), `tui/app_signer.py` (the signer, the keyring, the title bar) and
`tui/app_live.py` (live status, unfinished runs, quitting during a run).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.signal import Signal
from textual.widget import AwaitMount
from textual.worker import Worker, WorkerState

from crossdeck.base.errors import CrossdeckError
from crossdeck.config import Settings, config_file_path
from crossdeck.tui.app_live import LiveTracking
from crossdeck.tui.app_signer import SignerSetup
from crossdeck.tui.focus_panes import LightsFocusedPane
from crossdeck.tui.host import Clock, CrossdeckHost
from crossdeck.tui.live import LiveBoard
from crossdeck.tui.notices import describe_error
from crossdeck.tui.screens.base import TALL_SCREEN, WIDE_SCREEN, ModeScreen
from crossdeck.tui.screens.help import HelpScreen, bindings_of
from crossdeck.tui.services import Secrets, Services
from crossdeck.tui.themes import ThemeCatalog, choose_theme, load_all_themes, user_theme_dir
from crossdeck.tui.ui_state import UiState, load_ui_state, save_ui_state, state_path

if TYPE_CHECKING:
    from crossdeck.tui.quote_form import QuoteFormValues
    from crossdeck.tui.screens.quote import QuoteScreen

MODE_TITLES = {
    "quote": "Quote",
    "venue": "Venue",
    "history": "History",
    "live": "Live status",
    "settings": "Settings",
    "portfolio": "Portfolio",
}


def _utc_now() -> datetime:
    return datetime.now(UTC)


# mode -> the module and class of its screen; a screen's module is imported when the screen is
# first shown (start-up imports and styles only the first one)
MODE_SCREENS = {
    "quote": ("crossdeck.tui.screens.quote", "QuoteScreen"),
    "venue": ("crossdeck.tui.screens.venue", "VenueScreen"),
    "history": ("crossdeck.tui.screens.history", "HistoryScreen"),
    "live": ("crossdeck.tui.screens.live", "LiveScreen"),
    "settings": ("crossdeck.tui.screens.settings", "SettingsScreen"),
    "portfolio": ("crossdeck.tui.screens.portfolio", "PortfolioScreen"),
}


def _mode_screen_class(mode: str) -> type[Screen[Any]]:
    module, name = MODE_SCREENS[mode]
    screen_class: type[Screen[Any]] = getattr(importlib.import_module(module), name)
    return screen_class


def _breakpoint(size: int, breakpoints: list[tuple[int, str]]) -> set[str]:
    """The class of the widest breakpoint `size` reaches, as textual's screens pick it."""
    reached = [(edge, name) for edge, name in breakpoints if size >= edge]
    return {max(reached)[1]} if reached else set()


def _goto(key: str, mode: str, tooltip: str) -> Binding:
    # the screen tabs show these keys, so the footer need not
    return Binding(
        key,
        f"goto('{mode}')",
        MODE_TITLES[mode],
        id=f"app.goto.{mode}",
        priority=True,
        show=False,
        tooltip=tooltip,
    )


def screen_classes() -> list[type]:
    """Every screen class with bindings, and every widget with crossdeck bindings of its own
    (for keymap checks and the help screen)."""
    from crossdeck.tui.screens.confirm import ConfirmScreen
    from crossdeck.tui.screens.execute import ExecuteScreen
    from crossdeck.tui.screens.run_dialogs import QuitDuringRunScreen, ResumeOfferScreen
    from crossdeck.tui.screens.unlock import UnlockScreen
    from crossdeck.tui.widgets.history_table import HistoryTable

    return [
        *(_mode_screen_class(mode) for mode in MODE_SCREENS),
        ExecuteScreen,
        ConfirmScreen,
        QuitDuringRunScreen,
        ResumeOfferScreen,
        UnlockScreen,
        HelpScreen,
        HistoryTable,
    ]


class CrossdeckApp(SignerSetup, LiveTracking):
    TITLE = "crossdeck"
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = True
    # screens stack their panes under 100 columns (app.tcss, "Narrow terminals"); textual
    # declares this on App as an instance variable, so it cannot be annotated ClassVar here
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_SCREEN, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_SCREEN, "-tall")]  # noqa: RUF012

    BINDINGS: ClassVar = [
        Binding(
            "f1",
            "help",
            "Help",
            id="app.help",
            priority=True,
            tooltip="Every key of this screen and of the app, with the ids the keymap uses",
        ),
        # not a priority: a text field takes its "?" first, anywhere else it opens the help
        Binding(
            "question_mark",
            "help",
            "Help",
            id="app.help.question",
            tooltip="Help, as F1, when the focus is not in a text field (there it types ?)",
        ),
        _goto("f2", "quote", "Quote a move: chains, currencies, amount, options"),
        _goto("f3", "venue", "Venue balances, currency addresses, deposit and withdraw forms"),
        _goto("f4", "history", "Your requests, newest first"),
        _goto("f5", "live", "Requests being tracked, with their status timelines"),
        _goto("f6", "settings", "Profile, URLs, RPCs, wallet, API key (set/unset), theme"),
        _goto("f7", "portfolio", "What the wallet holds on every chain and the venue, in USD"),
        Binding(
            "ctrl+t",
            "next_theme",
            "Theme",
            id="app.theme.next",
            priority=True,
            show=False,
            tooltip="Switch to the next theme (remembered for the next start)",
        ),
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            id="app.quit",
            priority=True,
            tooltip="Quit crossdeck (a running execution is journaled and can be resumed)",
        ),
    ]

    def __init__(
        self,
        settings: Settings,
        *,
        secrets: Secrets | None = None,
        services: Services | None = None,
        clock: Clock | None = None,
        ui_state_file: Path | None = None,
        user_themes: Path | None = None,
        start_mode: str = "quote",
        on_first_frame: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.services = services or Services(settings, secrets)
        self.services.announce_signer = self._announce_signer
        self.clock: Clock = clock or _utc_now
        self.config_path = config_file_path()
        self.user_theme_dir = user_themes if user_themes is not None else user_theme_dir()
        self.start_mode = start_mode
        self._on_first_frame = on_first_frame
        self._first_frame_seen = False
        self.services_ready = asyncio.Event()
        # set once the first screen shows what it loads at start (or gave up on it)
        self.first_screen_settled = asyncio.Event()
        self.startup_warnings: list[str] = []
        self.quote_screen: QuoteScreen | None = None
        self.pending_prefill: QuoteFormValues | None = None
        self.pending_prefill_quotes = False
        self.live = LiveBoard()
        self.live_changed: Signal[str | None] = Signal(self, "live-changed")
        self.secrets_loaded: Signal[None] = Signal(self, "secrets-loaded")
        # the signer or its wallet changed (Settings, a browser wallet connecting): every screen
        # that shows a wallet's numbers drops them and reads the new wallet's
        self.wallet_changed: Signal[str | None] = Signal(self, "wallet-changed")

        for mode in MODE_SCREENS:  # each screen's module is imported when its mode starts
            self.add_mode(mode, functools.partial(self._new_mode_screen, mode))
        # the first screen is the start mode's own, as textual's DEFAULT_MODE makes it (here
        # per instance): no default screen first and no switch to the mode after it, each of
        # which had textual parse the whole stylesheet again before the first frame
        self._current_mode = start_mode
        self._screen_stacks = {start_mode: []}

        self.theme_catalog: ThemeCatalog = load_all_themes(self.user_theme_dir)
        for theme in self.theme_catalog.themes.values():
            self.register_theme(theme)
        self.startup_warnings += self.theme_catalog.warnings
        self._ui_state_file = ui_state_file or state_path(settings.data_dir)
        self._ui_state = load_ui_state(self._ui_state_file)
        name, warning = choose_theme(
            self.available_themes, self._ui_state.theme_for(settings.theme), settings.theme
        )
        if warning:
            self.startup_warnings.append(warning)
        self._start_theme(name)
        self._apply_keymap(settings.keymap)

    # -- start-up ----------------------------------------------------------------------------

    def _new_mode_screen(self, mode: str) -> Screen[Any]:
        """A mode's screen, made so that textual styles it once before its first frame, not
        three times: the app's first frame styles every widget of the first screen."""
        screen = _mode_screen_class(mode)()
        if screen._css_update_count != self._css_update_count:
            # Textual counts a new screen as styled by no stylesheet yet, and when its mode
            # starts it parses every source again and restyles the app and the screen. The
            # stylesheet is current (`_start_theme` gave it the theme's variables; a theme
            # change reparses it and restyles every screen on its own), so only the app's own
            # node needs styling: it is styled here, and the full parse is spared.
            self.stylesheet.apply(self)
            screen._css_update_count = self._css_update_count
        # the size classes (app.tcss: "Narrow terminals") as the screen's first resize would
        # set them: set there, they would restyle every widget of the screen once more
        width, height = self.size
        screen.add_class(
            *_breakpoint(width, self.HORIZONTAL_BREAKPOINTS),
            *_breakpoint(height, self.VERTICAL_BREAKPOINTS),
        )
        return screen

    def _start_theme(self, name: str) -> None:
        """The theme before anything is styled: what textual's theme watcher does, less the
        full stylesheet refresh it schedules, which would parse the whole stylesheet again
        before the first frame; the first parse takes this theme's variables instead."""
        self.set_reactive(App.theme, name)
        theme = self.current_theme
        classes = {c: False for c in self.classes if c.startswith("-theme-")}
        classes[f"-theme-{name}"] = True
        classes["-dark-mode"] = theme.dark
        classes["-light-mode"] = not theme.dark
        self.update_classes(classes, update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())

    def _apply_keymap(self, keymap: dict[str, str]) -> None:
        if not keymap:
            return  # nothing to check: the screens' modules are not imported for it
        known = {b.id for cls in [type(self), *screen_classes()] for b in bindings_of(cls) if b.id}
        unknown = sorted(set(keymap) - known)
        if unknown:
            self.startup_warnings.append(
                f"keymap: no binding with id {', '.join(unknown)} (ignored); the help screen "
                "(F1) lists every id"
            )
        self.set_keymap({k: v for k, v in keymap.items() if k in known})

    def on_mount(self) -> None:
        for warning in self.startup_warnings:
            self.notify(warning, title="Settings", severity="warning", timeout=15)
        self.sub_title = self._sub_title()
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.theme_changed_signal.subscribe(self, self._relight_panes)
        self.switch_mode(self.start_mode)

    def first_frame(self) -> None:
        """Called once the first screen has painted (the start-up benchmark's mark)."""
        if not self._first_frame_seen:
            self._first_frame_seen = True
            if not getattr(self.screen, "LOADS_AT_START", False):
                self.first_screen_settled.set()
            # after the first frame: start-up draws before it reads the keyring (its backends
            # are a heavy import) or tracks; the screens' first requests wait for the secrets
            self.load_secrets()
            self.run_tracker()
            self.warm_up()
            if self._on_first_frame is not None:
                self._on_first_frame()

    # -- errors ------------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.report_worker_state(event)

    def report_worker_state(self, event: Worker.StateChanged) -> None:
        """The one place a failed worker becomes a notification (screens forward theirs)."""
        worker = event.worker
        if event.state is WorkerState.ERROR and worker.error is not None:
            self.show_error(worker.error, worker.name or "A background task")

    def show_error(self, error: BaseException, doing: str | None = None) -> None:
        notice = describe_error(error, doing)
        self.notify(
            notice.message, title=notice.title, severity=notice.severity, timeout=notice.timeout
        )

    # -- themes ------------------------------------------------------------------------------

    def theme_names(self) -> list[str]:
        """Our themes first, then Textual's own."""
        ours = sorted(self.theme_catalog.themes)
        return ours + sorted(n for n in self.available_themes if n not in ours)

    def _relight_panes(self, theme: object) -> None:
        # a lit pane's border is set inline (tui/focus_panes.py): CSS does not recolour it
        for stack in getattr(self, "_screen_stacks", {}).values():
            for screen in stack:
                if isinstance(screen, LightsFocusedPane):
                    screen.light_pane(screen.lit_pane)

    def _remember_theme(self, theme: object) -> None:
        state = replace(self._ui_state, theme=self.theme, config_theme=self.settings.theme)
        self._save_ui_state(state, "the theme", "Theme")

    def recent_recipients(self, family: str) -> list[str]:
        """Addresses a run sent to on chains of `family` ('evm', 'svm', 'bvm'), latest first."""
        return list(self._ui_state.recipients.get(family, []))

    def remember_recipient(self, family: str, address: str) -> None:
        self._save_ui_state(self._ui_state.with_recipient(family, address), "the recipient", "Run")

    def _save_ui_state(self, state: UiState, what: str, title: str) -> None:
        if state == self._ui_state:
            return
        try:
            save_ui_state(self._ui_state_file, state)
        except OSError as exc:
            self.notify(
                f"could not remember {what} in {self._ui_state_file}: {exc.strerror or exc}",
                title=title,
                severity="warning",
            )
            return
        self._ui_state = state

    def action_next_theme(self) -> None:
        names = self.theme_names()
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]
        self.notify(f"theme {self.theme}", title="Theme", timeout=3)

    # -- navigation, help, palette -----------------------------------------------------------

    def action_goto(self, mode: str) -> None:
        if mode in MODE_TITLES and self.current_mode != mode:
            self.switch_mode(mode)
        else:
            self._close_ended_run()  # F2 on a finished run's screen: the form

    def switch_mode(self, mode: str) -> AwaitMount:
        waiting = super().switch_mode(mode)
        self._close_ended_run()
        return waiting

    def _close_ended_run(self) -> None:
        """A run's Execute screen that has ended gives way to its Quote form (with the outcome,
        as Esc does) when its mode is opened again: F2, a Venue form, a screen tab."""
        screen = self.screen
        if getattr(screen, "ended", False) is True:
            screen.dismiss(getattr(screen, "outcome", None))

    def prefill_quote(self, values: QuoteFormValues, *, quote: bool = True) -> None:
        """Fill the Quote screen's form (from the Venue screen's deposit/withdraw forms) and,
        with `quote`, ask for the quote as the form's ctrl+r would."""
        if self.quote_screen is not None:
            self.quote_screen.prefill(values, quote=quote)
        else:
            self.pending_prefill, self.pending_prefill_quotes = values, quote

    def help_sections(self, screen: Screen[Any]) -> list[tuple[str, list[Binding]]]:
        sections = []
        screen_bindings = bindings_of(screen)
        # a widget's own crossdeck bindings (those with an id) belong to its screen's section
        classes = {type(widget) for widget in screen.query("*")}
        for cls in sorted(classes, key=lambda c: c.__name__):
            screen_bindings += [b for b in bindings_of(cls) if b.id]
        if screen_bindings:
            title = getattr(screen, "HELP_TITLE", None) or MODE_TITLES.get(
                getattr(screen, "MODE", ""), type(screen).__name__
            )
            sections.append((title, screen_bindings))
        sections.append(("Everywhere", bindings_of(self)))
        return sections

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.help_sections(self.screen), dict(self._keymap)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Every key, its id and what it does (F1)", self.action_help)
        for mode, title in MODE_TITLES.items():
            yield SystemCommand(
                f"Go to {title}", f"Open the {title} screen", lambda m=mode: self.action_goto(m)
            )
        yield SystemCommand("Next theme", "Switch to the next theme", self.action_next_theme)
        if self.services.browser_url:
            url = self.services.browser_url
            yield SystemCommand(
                "Copy browser wallet link",
                "The signing page's full address, token included (to open it yourself)",
                lambda: self.copy_to_clipboard(url),
            )
        if isinstance(screen, ModeScreen) or hasattr(screen, "palette_commands"):
            yield from screen.palette_commands()

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: object) -> None:
        ids = ", ".join(sorted(b.id or b.action for b in clashed_bindings))
        self.log.warning(f"keymap clash between {ids}")

    async def on_unmount(self) -> None:
        await self.services.aclose()


def run_app(profile: str | None, world: Path | None, signer: dict[str, Any] | None = None) -> None:
    """Open the app on this profile (or world file, for `crossdeck demo`); `signer`: the
    signer the global options chose."""
    from crossdeck.config import load_settings

    try:
        settings = load_settings(profile, world, signer)
    except CrossdeckError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(int(exc.exit_code))
    CrossdeckApp(settings).run()


if TYPE_CHECKING:

    def _hosts_the_screens(app: CrossdeckApp) -> CrossdeckHost:
        # mypy checks here that the app gives the screens all that `CrossdeckHost` promises
        return app
