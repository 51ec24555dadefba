"""History: requests from GET /requests/v3 (or the deprecated /requests/v2 where the service
does not offer v3; the status line says which, and v2's deprecation notice is shown once) under
a filter bar (every filter but apiKey, and the
three include flags, checked by `history.build_query` before any request), sort key and
direction toggles, quick filters (mine / failed / refunded), a detail pane with every field of
the highlighted request, its child requests and explorer links, and export of the current filter
to CSV or JSON. Pages load as the cursor or the scroll position nears the end; enter (or t)
follows the selected request on Live status.

The listing's state is a `HistoryFeed` (crossdeck.history.feed, no textual), which
`HistoryListing` (screens/history_listing.py) draws; this module holds the keys and what they do.
The table holds a window of at most WINDOW_PAGES pages (the feed's window): paging on past it
drops its first page, and scrolling back before it reads the page before again (by the
continuation kept for it), so memory stays flat however far one pages; Home reads the first
page again. The status line says which rows of the listing are held ("requests 201-400 of
≥450")."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.widgets import Checkbox, DataTable, Input

from crossdeck.tui.copy_links import Copyable, TxLink, copy_binding, explorer_binding, tx_link
from crossdeck.tui.screens.history_listing import HistoryListing
from crossdeck.tui.widgets.history_detail import HistoryDetail

if TYPE_CHECKING:
    from crossdeck.history import ExportFormat
    from crossdeck.models import RequestsQuery

# the footer shows related keys together: "so Sort", "wfrx Quick", "thmej More" (F1 says
# what each does)
SORT_GROUP = Binding.Group("Sort", compact=True)
QUICK_GROUP = Binding.Group("Quick", compact=True)
MORE_GROUP = Binding.Group("More", compact=True)


class HistoryScreen(HistoryListing):
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

    # -- actions -----------------------------------------------------------------------------

    def action_focus_detail(self) -> None:
        self.query_one(HistoryDetail).focus()

    def action_toggle_raw(self) -> None:
        shown = self.query_one(HistoryDetail).toggle_raw()
        self.notify(
            "raw fields shown" if shown else "raw fields hidden", title="History", timeout=2
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._track(event.row_key.value)

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
        self.feed.toggle_sort_by()
        self.apply_filters()

    def action_toggle_direction(self) -> None:
        self.feed.toggle_direction()
        self.apply_filters()

    def action_quick(self, name: str) -> None:
        self.feed.toggle_quick(name)
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
        self.feed.clear_quick()
        self.apply_filters()

    def action_clear_filters(self) -> None:
        self.filter_bar.clear()
        self.feed.clear_quick()
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
        """Exactly the rows the filter shows (every page of them), to a file the user picks
        (suggested: the data dir, a time-stamped name)."""
        import asyncio

        from crossdeck.history import export_history, format_for
        from crossdeck.tui.screens.export_path import ExportPathScreen

        app = self.crossdeck
        await app.services_ready.wait()
        folder: Path = app.settings.data_dir
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
        which = (
            "the failed requests of this filter"
            if self.feed.keeps_failed
            else "every request of this filter"
        )
        path = await self.app.push_screen_wait(
            ExportPathScreen(folder / f"history-{stamp}.{fmt}", f"{which}, every page")
        )
        if path is None:
            return
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        fmt = format_for(path)
        self.notify(f"exporting to {path}…", title="Export")
        result = await export_history(
            app.services.service, query, path, fmt, keep=self.feed.keeps_record
        )
        self.last_export = result.path
        self.notify(f"{result.rows} request(s) written to {result.path}", title=f"Export ({fmt})")

    def _track(self, request_id: str | None) -> None:
        if request_id:
            self.crossdeck.track_request(request_id)
            self.notify(f"following {request_id[:10]}… on Live status (F5)", title="Track")

    def action_track(self) -> None:
        self._track(self.selected_request_id())

    def action_refresh(self) -> None:
        self.feed.forget_children()
        self.load(reset=True)
        if not self._links_loaded:
            self.load_links()

    def action_more(self) -> None:
        if self.feed.at_end:
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
        row = self.selected_row()
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
        row = self.selected_row()
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
