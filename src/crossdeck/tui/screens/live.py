"""Live status: every request the app follows (from Execute, History, or typed in), what it sent
and received (units and USD, from the service's record: `crossdeck.history.came_back`), and its
status timeline: when each update was seen (UTC), the status, its source (poll, webhook, or
settle when a failure held), the service's updatedAt, the transactions and the reasons."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Static

from crossdeck.base.errors import CrossdeckError
from crossdeck.models.fail_reasons import reason_words
from crossdeck.models.text import short
from crossdeck.tui.copy_links import (
    CopiesAndLinks,
    Copyable,
    TxLink,
    copy_binding,
    explorer_binding,
    tx_link,
)
from crossdeck.tui.live import TrackedRequest, clock_text, updated_text
from crossdeck.tui.screens.base import WIDE_SCREEN, ModeScreen
from crossdeck.tui.waits import service_at, within
from crossdeck.tui.widgets.status_style import status_text


class LiveScreen(CopiesAndLinks, ModeScreen):
    MODE = "live"
    NOTHING_TO_COPY = "select a request first"
    NO_TRANSACTION = "no transaction of it is known yet"
    # the list, not the id field: a focused text field would take x, c and b as typing
    AUTO_FOCUS = "#live-requests"
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
        copy_binding("live", "the selected request id"),
        explorer_binding("live", "the selected request's latest transaction"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._order: list[str] = []
        self._selected: str | None = None
        self._updated_column = True
        self._counts_column = True

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
        self._request_columns()
        self._timeline_columns()
        self.crossdeck.live_changed.subscribe(self, self._board_changed)
        self.refresh_board()
        self.load_chains()

    def _request_columns(self) -> None:
        """The list's columns for the app's width: what was sent and received (units and USD)
        always; under 100 columns the update count and last-seen time give way to them."""
        requests = self.query_one("#live-requests", DataTable)
        requests.clear(columns=True)
        self._counts_column = self.app.size.width >= WIDE_SCREEN
        columns = ["request", "status", "sent", "received"]
        requests.add_columns(*columns, *(["updates", "last seen"] if self._counts_column else []))

    def _timeline_columns(self) -> None:
        """The timeline's columns for the app's width: under 100 columns the service's
        updatedAt gives way (the seen time is beside it), so that both transactions and the
        reason stay on screen."""
        timeline = self.query_one("#live-timeline", DataTable)
        timeline.clear(columns=True)
        self._updated_column = self.app.size.width >= WIDE_SCREEN
        columns = ["seen", "status", "source", "updatedAt", "in tx", "out tx", "reason"]
        if not self._updated_column:
            columns.remove("updatedAt")
        timeline.add_columns(*columns)

    def on_resize(self) -> None:
        """Resized live across the wide/narrow line: the columns as if started at this size."""
        if self.is_mounted and self._updated_column != (self.app.size.width >= WIDE_SCREEN):
            self._request_columns()
            self._timeline_columns()
            self.refresh_board()

    @work(group="live-chains", exclusive=True, exit_on_error=False, name="Loading chains")
    async def load_chains(self) -> None:
        """/chains, for the explorer links of the transactions (b, and the palette)."""
        app = self.crossdeck
        await app.services_ready.wait()
        await within(
            app.services.chains(),
            what="the service (/chains)",
            where=service_at(app.settings),
            retry="ctrl+r on the Quote screen (F2)",
        )

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
        if board.socket_note:
            down = "down" in board.socket_note
            hook.append(f"\n{board.socket_note}", style="yellow" if down else "green")
        self.query_one("#live-webhooks", Static).update(hook)

        table = self.query_one("#live-requests", DataTable)
        cursor = table.cursor_row
        table.clear()
        self._order = list(board.requests)
        for rid in self._order:
            tracked = board.requests[rid]
            latest = tracked.latest
            came = tracked.came_back
            counts = [
                str(len(tracked.timeline)),
                clock_text(latest.observed_at) if latest else "-",
            ]
            table.add_row(
                short(rid, 8, 4),
                status_text(tracked.status),
                (came.sent if came else None) or "-",
                (came.received if came else None) or "-",
                *(counts if self._counts_column else []),
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
            reasons = [
                said
                for said in (
                    reason_words(update.fail_reason),
                    reason_words(update.refund_fail_reason, refund=True),
                )
                if said
            ]
            status = str(update.status) + (" (final)" if update.final else "")
            updated = [updated_text(update.updated_at_ms)] if self._updated_column else []
            timeline.add_row(
                clock_text(update.observed_at),
                status_text(str(update.status), status),
                update.source.value,
                *updated,
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
        refunded = tracked.status in ("refund", "fallback")
        if latest is not None:
            text.append(f" · {len(tracked.timeline)} update(s)")
            if latest.origin_chain_id is not None:
                text.append(f" · chains {latest.origin_chain_id} -> {latest.destination_chain_id}")
            # where the latest status came from and when it changed (the snapshot stays still)
            changed = updated_text(latest.updated_at_ms)
            text.append(f"\nlatest from {latest.source.value}, changed {changed} UTC")
            if tracked.came_back is not None and (said := tracked.came_back.line(refunded)):
                text.append(f"\n{said}")
            if why := reason_words(latest.fail_reason):
                text.append(f"\nwhy: {why}", style="red")
            if refund := reason_words(latest.refund_fail_reason, refund=True):
                text.append(f"\nrefund: {refund}", style="red")
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

    def copyables(self) -> list[Copyable]:
        return [Copyable("request id", self._selected)] if self._selected else []

    def tx_links(self) -> list[TxLink]:
        """The selected request's origin (in) and destination (out) transactions, as its
        latest status names them."""
        tracked = self.crossdeck.live.get(self._selected) if self._selected else None
        latest = tracked.latest if tracked else None
        if latest is None:
            return []
        chains = self.crossdeck.services.cached_chains
        return [
            tx_link(chains, "origin tx", latest.origin_chain_id, h) for h in latest.in_tx_hashes
        ] + [
            tx_link(chains, "destination tx", latest.destination_chain_id, h)
            for h in latest.tx_hashes
        ]

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Track a request id", "Type it in (/)", self.action_focus_add)
        yield SystemCommand("Stop tracking the selected request", "x", self.action_untrack)
        yield from self.copy_commands()
