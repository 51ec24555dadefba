"""The History screen's listing: the filter bar, the table of requests and the detail pane,
drawn from a `HistoryFeed` (crossdeck.history.feed), which holds the listing's state (the pages,
the rows held, the newer check, the child requests) and reads the service. This class renders
it: it starts the reads in workers under the app's time limit, puts the feed's window in the
table (appended, or rebuilt in place when the window slid so the view does not jump), reads the
page before or after as the cursor or the scroll nears an end, and shows the highlighted row's
detail and children. `HistoryScreen` (screens/history.py) adds the keys and what they do."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, Static

from crossdeck.tui.copy_links import CopiesAndLinks
from crossdeck.tui.screens.base import WIDE_SCREEN, ModeScreen
from crossdeck.tui.waits import service_at, within
from crossdeck.tui.widgets.history_detail import HistoryDetail
from crossdeck.tui.widgets.history_filters import OWN_API_KEY, HistoryFilterBar
from crossdeck.tui.widgets.history_table import HistoryTable
from crossdeck.tui.widgets.status_style import status_text

if TYPE_CHECKING:
    from pathlib import Path

    from textual.timer import Timer

    from crossdeck.history import HistoryRow
    from crossdeck.history.feed import FeedWindow, HistoryFeed, WindowChange
    from crossdeck.models import RequestsQuery

T = TypeVar("T")

# rows from the table's end (or top) at which the next (or previous) page is read
LOAD_MORE_MARGIN = 5
# holding an arrow key passes many rows: the detail pane is drawn (about two thirds of a cursor
# move's frame, bench/history_bench.py) and children looked up for the row the cursor rests on
DETAIL_DELAY = 0.06
CHILD_LOOKUP_DELAY = 0.25


class RowsLoaded(Message):
    """The rows the table should hold (`HistoryFeed.load`'s window)."""

    def __init__(self, window: FeedWindow) -> None:
        super().__init__()
        self.window = window


class HistoryListing(CopiesAndLinks, ModeScreen):
    """The table, the filter bar and the detail pane over a `HistoryFeed`."""

    def __init__(self) -> None:
        super().__init__()
        from crossdeck.history.feed import HistoryFeed

        # the listing's state (pages, rows held, newer check, children); this screen draws it
        self.feed: HistoryFeed = HistoryFeed(wait=self._within)
        self._prefilled = False
        self._sliding = False
        self._detail_id: str | None = None
        self._links_loaded = False
        self._columns: list[Any] = []
        self._detail_timer: Timer | None = None
        self.last_export: Path | None = None

    async def _within(self, reading: Awaitable[T], *, what: str) -> T:
        """The feed's reads, each under the app's time limit on a network wait."""
        return await within(
            reading, what=what, where=service_at(self.crossdeck.settings), retry="ctrl+r"
        )

    def compose_body(self) -> ComposeResult:
        yield HistoryFilterBar(id="history-filters")
        yield Static("Loading your requests…", id="history-status")
        yield HistoryTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield HistoryDetail(id="history-detail")

    def on_mount(self) -> None:

        table = self.query_one(DataTable)
        self._add_columns(table)
        table.border_title = "Requests"
        # two lines (counts, then the filters); inline, as app.tcss sets one for the old screen
        self.query_one("#history-status", Static).styles.height = 2
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self.load(reset=True)
        self.load_links()
        every = self.crossdeck.settings.tracking.history_refresh_seconds
        if every > 0:
            self.set_interval(every, self._newer_tick, name="history newer check")

    # -- the query ---------------------------------------------------------------------------

    @property
    def filter_bar(self) -> HistoryFilterBar:
        return self.query_one(HistoryFilterBar)

    @property
    def query_in_use(self) -> RequestsQuery | None:
        return self.feed.query_in_use

    def build_current_query(self) -> RequestsQuery:
        """The query of the filter bar, sort toggles and quick filters (FilterError if bad)."""
        values = self.filter_bar.values()
        own_api_key = bool(values.pop(OWN_API_KEY))
        services = self.crossdeck.services
        secrets = services.secrets
        return self.feed.build_query(
            values,
            own_api_key=own_api_key,
            api_key=secrets.api_key if secrets is not None else None,
            wallet=services.wallet_address,
        )

    def apply_filters(self) -> bool:
        """Check the filters; when they are good, reload from the first page. A bad filter is
        shown at its field and notified, and no request is sent."""
        from crossdeck.history import FilterError

        try:
            query = self.build_current_query()
        except FilterError as exc:
            bad = self.filter_bar.show_error(exc.field, f"{exc.field}: {exc.reason}")
            hint = f" ({exc.hint})" if getattr(exc, "hint", None) else ""
            self.notify(
                f"{exc.field}: {exc.reason}{hint}", title="Filter not applied", severity="error"
            )
            if bad is not None:
                bad.focus()
            return False
        self.filter_bar.show_error(None)
        self.feed.apply(query)
        self.load(reset=True)
        return True

    async def _start_feed(self) -> None:
        """The feed's listing, the first time: the wallet as the user filter unless one is
        typed, once the secrets are read."""
        if self.feed.started:
            return
        app = self.crossdeck
        await app.services_ready.wait()
        if not self._prefilled:
            self._prefilled = True
            if not self.filter_bar.text("user"):
                self.filter_bar.set_value("user", app.services.wallet_address or "")
        if not self.feed.started:
            self.feed.start(app.services.service, self.build_current_query())

    # -- loading -----------------------------------------------------------------------------

    @work(group="history", exclusive=True, exit_on_error=False, name="Loading history")
    async def load(self, *, reset: bool = False, earlier: bool = False) -> None:
        """The first page (reset), the page after the window, or (earlier) the one before it;
        the window as it then is goes to the table."""
        await self._start_feed()
        try:
            window = await self.feed.load(reset=reset, earlier=earlier)
        except BaseException as exc:
            self._settled()  # no page to wait for: tracking need not wait either
            self._say_no_listing(exc)
            raise
        self.post_message(RowsLoaded(window))

    def _say_no_listing(self, error: BaseException) -> None:
        """With no listing that serves this profile (no API key, v2 retired), the status line
        says so and what to run, instead of an empty table or 'Loading' that never ends."""
        from crossdeck.history.feed import no_listing_text

        text = no_listing_text(error)
        if text is not None:
            self.query_one("#history-status", Static).update(text)

    @work(group="history-chains", exclusive=True, exit_on_error=False, name="Loading chains")
    async def load_links(self) -> None:
        from crossdeck.base.errors import CrossdeckError
        from crossdeck.history import ExplorerLinks

        app = self.crossdeck
        await app.services_ready.wait()
        try:
            chains = await within(
                app.services.chains(),
                what="the service (/chains)",
                where=service_at(app.settings),
                retry="ctrl+r",
            )
            links = ExplorerLinks(chains)
        except CrossdeckError as exc:
            self.query_one(HistoryDetail).links_failed(str(exc))
            return
        self._links_loaded = True
        self.query_one(HistoryDetail).set_links(links)

    @work(group="history-children", exclusive=True, exit_on_error=False, name="Child requests")
    async def load_children(self, request_id: str) -> None:
        import asyncio

        from crossdeck.base.errors import CrossdeckError

        await asyncio.sleep(CHILD_LOOKUP_DELAY)
        detail = self.query_one(HistoryDetail)
        try:
            children = await self.feed.load_children(self.crossdeck.services.service, request_id)
        except CrossdeckError as exc:
            detail.children_failed(request_id, str(exc))
            return
        detail.set_children(children)

    def _newer_tick(self) -> None:
        if self.is_current and self.feed.wants_newer_check:
            self.check_newer()

    @work(group="history-newer", exclusive=True, exit_on_error=False, name="New requests")
    async def check_newer(self) -> None:
        """Read the first page again: changed rows are updated where they are; new ones are
        counted in the status line (ctrl+r shows them) rather than pushing the rows down
        under the cursor."""
        from crossdeck.base.errors import CrossdeckError

        if not self.feed.started:
            return
        try:
            seen = await self.feed.check_newer()
        except CrossdeckError:
            return  # the rows shown stay as they are; the next tick asks again
        table = self.query_one(DataTable)
        selected = self.selected_request_id()
        for row in seen.changed:
            for column, cell in zip(self._columns, self._cells(row), strict=True):
                table.update_cell(row.id, column, cell)
            if row.id == selected:
                self._show_detail()
        if seen.status_changed:
            self._update_status()

    def _add_columns(self, table: DataTable[Any]) -> None:
        """Under 100 columns the transactions stay in the detail pane (b opens them): the
        columns shown then fit whole, amounts included."""
        from crossdeck.history import TABLE_COLUMNS

        narrow = self.app.size.width < WIDE_SCREEN
        self._columns = table.add_columns(*(TABLE_COLUMNS[:-2] if narrow else TABLE_COLUMNS))

    def on_resize(self) -> None:
        """Resized live across the wide/narrow line: the columns (and rows) as if the app had
        started at this size, the cursor on its row (no hash cut mid-way in a column that
        no longer fits)."""
        from crossdeck.history import TABLE_COLUMNS

        narrow = self.app.size.width < WIDE_SCREEN
        if not self.is_mounted or len(self._columns) == (
            len(TABLE_COLUMNS) - 2 if narrow else len(TABLE_COLUMNS)
        ):
            return
        table = self.query_one(HistoryTable)
        cursor = table.cursor_row
        self._sliding = True  # the rebuild's own cursor moves load nothing
        try:
            table.clear(columns=True)
            self._add_columns(table)
            self._add_rows(table, (self.feed.rows[i] for i in self.feed.ids))
            if self.feed.ids:
                table.move_cursor(row=min(cursor, len(self.feed.ids) - 1))
        finally:
            self._sliding = False

    def _cells(self, row: HistoryRow) -> list[Any]:
        cells: list[Any] = list(row.cells())[: len(self._columns)]
        cells[1] = status_text(row.status)
        return cells

    def on_rows_loaded(self, message: RowsLoaded) -> None:
        table = self.query_one(HistoryTable)
        window = message.window
        change = self.feed.take(window)
        if change.slid:
            self._slide(table, change)
        else:
            if change.cleared:
                table.clear()
            self._add_rows(table, change.added)
        self._update_status()
        self._tell_deprecation()
        if window.reset:
            # after the frame that paints the rows: the detail pane (a table measured for its
            # height, about as long to draw as the rows) would otherwise hold them back
            table.call_after_rows_painted(self._show_detail)
            table.call_after_rows_painted(self._settled)

    def _settled(self) -> None:
        """The first page is shown (or did not come): the app may start live tracking, whose
        start would have competed with the page for the interpreter."""
        self.crossdeck.first_screen_settled.set()

    def _add_rows(self, table: DataTable[Any], rows: Iterable[HistoryRow]) -> None:
        for row in rows:
            table.add_row(*self._cells(row), key=row.id)

    def _slide(self, table: DataTable[Any], change: WindowChange) -> None:
        """The window slid (a page dropped at one end, read at the other): the table is
        rebuilt, the rows kept on the same screen lines and the cursor on its row, so the view
        does not jump (the cursor moves to the nearest row if its page went)."""
        cursor, scroll = table.cursor_row, table.scroll_y
        self._sliding = True  # the rebuild's own cursor and scroll moves load nothing
        try:
            table.clear()
            self._add_rows(table, change.added)
            last = max(len(self.feed.ids) - 1, 0)
            if change.shift is None:  # nothing in common (the listing changed): the nearer end
                shift, target = 0, 0 if cursor < change.before // 2 else last
            else:
                shift = change.shift
                target = min(max(cursor + shift, 0), last)
            # the table keeps its measured height until it next measures its rows: a full
            # window has as many rows as before, so this scroll stands; otherwise the cursor
            # is scrolled into view after the next refresh
            table.scroll_target_y = table.scroll_y = max(scroll + shift, 0)
            table.move_cursor(row=target, scroll=False)
        finally:
            self._sliding = False

    def _tell_deprecation(self) -> None:
        """Notify once per screen when the listing answered with a deprecation notice."""
        notice = self.feed.untold_deprecation()
        if notice is None:
            return
        guide = f"\nMigration guide: {notice.migration_guide}" if notice.migration_guide else ""
        self.notify(
            f"{notice.text}{guide}",
            title="Request listing deprecated",
            severity="warning",
            timeout=15,
        )

    def _update_status(self) -> None:
        self.query_one("#history-status", Static).update(self.feed.status_text())

    def _load_more_if_open(self, *, earlier: bool = False) -> None:
        if self.feed.can_load(earlier=earlier):
            self.load(earlier=earlier)

    def _scrolled(self, _old: float, _new: float) -> None:
        # the table's scroll now, not the value this call was made for (a window rebuild
        # passes through 0 on its way back to where the rows were)
        table = self.query_one(DataTable)
        if self._sliding:
            return
        if table.max_scroll_y - table.scroll_y <= LOAD_MORE_MARGIN:
            self._load_more_if_open()
        elif table.scroll_y <= LOAD_MORE_MARGIN:
            self._load_more_if_open(earlier=True)

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        # where the cursor is now: a highlight posted during a window rebuild is stale
        row = self.query_one(DataTable).cursor_row
        if self.selected_request_id() != self._detail_id:
            self._show_detail_soon()
        if row >= len(self.feed.ids) - LOAD_MORE_MARGIN:
            self._load_more_if_open()
        elif row < LOAD_MORE_MARGIN:
            self._load_more_if_open(earlier=True)

    def on_history_table_first_row(self, _event: HistoryTable.FirstRow) -> None:
        """Home: the first row of the listing, read again when its page left the window."""
        if self.feed.has_earlier:
            self.load(reset=True)

    def _show_detail_soon(self) -> None:
        if self._detail_timer is not None:
            self._detail_timer.stop()
        self._detail_timer = self.set_timer(DETAIL_DELAY, self._show_detail)

    def _show_detail(self) -> None:
        if self._detail_timer is not None:
            self._detail_timer.stop()
            self._detail_timer = None
        request_id = self.selected_request_id()
        self._detail_id = request_id
        row = self.feed.rows.get(request_id) if request_id else None
        known = self.feed.known_children(row.id) if row is not None else None
        self.query_one(HistoryDetail).show(row, known)
        if row is not None and known is None:
            self.load_children(row.id)

    def selected_request_id(self) -> str | None:
        table = self.query_one(DataTable)
        ids = self.feed.ids
        if not ids or table.cursor_row >= len(ids):
            return None
        return ids[table.cursor_row]

    def selected_row(self) -> HistoryRow | None:
        return self.feed.rows.get(self.selected_request_id() or "")
