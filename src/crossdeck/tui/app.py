"""The crossdeck Textual app: `run_app(profile, world)` for the CLI, `CrossdeckApp` for tests.

Screens are app modes (Quote, Venue, History, Live status, Settings), each with its own stack;
Execute is pushed over Quote. Every network call runs in a worker that calls a layer and posts a
typed message; `on_worker_state_changed` here turns any failed worker into one notification that
says what to do. Heavy layers (eth-account, aiohttp) are imported by the workers that need them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.signal import Signal
from textual.widget import AwaitMount
from textual.worker import Worker, WorkerState

from crossdeck.base.errors import CrossdeckError
from crossdeck.config import Settings, config_file_path
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
    from crossdeck.execute.journal import RunRecord
    from crossdeck.track.tracker import Problem
    from crossdeck.tui.quote_form import QuoteFormValues
    from crossdeck.tui.screens.quote import QuoteScreen


# how long live tracking waits at start-up for the first screen's data to be shown
TRACKER_START_WAIT_SECONDS = 2.0

MODE_TITLES = {
    "quote": "Quote",
    "venue": "Venue",
    "history": "History",
    "live": "Live status",
    "settings": "Settings",
    "portfolio": "Portfolio",
}


class LiveBoardChanged(Message):
    """The board changed for `request_id` (None: for all). Every update is already on the board;
    this only asks for a redraw, so a burst of them for one request coalesces into one."""

    def __init__(self, request_id: str | None) -> None:
        super().__init__()
        self.request_id = request_id

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LiveBoardChanged) and message.request_id == self.request_id


class TrackingProblem(Message):
    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem


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


class CrossdeckApp(App[None]):
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

    def _sub_title(self) -> str:
        return self.sub_title_text()

    def refresh_sub_title(self) -> None:
        """The title bar's profile and signer, again (the signer changed or connected)."""
        self.sub_title = self.sub_title_text()

    def sub_title_text(self) -> str:
        wallet = self.services.wallet_address
        shown = f"{wallet[:6]}…{wallet[-4:]}" if wallet else "no wallet"
        kind = self.services.signer_kind
        if kind == "browser":
            shown = f"browser wallet {shown}" if wallet else "browser wallet (connecting)"
        elif kind in ("keystore", "read-only"):
            shown = f"{kind} {shown}"
        return f"profile {self.settings.profile} · {shown}"

    def _announce_signer(self, url: str) -> None:
        from crossdeck.tui.signer_flow import announce

        announce(self, url)

    @work(group="signer", exclusive=True, exit_on_error=False, name="Browser wallet")
    async def connect_browser_wallet(self) -> None:
        from crossdeck.tui.signer_flow import learn_browser_address

        await learn_browser_address(self)

    @work(group="startup", exclusive=True, exit_on_error=False, name="Reading the keyring")
    async def load_secrets(self) -> None:
        try:
            if self.services.secrets is None and self.settings.world is None:
                if not await self._unlock_keyring_if_needed():
                    # skipped: never touch the keyring (its own prompt would take the terminal)
                    self.services.secrets = Secrets(None, None, "the keyring is locked")
                await self._say_if_no_keyring_yet()
            await self.services.load_secrets()
        finally:
            # screens wait for this before their first request; without secrets they still work
            self.services_ready.set()
        self.sub_title = self._sub_title()
        self.secrets_loaded.publish(None)
        if self.services.signer_kind == "browser" and not self.services.wallet_address:
            self.connect_browser_wallet()

    async def ensure_keyring_unlocked(self) -> None:
        """Before signing: a keyring that was skipped at start-up is asked for again here (never
        by the keyring's own terminal prompt, which would fight the app for the terminal); a
        keystore without a password file is asked for its password."""
        from crossdeck.tui.signer_flow import ensure_signer_ready

        await ensure_signer_ready(self)
        if self.settings.world is not None or self.services.signer_kind != "keyring":
            return
        if not await self._unlock_keyring_if_needed():
            from crossdeck.wallet.errors import KeyringLockedError

            raise KeyringLockedError(
                "the keyring is locked, so nothing can be signed",
                hint="execute again and type the keyring password when asked",
            )

    async def _say_if_no_keyring_yet(self) -> None:
        """On a fresh machine there is no keyring to unlock (nothing is asked): say so plainly."""
        from crossdeck.wallet import keystore
        from crossdeck.wallet.errors import KeyringError

        try:
            missing = await asyncio.to_thread(keystore.not_created_yet)
        except KeyringError:
            return  # reading the secrets says what is wrong with the keyring
        if missing is not None:
            self.notify(missing[0].upper() + missing[1:], title="Keyring", timeout=15)

    async def _unlock_keyring_if_needed(self) -> bool:
        """Ask for the encrypted keyring's password when it needs one; False when skipped."""
        from crossdeck.wallet import keystore

        if not await asyncio.to_thread(keystore.needs_password):
            return True
        from crossdeck.base.secret import Secret
        from crossdeck.tui.screens.unlock import UnlockScreen

        password = await self.push_screen_wait(UnlockScreen(keystore.keyring_file_path()))
        if not password:
            return False
        keystore.set_keyring_password(Secret(password))
        return True

    # -- live status -------------------------------------------------------------------------

    @work(group="warm-up", exclusive=True, exit_on_error=False, name="Loading the quote models")
    async def warm_up(self) -> None:
        """Once the first screen has its data (the chain pickers filled), what the first quote
        needs is imported in the background, so ctrl+r does not wait for it."""
        await self.first_screen_settled.wait()
        await self.services.warm_up()

    @work(group="tracker", exclusive=True, exit_on_error=False, name="Live status")
    async def run_tracker(self) -> None:
        await self.services_ready.wait()
        # the first screen's data comes first (the Quote screen's chain pickers): the tracker's
        # client, store and the webhook receiver's aiohttp would compete with it
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(TRACKER_START_WAIT_SECONDS):
                await self.first_screen_settled.wait()
        tracker = await self.services.start_tracking(self._post_tracking_problem)
        # before Live status lists anything: runs that sent nothing are not followed, and
        # what the tracker saw end is ended in the journal too
        unfinished = await asyncio.to_thread(self._reconcile_runs, tracker.store)
        # what it was following, and what finished in the last day, are listed from the store
        # first (a request with no status yet included); the unfinished are followed again
        store = tracker.store
        if store is not None:
            import time

            from crossdeck.tui.live import shown_after_restart

            stored = await asyncio.to_thread(store.all)
            for request in shown_after_restart(stored, time.time()):
                tracked = self.live.add(request.request_id)
                if request.latest is not None:
                    self.live.apply(request.latest)
                if request.given_up:
                    tracked.problem, tracked.given_up = request.given_up, True
        for update in tracker.resume():
            if update is not None:
                self.live.apply(update)
        for rid, tracked in list(self.live.requests.items()):
            if tracked.final or tracked.given_up:
                continue  # finished before this start: listed, not followed again
            latest = tracker.track(rid)
            if latest is not None:
                self.live.apply(latest)
        self.live_changed.publish(None)
        self.start_webhooks()
        if unfinished:
            self.offer_resume(unfinished)
        async for update in tracker.updates():
            if update.request_id not in self.live.requests:
                # a run's own status stream before anything of it was sent (the Execute
                # screen puts the request on Live status with its first send), or an id
                # that was untracked meanwhile
                continue
            # the timeline keeps every update; only the redraw is coalesced
            self.live.apply(update)
            self.post_message(LiveBoardChanged(update.request_id))

    # -- runs that outlive a screen ------------------------------------------------------------

    def _reconcile_runs(self, store: Any) -> list[RunRecord]:
        """The journal's unfinished runs of this wallet, after telling it what Live saw."""
        from crossdeck.execute.journal import Journal
        from crossdeck.execute.unfinished import reconcile

        if store is None:
            return []
        with Journal.in_data_dir(self.settings.data_dir) as journal:
            runs = reconcile(journal, store)
        wallet = (self.services.wallet_address or "").lower()
        return [run for run in runs if not wallet or run.wallet.lower() == wallet]

    @work(group="resume-offer", exclusive=True, exit_on_error=False, name="Unfinished runs")
    async def offer_resume(self, runs: list[RunRecord]) -> None:
        from crossdeck.tui.screens.run_dialogs import ResumeOfferScreen

        chosen = await self.push_screen_wait(ResumeOfferScreen(runs))
        if chosen:
            await self.resume_run(chosen)

    async def resume_run(self, request_id: str) -> None:
        """Continue a journalled run in the Execute screen, over the Quote screen."""
        from crossdeck.execute.journal import Journal
        from crossdeck.models import Quote, QuoteRequest
        from crossdeck.tui.screens.execute import ExecuteScreen

        def read() -> RunRecord | None:
            with Journal.in_data_dir(self.settings.data_dir) as journal:
                return journal.run(request_id)

        record = await asyncio.to_thread(read)
        if record is None:
            self.notify(f"the journal has no run of {request_id}", title="Resume",
                        severity="warning")  # fmt: skip
            return
        quote = Quote.from_wire(record.quote)
        request = QuoteRequest.from_body(record.request) if record.request else None
        if self.current_mode != "quote":
            self.switch_mode("quote")
        await self.push_screen(
            ExecuteScreen(request, quote, self.services.cached_chains, resume=True)
        )

    def running_executions(self) -> list[Any]:
        """The Execute screens whose run is still going, in any mode's stack."""
        from crossdeck.tui.screens.execute import ExecuteScreen

        stacks = getattr(self, "_screen_stacks", {}).values()
        return [
            screen
            for stack in stacks
            for screen in stack
            if isinstance(screen, ExecuteScreen) and screen.running
        ]

    async def action_quit(self) -> None:
        """Quit; during a run, ask first, and say after the app has gone how to continue."""
        running = self.running_executions()
        if not running:
            self.exit()
            return
        self.confirm_quit(running)

    @work(group="quit", exclusive=True, exit_on_error=False, name="Quit")
    async def confirm_quit(self, running: list[Any]) -> None:
        from crossdeck.tui.screens.run_dialogs import QuitDuringRunScreen, resume_command

        ids = [screen.request_id for screen in running if screen.request_id]
        sent = [screen.request_id for screen in running if screen.followed]
        if not await self.push_screen_wait(QuitDuringRunScreen(ids, sent)):
            return
        lines = [
            f"request {rid} was sent and goes on; continue it with: {resume_command(rid)}"
            for rid in sent
        ]
        if lines and self.settings.world is not None:
            # `crossdeck demo` stops its world with the app and keeps it: it offers the run
            lines.append("on the demo world: start `crossdeck demo` again, it offers to resume")
        self.exit(message="\n".join(lines) or None)

    @work(group="webhooks", exclusive=True, exit_on_error=False, name="Webhook receiver")
    async def start_webhooks(self) -> None:
        try:
            self.live.webhook_url = await self.services.start_webhooks()
        except CrossdeckError as exc:
            self.live.webhook_note = exc.message
        except OSError as exc:  # the configured port is taken
            self.live.webhook_note = f"cannot listen: {exc.strerror or exc}"
        self.live_changed.publish(None)

    def on_live_board_changed(self, message: LiveBoardChanged) -> None:
        self.live_changed.publish(message.request_id)

    def _post_tracking_problem(self, problem: Problem) -> None:
        # called by the tracker, maybe from outside a handler: the app takes it as a message
        self.post_message(TrackingProblem(problem))

    def on_tracking_problem(self, message: TrackingProblem) -> None:
        problem = message.problem
        self.live.problem(problem.request_id, problem.message, given_up=problem.given_up)
        if problem.given_up:
            self.notify(problem.message, title="Live status", severity="warning")
        self.live_changed.publish(problem.request_id)

    def track_request(self, request_id: str) -> None:
        """Follow a request on Live status (InputError for an id that is not 0x + 64 hex)."""
        tracked = self.live.add(request_id)
        tracker = self.services.tracker
        if tracker is not None:
            latest = tracker.track(tracked.request_id)
            if latest is not None:
                self.live.apply(latest)
        self.live_changed.publish(tracked.request_id)

    def forget_unsent(self, request_id: str) -> None:
        """A run that ended before anything of it was sent: its own status stream may have
        put it in the tracker and its store; it is not followed anywhere."""
        if request_id not in self.live.requests:
            tracker = self.services.tracker
            if tracker is not None:
                tracker.untrack(request_id)

    def untrack_request(self, request_id: str) -> None:
        self.live.remove(request_id)
        tracker = self.services.tracker
        if tracker is not None:
            tracker.untrack(request_id)
        self.live_changed.publish(request_id)

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
        name = self.theme
        state = UiState(theme=name, config_theme=self.settings.theme)
        if state == self._ui_state:
            return
        try:
            save_ui_state(self._ui_state_file, state)
        except OSError as exc:
            self.notify(
                f"could not remember the theme in {self._ui_state_file}: {exc.strerror or exc}",
                title="Theme",
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
