"""History: requests from GET /requests/v3 (or the deprecated /requests/v2 where the service
does not offer v3; the status line says which, and v2's deprecation notice is shown once) under
a filter bar (every filter but apiKey, and the
three include flags, checked by `history.build_query` before any request), sort key and
direction toggles, quick filters (mine / failed / refunded), a detail pane with every field of
the highlighted request, its child requests and explorer links, and export of the current filter
to CSV or JSON. Pages load as the cursor or the scroll position nears the end; enter (or t)
follows the selected request on Live status.

The table holds a window of at most WINDOW_PAGES pages (the loader's window): paging on past it
drops its first page, and scrolling back before it reads the page before again (by the
continuation kept for it), so memory stays flat however far one pages; Home reads the first
page again. The status line says which rows of the listing are held ("requests 201-400 of
≥450")."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Checkbox, DataTable, Input, Static

from crossdeck.tui.copy_links import (
    CopiesAndLinks,
    Copyable,
    TxLink,
    copy_binding,
    explorer_binding,
    tx_link,
)
from crossdeck.tui.screens.base import WIDE_SCREEN, ModeScreen
from crossdeck.tui.waits import service_at, within
from crossdeck.tui.widgets.history_detail import HistoryDetail
from crossdeck.tui.widgets.history_filters import OWN_API_KEY, HistoryFilterBar
from crossdeck.tui.widgets.history_table import HistoryTable
from crossdeck.tui.widgets.status_style import status_text

if TYPE_CHECKING:
    from textual.timer import Timer

    from crossdeck.base.secret import Secret
    from crossdeck.history import (
        Children,
        ExportFormat,
        HistoryRow,
        NewerRows,
        PagedLoader,
        QuickFilter,
    )
    from crossdeck.models import RequestsQuery

# the service's largest page: a screenful with room to scroll, and 2.5 times fewer round trips
# than its default of 20 when paging far (bench/history_bench.py)
PAGE_SIZE = 50
# pages the table (and its loader) hold: with the cursor on the window's edge a page is read
# in, leaving a page either side of the rows on screen; at 50 a page, WINDOW_ROWS rows whatever
# the length of the listing (bench/history_bench.py: flat memory from 1,000 to 10,000 rows)
WINDOW_PAGES = 4
WINDOW_ROWS = WINDOW_PAGES * PAGE_SIZE
LOAD_MORE_MARGIN = 5
# holding an arrow key passes many rows: the detail pane is drawn (about two thirds of a cursor
# move's frame, bench/history_bench.py) and children looked up for the row the cursor rests on
DETAIL_DELAY = 0.06
CHILD_LOOKUP_DELAY = 0.25
CHILD_CACHE_SIZE = 256
# the footer shows related keys together: "so Sort", "wfrx Quick", "thmej More" (F1 says
# what each does)
SORT_GROUP = Binding.Group("Sort", compact=True)
QUICK_GROUP = Binding.Group("Quick", compact=True)
MORE_GROUP = Binding.Group("More", compact=True)


class RowsLoaded(Message):
    """The rows the table should hold: with `reset` the first page of a new listing, otherwise
    the loader's whole window after a page came or went. `offset` is the listing position of
    the first row, `earlier` whether rows before it were dropped (scrolling back re-reads
    them), `top_read` that the first page was just read again (new requests are on top now)."""

    def __init__(
        self,
        rows: list[HistoryRow],
        *,
        reset: bool,
        has_more: bool,
        offset: int = 0,
        earlier: bool = False,
        top_read: bool = False,
    ) -> None:
        super().__init__()
        self.rows = rows
        self.reset = reset
        self.has_more = has_more
        self.offset = offset
        self.earlier = earlier
        self.top_read = top_read


class HistoryScreen(CopiesAndLinks, ModeScreen):
    MODE = "history"
    LOADS_AT_START = True  # the first page: live tracking starts once its rows are painted
    NOTHING_TO_COPY = "highlight a request first"
    NO_TRANSACTION = "this request has no transaction yet"
    AUTO_FOCUS = "#history-table"
    DEFAULT_CSS = """
    HistoryScreen #history-table { height: 1fr; }
    """
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
            "slash",
            "focus_filters",
            "Filter",
            id="history.filter",
            tooltip="Edit the filters (enter applies them, escape goes back to the table)",
        ),
        copy_binding("history", "the selected request id"),
        explorer_binding("history", "the selected request's latest transaction"),
        Binding(
            "s",
            "toggle_sort_by",
            "Sort key",
            id="history.sort_by",
            group=SORT_GROUP,
            tooltip="Sort by createdAt or updatedAt (reloads from the first page)",
        ),
        Binding(
            "o",
            "toggle_direction",
            "Order",
            id="history.sort_direction",
            group=SORT_GROUP,
            tooltip="Newest first (desc) or oldest first (asc); reloads from the first page",
        ),
        Binding(
            "w",
            "quick('mine')",
            "Mine",
            id="history.quick.mine",
            group=QUICK_GROUP,
            tooltip="Quick filter: requests sent or received by this wallet (toggle)",
        ),
        Binding(
            "f",
            "quick('failed')",
            "Failed",
            id="history.quick.failed",
            group=QUICK_GROUP,
            tooltip="Quick filter: failed requests, those refunded after failing too (toggle; "
            "turns 'refunded' off)",
        ),
        Binding(
            "r",
            "quick('refunded')",
            "Refunded",
            id="history.quick.refunded",
            group=QUICK_GROUP,
            tooltip="Quick filter: refunded requests only (toggle; turns 'failed' off)",
        ),
        Binding(
            "x",
            "clear_filters",
            "Clear",
            id="history.clear",
            group=QUICK_GROUP,
            tooltip="Clear every filter and quick filter (every user's requests)",
        ),
        Binding(
            "t",
            "track",
            "Track",
            id="history.track",
            group=MORE_GROUP,
            tooltip="Follow the selected request on the Live status screen",
        ),
        Binding(
            "h",
            "children",
            "Children",
            id="history.children",
            group=MORE_GROUP,
            tooltip="List the selected request with its child requests (refunds, duplicates) "
            "as rows: its id as the filter, with child requests included",
        ),
        # scrolling loads the next page by itself; m stays for those who ask
        Binding(
            "m",
            "more",
            "Next page",
            id="history.more",
            group=MORE_GROUP,
            tooltip="Load the next page of requests",
        ),
        Binding(
            "e",
            "export('csv')",
            "CSV",
            id="history.export.csv",
            group=MORE_GROUP,
            tooltip="Export every request of the current filter to a CSV file in the data dir",
        ),
        Binding(
            "j",
            "export('json')",
            "JSON",
            id="history.export.json",
            group=MORE_GROUP,
            tooltip="Export every request of the current filter to a JSON file in the data dir",
        ),
        Binding(
            "d",
            "focus_detail",
            "Detail",
            id="history.detail",
            group=MORE_GROUP,
            tooltip="Move to the detail pane of the selected request (escape goes back to the "
            "table); tab goes there from the table too",
        ),
        Binding(
            "v",
            "toggle_raw",
            "Raw",
            id="history.raw",
            group=MORE_GROUP,
            tooltip="Show or hide every raw field of the selected request, as the service sent "
            "it, under the detail pane's sections",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._loader: PagedLoader | None = None
        self._ids: list[str] = []
        self._rows: dict[str, HistoryRow] = {}
        self._sort_by = "createdAt"
        self._sort_direction = "desc"
        self._quick: set[QuickFilter] = set()
        self._prefilled = False
        self._has_more = True
        self._offset = 0
        self._has_earlier = False
        self._sliding = False
        self._detail_id: str | None = None
        self._children: dict[str, Children] = {}
        self._links_loaded = False
        self._columns: list[Any] = []
        self._new_above = 0
        self._new_overflow = False
        self._detail_timer: Timer | None = None
        self._deprecation_told = False
        self.last_export: Path | None = None

    def compose_body(self) -> ComposeResult:
        yield HistoryFilterBar(id="history-filters")
        yield Static("Loading your requests…", id="history-status")
        yield HistoryTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield HistoryDetail(id="history-detail")

    def on_mount(self) -> None:
        from crossdeck.history import TABLE_COLUMNS

        table = self.query_one(DataTable)
        # under 100 columns the transactions stay in the detail pane (b opens them): the
        # columns shown then fit whole, amounts included
        narrow = self.app.size.width < WIDE_SCREEN
        self._columns = table.add_columns(*(TABLE_COLUMNS[:-2] if narrow else TABLE_COLUMNS))
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
        return self._loader.query if self._loader is not None else None

    def build_current_query(self) -> RequestsQuery:
        """The query of the filter bar, sort toggles and quick filters (FilterError if bad)."""
        from crossdeck.history import apply_quick_filters, build_query

        values = self.filter_bar.values()
        own_key = self._own_api_key() if values.pop(OWN_API_KEY) else None
        # values are keyed by build_query's own keywords (the filter bar's field tables), text
        # for each filter and a bool for each flag: a pairing no dict type can state
        query = build_query(
            **values,  # type: ignore[arg-type]
            api_key_filter=own_key,
            sort_by=self._sort_by,
            sort_direction=self._sort_direction,
            limit=PAGE_SIZE,
        )
        if self._quick:
            query = apply_quick_filters(
                query, self._quick, wallet=self.crossdeck.services.wallet_address
            )
        return query

    def _own_api_key(self) -> Secret:
        from crossdeck.history import FilterError

        secrets = self.crossdeck.services.secrets
        key = secrets.api_key if secrets is not None else None
        if key is None:
            raise FilterError(
                "apiKey",
                "--api-key-filter",
                "this profile has no API key",
                hint="set one with `crossdeck apikey set`",
            )
        return key

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
        if self._loader is not None:
            self._loader.reset(query)
        self.load(reset=True)
        return True

    async def _get_loader(self) -> PagedLoader:
        if self._loader is None:
            from crossdeck.history import PagedLoader

            app = self.crossdeck
            await app.services_ready.wait()
            if not self._prefilled:
                self._prefilled = True
                if not self.filter_bar.text("user"):
                    self.filter_bar.set_value("user", app.services.wallet_address or "")
            query = self.build_current_query()
            self._loader = PagedLoader(
                app.services.service, query, page_size=PAGE_SIZE, window_pages=WINDOW_PAGES
            )
        return self._loader

    # -- loading -----------------------------------------------------------------------------

    @work(group="history", exclusive=True, exit_on_error=False, name="Loading history")
    async def load(self, *, reset: bool = False, earlier: bool = False) -> None:
        """The first page (reset), the page after the window, or (earlier) the one before it;
        the window as it then is goes to the table."""
        loader = await self._get_loader()
        if reset:
            reading = loader.refresh()
        elif earlier:
            reading = loader.load_previous()
        else:
            reading = loader.load_next()
        try:
            await within(
                reading,
                what="the service (the request listing)",
                where=service_at(self.crossdeck.settings),
                retry="ctrl+r",
            )
            # 'failed' lists every status and keeps the failures (refunded ones too): read on
            # while a page's worth has not turned up, within the loader's window
            extra = 0
            while (
                self._keeps_failed
                and loader.has_more
                and extra < WINDOW_PAGES - 1
                and sum(1 for row in loader.rows if self._keep(row)) < PAGE_SIZE
            ):
                extra += 1
                await within(
                    loader.load_next(),
                    what="the service (the request listing)",
                    where=service_at(self.crossdeck.settings),
                    retry="ctrl+r",
                )
        except BaseException as exc:
            self._settled()  # no page to wait for: tracking need not wait either
            self._say_no_listing(exc)
            raise
        self.post_message(
            RowsLoaded(
                [row for row in loader.rows if self._keep(row)],
                reset=reset,
                has_more=loader.has_more,
                offset=loader.offset,
                earlier=loader.has_earlier,
                top_read=earlier and not loader.has_earlier,
            )
        )

    @property
    def _keeps_failed(self) -> bool:
        from crossdeck.history import QuickFilter

        return QuickFilter.FAILED in self._quick

    def _keep(self, row: HistoryRow) -> bool:
        """Whether a row of the listing is shown (all, but with 'failed' the failures)."""
        if not self._keeps_failed:
            return True
        from crossdeck.history import counts_as_failed, wire_value

        if row.status not in ("refund", "fallback"):
            return counts_as_failed(row.status, None)
        return counts_as_failed(row.status, wire_value(row.record, "data", "failReason"))

    def action_focus_detail(self) -> None:
        self.query_one(HistoryDetail).focus()

    def action_toggle_raw(self) -> None:
        shown = self.query_one(HistoryDetail).toggle_raw()
        self.notify(
            "raw fields shown" if shown else "raw fields hidden", title="History", timeout=2
        )

    def _say_no_listing(self, error: BaseException) -> None:
        """With no listing that serves this profile (no API key, v2 retired), the status line
        says so and what to run, instead of an empty table or 'Loading' that never ends."""
        from crossdeck.api.errors import HistoryNeedsApiKey

        if isinstance(error, HistoryNeedsApiKey):  # two lines that fit 80 columns
            why = "your API key was refused" if error.has_key else "it needs an API key"
            self.query_one("#history-status", Static).update(
                f"No history: {why} for /requests/v3, and /requests/v2 is retired\n"
                "→ run `crossdeck apikey set` for this profile, then ctrl+r"
            )

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
        from crossdeck.history import child_requests

        await asyncio.sleep(CHILD_LOOKUP_DELAY)
        query = self.query_in_use
        detail = self.query_one(HistoryDetail)
        try:
            children = await within(
                child_requests(
                    self.crossdeck.services.service,
                    request_id,
                    include_order_data=bool(query and query.include_order_data),
                    include_authenticated_data=bool(query and query.include_authenticated_data),
                ),
                what="the service (child requests)",
                where=service_at(self.crossdeck.settings),
                retry="ctrl+r",
            )
        except CrossdeckError as exc:
            detail.children_failed(request_id, str(exc))
            return
        if len(self._children) >= CHILD_CACHE_SIZE:
            self._children.pop(next(iter(self._children)))
        self._children[request_id] = children
        detail.set_children(children)

    def _newer_tick(self) -> None:
        loader = self._loader
        if (
            loader is None
            or not self.is_current
            or loader.is_loading
            or not loader.newest_first
            or not self._ids
        ):
            return
        self.check_newer()

    @work(group="history-newer", exclusive=True, exit_on_error=False, name="New requests")
    async def check_newer(self) -> None:
        """Read the first page again: changed rows are updated where they are; new ones are
        counted in the status line (ctrl+r shows them) rather than pushing the rows down
        under the cursor."""
        from crossdeck.base.errors import CrossdeckError

        loader = self._loader
        if loader is None:
            return
        try:
            newer = await within(
                loader.check_newer(),
                what="the service (new requests)",
                where=service_at(self.crossdeck.settings),
                retry="ctrl+r",
            )
        except CrossdeckError:
            return  # the rows shown stay as they are; the next tick asks again
        self._apply_newer(newer)

    def _apply_newer(self, newer: NewerRows) -> None:
        table = self.query_one(DataTable)
        selected = self.selected_request_id()
        for row in newer.changed:
            if row.id not in self._rows:
                continue
            self._rows[row.id] = row
            for column, cell in zip(self._columns, self._cells(row), strict=True):
                table.update_cell(row.id, column, cell)
            self._children.pop(row.id, None)
            if row.id == selected:
                self._show_detail()
        self._new_above += len(newer.added)
        self._new_overflow = self._new_overflow or newer.overflow
        if newer.changed or newer.added or newer.overflow:
            self._update_status()

    def _cells(self, row: HistoryRow) -> list[Any]:
        cells: list[Any] = list(row.cells())[: len(self._columns)]
        cells[1] = status_text(row.status)
        return cells

    def on_rows_loaded(self, message: RowsLoaded) -> None:
        table = self.query_one(HistoryTable)
        if message.reset:
            table.clear()
            self._ids = []
            self._rows = {}
            self._add_rows(table, message.rows)
        else:
            self._show_window(table, message.rows)
        if message.reset or message.top_read:
            self._new_above = 0  # the first page as it is now is on screen
            self._new_overflow = False
        self._has_more = message.has_more
        self._offset = message.offset
        self._has_earlier = message.earlier
        self._update_status()
        self._tell_deprecation()
        if message.reset:
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
            if row.id in self._rows:
                continue
            self._ids.append(row.id)
            self._rows[row.id] = row
            table.add_row(*self._cells(row), key=row.id)

    def _show_window(self, table: DataTable[Any], rows: list[HistoryRow]) -> None:
        """Make the table hold `rows` (the loader's window). A page added at the end is
        appended; when the window slid (a page dropped at one end, read at the other) the
        table is rebuilt, the rows kept on the same screen lines and the cursor on its row,
        so the view does not jump (the cursor moves to the nearest row if its page went)."""
        ids = list(dict.fromkeys(row.id for row in rows))
        old = self._ids
        if ids[: len(old)] == old:
            self._add_rows(table, rows)
            return
        at = {request_id: index for index, request_id in enumerate(ids)}
        kept = next((index for index, request_id in enumerate(old) if request_id in at), None)
        cursor, scroll = table.cursor_row, table.scroll_y
        self._sliding = True  # the rebuild's own cursor and scroll moves load nothing
        try:
            table.clear()
            self._ids, self._rows = [], {}
            self._add_rows(table, rows)
            last = max(len(self._ids) - 1, 0)
            if kept is None:  # nothing in common (the listing changed): the nearer end
                shift, target = 0, 0 if cursor < len(old) // 2 else last
            else:
                shift = at[old[kept]] - kept
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
        notice = self._loader.answers.deprecation if self._loader is not None else None
        if notice is None or self._deprecation_told:
            return
        self._deprecation_told = True
        guide = f"\nMigration guide: {notice.migration_guide}" if notice.migration_guide else ""
        self.notify(
            f"{notice.text}{guide}",
            title="Request listing deprecated",
            severity="warning",
            timeout=15,
        )

    def _listing_text(self) -> str:
        """' · via /requests/v2 (deprecated, sunset …)' when v3 did not answer; '' on v3."""
        answers = self._loader.answers if self._loader is not None else None
        if answers is None or answers.listing != "v2":
            return ""
        notice = answers.deprecation
        if notice is None:
            return " · via /requests/v2"
        sunset = f", sunset {notice.sunset_at[:10]}" if notice.sunset_at else ""
        return f" · via /requests/v2 (deprecated{sunset})"

    def _update_status(self) -> None:
        from crossdeck.history import describe_filters

        more = "more below: m or scroll" if self._has_more else "that is all"
        if self._has_earlier:
            more = f"earlier rows: scroll up or Home · {more}"
        query = self.query_in_use
        filters = (
            describe_filters(
                query.model_copy(update={"limit": None, "sort_by": None, "sort_direction": None})
            )
            if query
            else "-"
        )
        order = "newest first" if self._sort_direction == "desc" else "oldest first"
        quick = f" · quick: {', '.join(sorted(self._quick))}" if self._quick else ""
        if self._new_overflow:
            more = f"many new requests on top: ctrl+r shows them · {more}"
        elif self._new_above:
            more = f"{self._new_above} new on top: ctrl+r shows them · {more}"
        counts = f"{self._held_text()}, {order} by {self._sort_by}{quick} · {more}"
        if not self._ids and not self._has_more:
            counts = (
                f"No requests match these filters{quick} (x clears them; transfers made on "
                "Quote, F2, appear here)"
            )
        self.query_one("#history-status", Static).update(
            f"{counts}\nfilters: {filters}{self._listing_text()}"
        )

    def _held_text(self) -> str:
        """'N request(s)' while the table holds every row read; else which rows of the
        listing it holds, of how many (at least, until the last page was read)."""
        loader = self._loader
        held = len(self._ids)
        seen = loader.rows_seen if loader is not None else 0
        if not self._offset and seen <= held:
            return f"{held} request(s)"
        total = f"{seen:,}" if loader is not None and loader.complete else f"≥{seen:,}"
        return f"requests {self._offset + 1:,}-{self._offset + held:,} of {total}"

    def _load_more_if_open(self, *, earlier: bool = False) -> None:
        loader = self._loader
        if loader is None or loader.is_loading:
            return
        if loader.has_earlier if earlier else loader.has_more:
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
        if row >= len(self._ids) - LOAD_MORE_MARGIN:
            self._load_more_if_open()
        elif row < LOAD_MORE_MARGIN:
            self._load_more_if_open(earlier=True)

    def on_history_table_first_row(self, _event: HistoryTable.FirstRow) -> None:
        """Home: the first row of the listing, read again when its page left the window."""
        if self._has_earlier:
            self.load(reset=True)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._track(event.row_key.value)

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
        row = self._rows.get(request_id) if request_id else None
        known = self._children.get(row.id) if row is not None else None
        self.query_one(HistoryDetail).show(row, known)
        if row is not None and known is None:
            self.load_children(row.id)

    def selected_request_id(self) -> str | None:
        table = self.query_one(DataTable)
        if not self._ids or table.cursor_row >= len(self._ids):
            return None
        return self._ids[table.cursor_row]

    # -- actions -----------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id and event.input.id.startswith("history-filter-"):
            event.stop()
            if self.apply_filters():
                self.query_one(DataTable).focus()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if not (event.checkbox.id or "").startswith("history-filter-"):
            return
        event.stop()
        if (
            event.checkbox.id == "history-filter-include-authenticated-data"
            and event.value
            and not self.crossdeck.services.service.has_api_key
        ):
            self.notify(
                "no API key is set: the service shows authenticated fields only to the key "
                "that created a request (crossdeck apikey set)",
                title="Authenticated data",
                severity="warning",
            )
        self.apply_filters()

    def key_escape(self) -> None:
        if isinstance(self.focused, Input | Checkbox):
            self.query_one(DataTable).focus()
            self.filter_bar.remove_class("-open")  # folded again on a short screen

    def action_focus_filters(self) -> None:
        # on a short screen (80x24) the bar is folded until asked for: the rows get its lines
        self.filter_bar.add_class("-open")
        self.query_one("#history-filter-user", Input).focus()

    def action_toggle_sort_by(self) -> None:
        self._sort_by = "updatedAt" if self._sort_by == "createdAt" else "createdAt"
        self.apply_filters()

    def action_toggle_direction(self) -> None:
        self._sort_direction = "asc" if self._sort_direction == "desc" else "desc"
        self.apply_filters()

    def action_quick(self, name: str) -> None:
        from crossdeck.history import QuickFilter

        chosen = QuickFilter(name)
        if chosen in self._quick:
            self._quick.discard(chosen)
        else:
            self._quick.add(chosen)
            exclusive = {QuickFilter.FAILED, QuickFilter.REFUNDED}
            if chosen in exclusive:
                self._quick -= exclusive - {chosen}
        self.apply_filters()

    def action_children(self) -> None:
        """Filter to the selected request and its children, as rows of the table."""
        request_id = self.selected_request_id()
        if not request_id:
            self.notify("highlight a request first", title="Children")
            return
        bar = self.filter_bar
        bar.clear()
        bar.set_value("id", request_id)
        bar.set_flag("include_child_requests", True)
        self._quick = set()
        self.apply_filters()

    def action_clear_filters(self) -> None:
        self.filter_bar.clear()
        self._quick = set()
        self.apply_filters()

    def action_export(self, fmt: str) -> None:
        from crossdeck.history import FilterError

        # the filter the table shows (what was applied), not text typed since
        query = self.query_in_use
        if query is None:
            try:
                query = self.build_current_query()
            except FilterError as exc:
                self.notify(f"{exc.field}: {exc.reason}", title="Not exported", severity="error")
                return
        self.export(query, "json" if fmt == "json" else "csv")

    @work(group="history-export", exclusive=True, exit_on_error=False, name="Exporting history")
    async def export(self, query: RequestsQuery, fmt: ExportFormat) -> None:
        import asyncio

        from crossdeck.history import export_history

        app = self.crossdeck
        await app.services_ready.wait()
        folder: Path = app.settings.data_dir
        await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
        path = folder / f"history-{stamp}.{fmt}"
        self.notify(f"exporting to {path}…", title="Export")
        result = await export_history(app.services.service, query, path, fmt)
        self.last_export = result.path
        self.notify(f"{result.rows} request(s) written to {result.path}", title=f"Export ({fmt})")

    def _track(self, request_id: str | None) -> None:
        if request_id:
            self.crossdeck.track_request(request_id)
            self.notify(f"following {request_id[:10]}… on Live status (F5)", title="Track")

    def action_track(self) -> None:
        self._track(self.selected_request_id())

    def action_refresh(self) -> None:
        self._children.clear()
        self.load(reset=True)
        if not self._links_loaded:
            self.load_links()

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
        yield SystemCommand(
            "Export history to CSV", "Every request of the filter (e)", self.action_export_csv
        )
        yield SystemCommand(
            "Export history to JSON", "Every request of the filter (j)", self.action_export_json
        )
        yield from self.copy_commands()

    def copyables(self) -> list[Copyable]:
        row = self._rows.get(self.selected_request_id() or "")
        if row is None:
            return []
        record = row.record
        items = [Copyable("request id", row.id)]
        items += [Copyable(f"{what} address", value)
                  for what, value in (("user", record.user), ("recipient", record.recipient))
                  if value]  # fmt: skip
        return items

    def tx_links(self) -> list[TxLink]:
        """The selected request's origin and destination transactions, linked from /chains."""
        row = self._rows.get(self.selected_request_id() or "")
        if row is None:
            return []
        chains = self.crossdeck.services.cached_chains
        links = []
        data = row.record.data
        for what, txs in (("origin tx", data.in_txs if data else None),
                          ("destination tx", data.out_txs if data else None)):  # fmt: skip
            links += [tx_link(chains, what, tx.chain_id, tx.hash) for tx in txs or [] if tx.hash]
        return links

    def action_export_csv(self) -> None:
        self.action_export("csv")

    def action_export_json(self) -> None:
        self.action_export("json")
