"""The app's live status and the runs that outlive a screen: the tracker started after the first
frame, the journal's unfinished runs offered again, quitting during a run, the webhook receiver,
and the board the Live status screen draws. A base of `CrossdeckApp` (tui/app.py), which holds
the settings, services and board these read.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.message import Message
from textual.signal import Signal

from crossdeck.base.errors import CrossdeckError

if TYPE_CHECKING:
    from crossdeck.config import Settings
    from crossdeck.execute.journal import RunRecord
    from crossdeck.track.tracker import Problem
    from crossdeck.tui.live import LiveBoard
    from crossdeck.tui.services import Services

# how long live tracking waits at start-up for the first screen's data to be shown
TRACKER_START_WAIT_SECONDS = 2.0


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


class LiveTracking(App[None]):
    """Live status and unfinished runs, for the app (set by `CrossdeckApp.__init__`)."""

    settings: Settings
    services: Services
    live: LiveBoard
    live_changed: Signal[str | None]
    services_ready: asyncio.Event
    first_screen_settled: asyncio.Event

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
        self.read_came_back()
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
        self.read_came_back(message.request_id)

    def read_came_back(self, request_id: str | None = None) -> None:
        """Ask for what came back of `request_id` (None: of every request on the board) where
        its status changed since the last read: the amounts sent and received the service's
        record names (a request's record exists from its deposit on, and its received amount
        is final with the fill)."""
        rids = [request_id] if request_id is not None else list(self.live.requests)
        for rid in rids:
            tracked = self.live.get(rid)
            if tracked is not None and tracked.wants_came_back():
                tracked.came_back_read_at = tracked.status
                self._read_came_back(tracked.request_id, tracked.status)

    @work(group="came-back", exit_on_error=False, name="Reading what came back")
    async def _read_came_back(self, request_id: str, status: str) -> None:
        from crossdeck.execute.came_back_at_end import read_came_back

        came = await read_came_back(self.services.service, request_id)
        tracked = self.live.get(request_id)
        if came is None or tracked is None or tracked.came_back_read_at != status:
            return  # not on record yet, untracked, or a newer read is under way
        tracked.came_back = came
        self.live_changed.publish(request_id)

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
        self.read_came_back(tracked.request_id)

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
