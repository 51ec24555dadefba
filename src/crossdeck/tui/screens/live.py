"""Live status: every request the app follows (from Execute, History, or typed in) with its status
timeline: when each update was seen (UTC), the status, its source (poll, webhook, or settle when
a failure held), the service's updatedAt, the transactions and the fail/refund-fail reasons."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Static

from crossdeck.errors import CrossdeckError
from crossdeck.models.text import short
from crossdeck.tui.live import TrackedRequest, clock_text, updated_text
from crossdeck.tui.screens.base import ModeScreen
from crossdeck.tui.widgets.status_style import status_text


class LiveScreen(ModeScreen):
    MODE = "live"
    BINDINGS: ClassVar = [
        Binding(
            "slash",
            "focus_add",
            "Track id",
            id="live.add",
            tooltip="Type a request id to follow (0x + 64 hex digits)",
        ),
        Binding(
            "x",
            "untrack",
            "Untrack",
            id="live.untrack",
            tooltip="Stop following the selected request",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._order: list[str] = []
        self._selected: str | None = None

    def compose_body(self) -> ComposeResult:
        yield Static("", id="live-webhooks")
        with Horizontal(id="live-body"):
            with Vertical(id="live-left", classes="pane"):
                yield Input(placeholder="request id to follow (enter)", id="live-add", compact=True)
                yield DataTable(id="live-requests", cursor_type="row")
            with Vertical(id="live-right", classes="pane"):
                yield Static("Select a request to see its timeline.", id="live-summary")
                yield DataTable(id="live-timeline", cursor_type="row", show_cursor=False)

    def on_mount(self) -> None:
        self.query_one("#live-left").border_title = "Tracked requests"
        self.query_one("#live-right").border_title = "Timeline (UTC)"
        requests = self.query_one("#live-requests", DataTable)
        requests.add_columns("request", "status", "updates", "last seen")
        timeline = self.query_one("#live-timeline", DataTable)
        timeline.add_columns("seen", "status", "source", "updatedAt", "in tx", "out tx", "reason")
        self.crossdeck.live_changed.subscribe(self, self._board_changed)
        self.refresh_board()

    def _board_changed(self, _request_id: str | None) -> None:
        self.refresh_board()

    def refresh_board(self) -> None:
        board = self.crossdeck.live
        note = board.webhook_note
        if board.webhook_url:
            hook = Text(f"webhooks: {board.webhook_url}", style="green")
            hook.append("  (ask the service operator to send status webhooks here)", style="dim")
        else:
            hook = Text(f"webhooks: off ({note or 'starting'}); polling only", style="yellow")
        self.query_one("#live-webhooks", Static).update(hook)

        table = self.query_one("#live-requests", DataTable)
        cursor = table.cursor_row
        table.clear()
        self._order = list(board.requests)
        for rid in self._order:
            tracked = board.requests[rid]
            latest = tracked.latest
            table.add_row(
                short(rid, 8, 4),
                status_text(tracked.status),
                str(len(tracked.timeline)),
                clock_text(latest.observed_at) if latest else "-",
                key=rid,
            )
        if self._order:
            if self._selected in self._order:
                table.move_cursor(row=self._order.index(self._selected))
            else:
                table.move_cursor(row=min(cursor, len(self._order) - 1))
                self._selected = self._order[table.cursor_row]
        self._render_timeline()

    def _render_timeline(self) -> None:
        summary = self.query_one("#live-summary", Static)
        timeline = self.query_one("#live-timeline", DataTable)
        timeline.clear()
        tracked = self.crossdeck.live.get(self._selected) if self._selected else None
        if tracked is None:
            summary.update("Select a request to see its timeline.")
            return
        summary.update(self._summary(tracked))
        for update in tracked.timeline:
            reasons = []
            if update.fail_reason and update.fail_reason != "N/A":
                reasons.append(f"fail {update.fail_reason}")
            if update.refund_fail_reason and update.refund_fail_reason != "N/A":
                reasons.append(f"refund fail {update.refund_fail_reason}")
            status = str(update.status) + (" (final)" if update.final else "")
            timeline.add_row(
                clock_text(update.observed_at),
                status_text(str(update.status), status),
                update.source.value,
                updated_text(update.updated_at_ms),
                short(update.in_tx_hashes[0]) if update.in_tx_hashes else "-",
                short(update.tx_hashes[0]) if update.tx_hashes else "-",
                ", ".join(reasons) or "-",
            )

    @staticmethod
    def _summary(tracked: TrackedRequest) -> Text:
        text = Text()
        text.append(tracked.request_id, style="bold")
        text.append_text(status_text(tracked.status, f"\nstatus {tracked.status}"))
        latest = tracked.latest
        if latest is not None:
            text.append(f" · {len(tracked.timeline)} update(s)")
            if latest.origin_chain_id is not None:
                text.append(f" · chains {latest.origin_chain_id} -> {latest.destination_chain_id}")
            if latest.fail_reason and latest.fail_reason != "N/A":
                text.append(f"\nfailReason {latest.fail_reason}", style="red")
            if latest.refund_fail_reason and latest.refund_fail_reason != "N/A":
                text.append(f"\nrefundFailReason {latest.refund_fail_reason}", style="red")
        if tracked.problem:
            text.append(f"\n{tracked.problem}", style="yellow")
        return text

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "live-requests" and event.row_key.value is not None:
            self._selected = str(event.row_key.value)
            self._render_timeline()

    @on(Input.Submitted, "#live-add")
    def _add(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            return
        try:
            self.crossdeck.track_request(value)
        except CrossdeckError as exc:
            self.crossdeck.show_error(exc, "Track")
            return
        event.input.value = ""
        self._selected = value.lower()
        self.refresh_board()

    def action_focus_add(self) -> None:
        self.query_one("#live-add", Input).focus()

    def action_untrack(self) -> None:
        if self._selected:
            self.crossdeck.untrack_request(self._selected)
            self._selected = None
            self.refresh_board()

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Track a request id", "Type it in (/)", self.action_focus_add)
        yield SystemCommand("Stop tracking the selected request", "x", self.action_untrack)
