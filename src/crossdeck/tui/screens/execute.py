"""Execute: the quote's steps and items as rows with their live state, the guard results, every
event as it happens (transaction hashes as they come, posts, venue submissions, status changes),
and the final result with failReason and refundFailReason. Each signature is confirmed first in
a dialog that shows exactly what will be signed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, assert_never

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from crossdeck.execute import events as ev
from crossdeck.execute.describe import out_leg
from crossdeck.models import ChainsResponse, Quote, QuoteRequest, Step
from crossdeck.models.fail_reasons import reason_words
from crossdeck.models.text import short
from crossdeck.track.updates import age_words
from crossdeck.tui import describe
from crossdeck.tui.copy_links import (
    CopiesAndLinks,
    Copyable,
    TxLink,
    copy_binding,
    explorer_binding,
    tx_link,
)
from crossdeck.tui.focus_panes import LightsFocusedPane
from crossdeck.tui.messages import ExecutionEvent
from crossdeck.tui.recipients import sent_to
from crossdeck.tui.screens.base import ReportsWorkerErrors, _crossdeck_app
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.run_end import came_back_text, reasons_text
from crossdeck.tui.widgets.footer import KeysFooter
from crossdeck.tui.widgets.title_bar import TitleBar

STATE_STYLES = {
    "waiting": "dim",
    "started": "cyan",
    "confirm?": "bold yellow",
    "signed": "cyan",
    "sent": "cyan",
    "confirmed": "green",
    "posted": "green",
    "submitted": "green",
    "skipped": "dim",
    "declined": "yellow",
    "failed": "bold red",
}
FINAL_STYLES = {"success": "bold green", "refund": "bold yellow", "fallback": "bold yellow"}


# the steps table: columns other than "what" (#, step, kind, a state with its short hash,
# cell padding and the border) and the least "what" may have
OTHER_COLUMNS = 64
MIN_WHAT_WIDTH = 24


class ExecuteScreen(CopiesAndLinks, LightsFocusedPane, ReportsWorkerErrors, Screen[Any]):
    HELP_TITLE = "Execute"
    NOTHING_TO_COPY = "this quote has no request id"
    NO_TRANSACTION = "no transaction has been sent yet"
    BINDINGS: ClassVar = [
        Binding("escape", "back", "Back", id="execute.back",
                tooltip="Back to the quote (only once the run has ended)"),
        Binding("ctrl+l", "live", "Live status", id="execute.live", priority=True,
                tooltip="Open Live status for this request (the run goes on meanwhile)"),
        copy_binding("execute", "the request id"),
        explorer_binding("execute", "the latest transaction (the fill once it is in)"),
    ]  # fmt: skip

    def __init__(
        self,
        request: QuoteRequest | None,
        quote: Quote,
        chains: ChainsResponse | None,
        *,
        autostart: bool = True,
        resume: bool = False,
    ) -> None:
        """`resume`: continue the journalled run of this quote (`Executor.resume`) instead of
        starting one."""
        super().__init__()
        self.resume = resume
        self.request = request
        self.quote = quote
        self.chains = chains
        self.autostart = autostart
        self.request_id = quote.request_id
        self.running = False
        self.followed = False  # on Live status: from the first thing sent on
        self.outcome: ev.Finished | ev.Failed | None = None
        self.start_failed = False
        self.events: list[Any] = []
        self._rows: list[str] = []
        self._row_for_step: dict[str, list[str]] = {}
        self._current_row: str | None = None
        self._steps_shown = 0  # steps with rows: the quote's, then those a POST appended
        self._log = Text()
        self._guards: tuple[Any, ...] = ()

    @property
    def crossdeck(self) -> Any:
        return self.app

    @property
    def ended(self) -> bool:
        """Nothing more happens here: the run finished, was refused or declined, failed, or
        could not start. Opening the Quote screen again (F2) then shows the form."""
        return not self.running and (self.outcome is not None or self.start_failed)

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(self._summary(), id="exec-summary")
        yield DataTable(id="exec-items", cursor_type="row", show_cursor=False)
        with Horizontal(id="exec-body"):
            with VerticalScroll(id="exec-guards", classes="pane"):
                yield Static("Guards run before anything is signed.", id="exec-guards-text")
            with VerticalScroll(id="exec-log", classes="pane"):
                yield Static("", id="exec-log-text")
        yield Static("", id="exec-result")
        yield KeysFooter(show_command_palette=True)

    def _summary(self) -> Text:
        summary = describe.summarize_quote(self.quote, self.chains)
        text = Text()
        text.append("Execute ", style="bold")
        text.append(summary.request_id)
        text.append("\n" + self._move())
        return text

    def _move(self) -> str:
        summary = describe.summarize_quote(self.quote, self.chains)
        return f"pay {summary.pay}  →  receive {summary.receive}"

    def on_mount(self) -> None:
        self.query_one("#exec-guards").border_title = "Guards"
        self.query_one("#exec-log").border_title = "Progress"
        table = self.query_one("#exec-items", DataTable)
        table.border_title = "Steps"
        self._step_columns()
        for step_index, step in enumerate(self.quote.steps):
            self._add_step_rows(step_index, step)
        if self.autostart:
            self.start()

    def _what_width(self) -> int:
        return max(MIN_WHAT_WIDTH, self.app.size.width - OTHER_COLUMNS)

    def _step_columns(self) -> None:
        table = self.query_one("#exec-items", DataTable)
        table.add_columns("#", "step", "kind")
        # "what" wraps in the width the other columns leave (amounts and addresses stay whole)
        table.add_column("what", width=self._what_width())
        table.add_column("state")

    def on_resize(self) -> None:
        """Resized live: the steps laid out again for the new width, as if started at it
        (their rows' heights follow the new wrap), and the progress log at its end again."""
        if not self.is_mounted:
            return
        table = self.query_one("#exec-items", DataTable)
        if table.ordered_columns and table.ordered_columns[3].width != self._what_width():
            rows = [(key, table.get_row(key)) for key in self._rows if key in table.rows]
            table.clear(columns=True)
            self._step_columns()
            for key, cells in rows:
                table.add_row(*cells, key=key, height=None)
        log = self.query_one("#exec-log", VerticalScroll)
        self.call_after_refresh(log.scroll_end, animate=False)

    def _add_step_rows(self, step_index: int, step: Any) -> None:
        table = self.query_one("#exec-items", DataTable)
        self._steps_shown = max(self._steps_shown, step_index + 1)
        for item_index, item in enumerate(step.items):
            key = f"{step_index}:{item_index}"
            self._rows.append(key)
            self._row_for_step.setdefault(str(step.id), []).append(key)
            table.add_row(
                f"{step_index + 1}.{item_index + 1}",
                step.id or "?",
                item.kind_of_data.replace("_", " "),
                Text(describe.item_words(item, self.chains, self.quote)),
                Text("waiting", style=STATE_STYLES["waiting"]),
                key=key,
                height=None,
            )

    # -- the run -----------------------------------------------------------------------------

    def start(self) -> None:
        if not self.running and self.outcome is None:
            self.running = True
            self.execute()

    @work(group="execute", exclusive=True, exit_on_error=False, name="Execute")
    async def execute(self) -> None:
        services = self.crossdeck.services
        await self.crossdeck.services_ready.wait()
        await self.crossdeck.ensure_keyring_unlocked()
        executor = await services.executor(self._confirm)
        events = (
            executor.resume(self.request_id)
            if self.resume and self.request_id is not None
            else executor.run(self.quote, request=self.request)
        )
        noted = False
        try:
            async for event in events:
                if not noted and isinstance(event, ev.GuardsChecked):
                    noted = True  # /chains is read by then: say which RPC URLs are its
                    notes: list[str] = getattr(executor.gateways, "notes", lambda _q: [])(
                        self.quote
                    )
                    for note in notes:
                        self._say(note, "yellow")
                self.post_message(ExecutionEvent(event))
        finally:
            await services.close_executor(executor)

    async def _confirm(self, request: ev.SignRequest) -> bool:
        """Asked by the executor before every signature: the dialog's answer."""
        signer = self.crossdeck.services.signer_words
        answer = await self.app.push_screen_wait(ConfirmScreen(request, signer, self._move()))
        return bool(answer)  # None when the dialog is dismissed without an answer

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "execute" and event.state in (
            WorkerState.ERROR,
            WorkerState.CANCELLED,
            WorkerState.SUCCESS,
        ):
            self.running = False
        if event.worker.group == "execute" and event.state is WorkerState.ERROR:
            self.start_failed = True
            # the run could not start (no signer, locked keyring): nothing was signed
            error = event.worker.error
            text = Text("FAILED", style="bold red")
            text.append(f"  before anything was signed: {getattr(error, 'message', error)}")
            self.query_one("#exec-result", Static).update(text)

    # -- events ------------------------------------------------------------------------------

    def on_execution_event(self, message: ExecutionEvent) -> None:
        self.apply(message.event)

    def apply(self, event: ev.RunEvent) -> None:
        """Show one executor event (public so tests and snapshots can replay a run)."""
        self.events.append(event)
        match event:  # over the closed union: mypy says so when an event is not shown
            case ev.RunStarted():
                self._show_RunStarted(event)
            case ev.GuardsChecked():
                self._show_GuardsChecked(event)
            case ev.StepStarted():
                self._show_StepStarted(event)
            case ev.AwaitingConfirmation():
                self._show_AwaitingConfirmation(event)
            case ev.AwaitingSignature():
                self._show_AwaitingSignature(event)
            case ev.Signed():
                self._show_Signed(event)
            case ev.TxSent():
                self._show_TxSent(event)
            case ev.TxConfirmed():
                self._show_TxConfirmed(event)
            case ev.Posted():
                self._show_Posted(event)
            case ev.VenueSubmitted():
                self._show_VenueSubmitted(event)
            case ev.ItemSkipped():
                self._show_ItemSkipped(event)
            case ev.Note():
                self._show_Note(event)
            case ev.StatusChanged():
                self._show_StatusChanged(event)
            case ev.Finished():
                self._show_Finished(event)
            case ev.Failed():
                self._show_Failed(event)
            case _:
                assert_never(event)
        shown = self._log.copy()
        shown.rstrip()  # the last line's newline would scroll an empty line into view
        self.query_one("#exec-log-text", Static).update(shown)
        self.query_one("#exec-log", VerticalScroll).scroll_end(animate=False)

    def _say(self, text: str, style: str = "") -> None:
        stamp = self.crossdeck.clock().strftime("%H:%M:%S")
        self._log.append(f"{stamp} ", style="dim")
        self._log.append(text + "\n", style=style)

    def _row(self, step_id: str | None, item_index: int) -> str | None:
        rows = self._row_for_step.get(str(step_id), [])
        return rows[item_index] if item_index < len(rows) else None

    def _set_state(self, key: str | None, state: str, detail: str = "") -> None:
        if key is None:
            return
        table = self.query_one("#exec-items", DataTable)
        label = Text(state, style=STATE_STYLES.get(state, ""))
        if detail:
            label.append(f" {detail}", style="")
        table.update_cell(key, table.ordered_columns[4].key, label, update_width=True)

    def _show_GuardsChecked(self, event: ev.GuardsChecked) -> None:
        self._guards = event.results
        text = Text()
        for result in event.results:
            # passed guards in one line each; a failure with its reason
            mark, style = ("✓", "green") if result.ok else ("✗", "bold red")
            text.append(f"{mark} {result.name}", style=style)
            if result.where:
                text.append(f"  {result.where.removeprefix('step ')}", style="dim")
            text.append("\n" if result.ok else f"\n    {result.message}\n")
        self.query_one("#exec-guards-text", Static).update(text)
        failed = sum(1 for r in event.results if not r.ok)
        if failed:
            self._say(f"{failed} guard(s) failed: nothing will be signed", "bold red")
        else:
            self._say(f"all {len(event.results)} guards passed")

    def _show_RunStarted(self, event: ev.RunStarted) -> None:
        self._say(f"run started for {event.request_id} from {event.wallet}")
        if event.resumed:  # something of it was sent before: follow it at once
            self._follow_on_live()

    def _follow_on_live(self) -> None:
        """Live status follows the request once something of it has left the machine (a run
        declined or refused before that is never followed: the service never heard of it)."""
        if self.followed or self.request_id is None:
            return
        self.followed = True
        if recipient := sent_to(self.request, self.chains):
            self.crossdeck.remember_recipient(*recipient)  # the Quote options' recent ones
        try:
            self.crossdeck.track_request(self.request_id)
        except Exception as exc:  # the run matters more than following it on Live
            self._say(f"cannot follow it on Live status: {exc}", "yellow")

    def _show_StepStarted(self, event: ev.StepStarted) -> None:
        key = self._row(event.step_id, event.item_index)
        self._current_row = key
        self._set_state(key, "started")
        self._say(f"step {event.step_id} item {event.item_index + 1}: {event.action or event.kind}")

    def _show_AwaitingConfirmation(self, event: ev.AwaitingConfirmation) -> None:
        self._set_state(self._current_row, "confirm?")
        self._say(f"waiting for your confirmation: {event.what.title}", "yellow")

    def _show_AwaitingSignature(self, event: ev.AwaitingSignature) -> None:
        self._set_state(self._current_row, "confirm?")
        self._say(f"waiting for your signature: {event.what.title}", "yellow")

    def _show_Signed(self, event: ev.Signed) -> None:
        self._set_state(self._row(event.step_id, event.item_index), "signed")
        self._say(f"signed ({event.kind.replace('_', ' ')})")

    def _show_TxSent(self, event: ev.TxSent) -> None:
        self._follow_on_live()
        self._set_state(self._row(event.step_id, event.item_index), "sent", short(event.hash))
        self._say(event.words())

    def _show_TxConfirmed(self, event: ev.TxConfirmed) -> None:
        key = self._row(event.step_id, event.item_index)
        self._set_state(key, "confirmed", short(event.hash))
        self._say(event.words().replace("mined", "confirmed"), "green")

    def _show_Posted(self, event: ev.Posted) -> None:
        self._follow_on_live()
        self._set_state(self._row(event.step_id, event.item_index), "posted", event.endpoint)
        self._say(f"posted the signature to {event.endpoint}", "green")
        for step_id in event.appended_steps:
            self._say(f"the service added step {step_id}")
        # the executor appends to its own copy of the quote: the event carries the steps
        for wire in event.appended:
            self._add_step_rows(self._steps_shown, Step.from_wire(wire))

    def _show_VenueSubmitted(self, event: ev.VenueSubmitted) -> None:
        self._follow_on_live()
        key = self._row(event.step_id, event.item_index)
        self._set_state(key, "submitted", f"venue nonce {event.nonce}")
        self._say(f"the venue accepted the transfer (nonce {event.nonce})", "green")

    def _show_ItemSkipped(self, event: ev.ItemSkipped) -> None:
        self._set_state(self._row(event.step_id, event.item_index), "skipped")
        self._say(f"skipped: {event.reason}")

    def _show_Note(self, event: ev.Note) -> None:
        self._say(event.message)

    def _show_StatusChanged(self, event: ev.StatusChanged) -> None:
        age = f", {age_words(event.updated_at_ms, None, None)}" if event.updated_at_ms else ""
        parts = [f"status {event.status} ({event.source}{age})"]
        if event.source == "poll" and "down" in (_crossdeck_app(self).live.socket_note or ""):
            parts.append("status socket down: polling stands in")
        if event.in_tx_hashes:
            parts.append("in " + ", ".join(short(h) for h in event.in_tx_hashes))
        if event.tx_hashes:
            parts.append("out " + ", ".join(short(h) for h in event.tx_hashes))
        if why := reason_words(event.fail_reason):
            parts.append(f"why: {why}")
        if refund := reason_words(event.refund_fail_reason, refund=True):
            parts.append(f"refund: {refund}")
        self._say(" · ".join(parts), "cyan")

    def _show_Finished(self, event: ev.Finished) -> None:
        self.outcome = event
        self.running = False
        style = FINAL_STYLES.get(event.status, "bold red")
        text = Text(f"{event.status.upper()}", style=style)
        text.append(f"  request {event.request_id}")
        # right under the outcome: the result shows at most 5 lines, and at 80x24 a child named
        # last was cut off, though it is the money coming back
        for child in event.children:  # e.g. the refund of what a deposit address got too much
            text.append(f"\nchild request {child.words()}", style="bold")
        if event.children_note:
            text.append(f"\n{event.children_note}", style="yellow")
        if event.refund is not None:  # the money coming back, then why, before the detail
            chain = event.refund.chain_id
            name = describe.chain_name(self.chains, chain) if chain is not None else None
            text.append("\n" + event.refund.words(name), style="bold")
        text.append(reasons_text(event))
        if event.tx_hashes:
            # a refund's transactions are the refund, not a fill
            text.append(f"\n{out_leg(event.status)} " + ", ".join(event.tx_hashes))
        text.append(came_back_text(event))
        self.query_one("#exec-result", Static).update(text)
        self._say(f"finished: {event.status}", style)
        refunded = f": {event.refund.words()}" if event.refund is not None else ""
        for child in event.children:
            self._say(f"child request {child.words()}")
        self.notify(
            f"request finished: {event.status}{refunded}",
            title="Execute",
            severity="information" if event.status == "success" else "warning",
        )

    def _show_Failed(self, event: ev.Failed) -> None:
        self.outcome = event
        self.running = False
        if not self.followed and self.request_id is not None:
            # nothing was sent: neither Live status nor `crossdeck watch` follows it
            self.crossdeck.forget_unsent(self.request_id)
        self._set_state(self._current_row, "failed")
        refused = event.error_type == "GuardRefused"
        if event.error_type == "Declined":
            self._show_declined(event)
            return
        if refused:
            text = Text("REFUSED", style="bold red")
            text.append("  before signing: nothing was signed or sent; do not execute this quote")
            seen: set[tuple[str, str]] = set()
            for failure in event.failures:
                if (failure.name, failure.message) not in seen:
                    seen.add((failure.name, failure.message))
                    text.append(f"\n✗ {failure.name}: {failure.message}", style="red")
        else:
            text = Text("FAILED", style="bold red")
            text.append(f"  {event.error}")
        self.query_one("#exec-result", Static).update(text)
        self._say(f"{'refused' if refused else 'failed'}: {event.error}", "bold red")
        self.notify(
            event.error,
            title="Refused before signing" if refused else "Execution failed",
            severity="error",
            timeout=20,
        )

    def _show_declined(self, event: ev.Failed) -> None:
        """Declining is the user's choice, not a failure: said plainly, in no alarm colour."""
        self._set_state(self._current_row, "declined")
        sent = "what was sent before goes on" if self.followed else "nothing was sent"
        text = Text("DECLINED", style="bold yellow")
        text.append(f"  {event.error.removeprefix('declined: ')}: {sent}")
        self.query_one("#exec-result", Static).update(text)
        self._say(f"declined: {sent}", "yellow")

    # -- actions -----------------------------------------------------------------------------

    def action_back(self) -> None:
        if self.running:
            self.notify(
                "the run is still going; wait for it to end (or quit: it is journaled and "
                "`crossdeck resume` continues it)",
                title="Execute",
                severity="warning",
            )
            return
        self.dismiss(self.outcome)

    def action_live(self) -> None:
        self.app.switch_mode("live")

    def copyables(self) -> list[Copyable]:
        return [Copyable("request id", self.request_id)] if self.request_id else []

    def tx_links(self) -> list[TxLink]:
        """The run's transactions as they came, then the fill on the destination chain."""
        links = [
            tx_link(self.chains, "transaction", event.chain_id, event.hash)
            for event in self.events
            if isinstance(event, ev.TxSent)
        ]
        if isinstance(self.outcome, ev.Finished):
            destination = self.request.destination_chain_id if self.request else None
            leg = out_leg(self.outcome.status)
            links += [tx_link(self.chains, leg, destination, h) for h in self.outcome.tx_hashes]
        return links

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Back to the quote", "escape (once the run has ended)",
                            self.action_back)  # fmt: skip
        yield SystemCommand("Open Live status", "ctrl+l", self.action_live)
        yield from self.copy_commands()
