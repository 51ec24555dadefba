"""History: the wallet's requests from GET /requests/v2, newest first, loaded a page at a time as
the cursor nears the end; enter (or t) follows the selected request on the Live status screen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Static

from crossdeck.tui.screens.base import ModeScreen

if TYPE_CHECKING:
    from crossdeck.history import HistoryRow, PagedLoader

STATUS_STYLES = {
    "success": "green",
    "refund": "yellow",
    "failure": "red",
    "pending": "cyan",
    "depositing": "cyan",
    "submitted": "cyan",
    "waiting": "dim",
}
PAGE_SIZE = 20
LOAD_MORE_MARGIN = 5


class RowsLoaded(Message):
    def __init__(self, rows: list[HistoryRow], *, reset: bool, has_more: bool) -> None:
        super().__init__()
        self.rows = rows
        self.reset = reset
        self.has_more = has_more


class HistoryScreen(ModeScreen):
    MODE = "history"
    BINDINGS: ClassVar = [
        Binding(
            "ctrl+r",
            "refresh",
            "Refresh",
            id="history.refresh",
            priority=True,
            tooltip="Load the first page again (new requests appear on top)",
        ),
        Binding(
            "t",
            "track",
            "Track",
            id="history.track",
            tooltip="Follow the selected request on the Live status screen",
        ),
        Binding("m", "more", "More", id="history.more", tooltip="Load the next page of requests"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._loader: PagedLoader | None = None
        self._ids: list[str] = []

    def compose_body(self) -> ComposeResult:
        yield Static("Loading your requests…", id="history-status")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        from crossdeck.history import TABLE_COLUMNS

        table = self.query_one(DataTable)
        table.add_columns(*TABLE_COLUMNS)
        table.border_title = "Requests"
        self.load(reset=True)

    async def _get_loader(self) -> PagedLoader:
        if self._loader is None:
            from crossdeck.history import PagedLoader, build_query

            app = self.crossdeck
            await app.services_ready.wait()
            user = app.services.wallet_address
            query = build_query(user=user, sort_by="createdAt", sort_direction="desc")
            self._loader = PagedLoader(app.services.service, query, page_size=PAGE_SIZE)
        return self._loader

    @work(group="history", exclusive=True, exit_on_error=False, name="Loading history")
    async def load(self, *, reset: bool = False) -> None:
        loader = await self._get_loader()
        rows = await (loader.refresh() if reset else loader.load_next())
        self.post_message(RowsLoaded(rows, reset=reset, has_more=loader.has_more))

    def on_rows_loaded(self, message: RowsLoaded) -> None:
        table = self.query_one(DataTable)
        if message.reset:
            table.clear()
            self._ids = []
        for row in message.rows:
            if row.id in self._ids:
                continue
            self._ids.append(row.id)
            cells: list[Any] = list(row.cells())
            cells[1] = Text(row.status, style=STATUS_STYLES.get(row.status, ""))
            table.add_row(*cells, key=row.id)
        more = "more below: m or scroll" if message.has_more else "that is all"
        wallet = self.crossdeck.services.wallet_address or "every user"
        self.query_one("#history-status", Static).update(
            f"{len(self._ids)} request(s) of {wallet}, newest first · {more} · "
            "enter/t follows one live"
        )

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        loader = self._loader
        if loader is None or not loader.has_more or loader.is_loading:
            return
        if event.cursor_row >= len(self._ids) - LOAD_MORE_MARGIN:
            self.load()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._track(event.row_key.value)

    def selected_request_id(self) -> str | None:
        table = self.query_one(DataTable)
        if not self._ids or table.cursor_row >= len(self._ids):
            return None
        return self._ids[table.cursor_row]

    def _track(self, request_id: str | None) -> None:
        if request_id:
            self.crossdeck.track_request(request_id)
            self.notify(f"following {request_id[:10]}… on Live status (F5)", title="Track")

    def action_track(self) -> None:
        self._track(self.selected_request_id())

    def action_refresh(self) -> None:
        self.load(reset=True)

    def action_more(self) -> None:
        if self._loader is not None and not self._loader.has_more:
            self.notify("no more requests", title="History")
            return
        self.load()

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Refresh history", "Load the first page again (ctrl+r)", self.action_refresh
        )
        yield SystemCommand("Track the selected request", "On Live status (t)", self.action_track)
