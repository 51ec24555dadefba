"""Request history (GET /requests/v2) for the CLI and the History screen, without any UI.

- `build_query(...)`: typed-in filters -> a checked `RequestsQuery` (`FilterError` otherwise);
  `apply_quick_filters(query, {QuickFilter.MINE, ...}, wallet=...)` for the presets;
  `describe_filters(query)` for a one-line summary; `parse_time` for ISO 8601 / Unix seconds.
- `PagedLoader`: pages fetched on demand for a scrolling view, `check_newer()` for arrivals.
- `stream_records` / `walk_pages`: every page of a filter, streamed, each record once.
- `summarize(record) -> HistoryRow` (cells of a row), `table_line`/`csv_line`/`json_line`.
- `export_history(client, query, path)`: CSV / JSON lines / JSON, streamed to a file.
- `ExplorerLinks`: explorer URLs of a request's transactions from GET /chains.

Imports models and api only (never textual). Each name loads its module on first use
(`base.lazy_names`): a run reads its final record through `history.came_back` without the
pager, the export or the filters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crossdeck.base.lazy_names import lazy_names

if TYPE_CHECKING:
    from crossdeck.history.children import Children, child_kind, child_requests
    from crossdeck.history.errors import CursorLoopError, FilterError
    from crossdeck.history.explorer import ExplorerLinks, TxLink
    from crossdeck.history.export import ExportFormat, ExportResult, export_history, format_for
    from crossdeck.history.filters import (
        MAX_LIMIT,
        SORT_BY_VALUES,
        SORT_DIRECTION_VALUES,
        STATUS_VALUES,
        QuickFilter,
        apply_quick_filters,
        build_query,
        counts_as_failed,
        describe_filters,
    )
    from crossdeck.history.formats import (
        CSV_COLUMNS,
        OutputFormat,
        csv_header,
        csv_line,
        csv_values,
        header_for,
        json_line,
        line_renderer,
        table_header,
        table_line,
    )
    from crossdeck.history.loader import DEFAULT_PAGE_SIZE, NewerRows, PagedLoader
    from crossdeck.history.pager import WalkStats, stream_records, walk_pages
    from crossdeck.history.summary import (
        TABLE_COLUMNS,
        HistoryRow,
        amount_text,
        destination_chain_id,
        origin_chain_id,
        summarize,
        wire_value,
    )
    from crossdeck.history.timeparse import TimeParseError, format_time, parse_time

__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_PAGE_SIZE",
    "MAX_LIMIT",
    "SORT_BY_VALUES",
    "SORT_DIRECTION_VALUES",
    "STATUS_VALUES",
    "TABLE_COLUMNS",
    "Children",
    "CursorLoopError",
    "ExplorerLinks",
    "ExportFormat",
    "ExportResult",
    "FilterError",
    "HistoryRow",
    "NewerRows",
    "OutputFormat",
    "PagedLoader",
    "QuickFilter",
    "TimeParseError",
    "TxLink",
    "WalkStats",
    "amount_text",
    "apply_quick_filters",
    "build_query",
    "child_kind",
    "child_requests",
    "counts_as_failed",
    "csv_header",
    "csv_line",
    "csv_values",
    "describe_filters",
    "destination_chain_id",
    "export_history",
    "format_for",
    "format_time",
    "header_for",
    "json_line",
    "line_renderer",
    "origin_chain_id",
    "parse_time",
    "stream_records",
    "summarize",
    "table_header",
    "table_line",
    "walk_pages",
    "wire_value",
]

_SOURCES = {
    "Children": "crossdeck.history.children",
    "child_kind": "crossdeck.history.children",
    "child_requests": "crossdeck.history.children",
    "CursorLoopError": "crossdeck.history.errors",
    "FilterError": "crossdeck.history.errors",
    "ExplorerLinks": "crossdeck.history.explorer",
    "TxLink": "crossdeck.history.explorer",
    "ExportFormat": "crossdeck.history.export",
    "ExportResult": "crossdeck.history.export",
    "export_history": "crossdeck.history.export",
    "format_for": "crossdeck.history.export",
    "MAX_LIMIT": "crossdeck.history.filters",
    "QuickFilter": "crossdeck.history.filters",
    "SORT_BY_VALUES": "crossdeck.history.filters",
    "SORT_DIRECTION_VALUES": "crossdeck.history.filters",
    "STATUS_VALUES": "crossdeck.history.filters",
    "apply_quick_filters": "crossdeck.history.filters",
    "build_query": "crossdeck.history.filters",
    "counts_as_failed": "crossdeck.history.filters",
    "describe_filters": "crossdeck.history.filters",
    "CSV_COLUMNS": "crossdeck.history.formats",
    "OutputFormat": "crossdeck.history.formats",
    "csv_header": "crossdeck.history.formats",
    "csv_line": "crossdeck.history.formats",
    "csv_values": "crossdeck.history.formats",
    "header_for": "crossdeck.history.formats",
    "json_line": "crossdeck.history.formats",
    "line_renderer": "crossdeck.history.formats",
    "table_header": "crossdeck.history.formats",
    "table_line": "crossdeck.history.formats",
    "DEFAULT_PAGE_SIZE": "crossdeck.history.loader",
    "NewerRows": "crossdeck.history.loader",
    "PagedLoader": "crossdeck.history.loader",
    "WalkStats": "crossdeck.history.pager",
    "stream_records": "crossdeck.history.pager",
    "walk_pages": "crossdeck.history.pager",
    "HistoryRow": "crossdeck.history.summary",
    "TABLE_COLUMNS": "crossdeck.history.summary",
    "amount_text": "crossdeck.history.summary",
    "destination_chain_id": "crossdeck.history.summary",
    "origin_chain_id": "crossdeck.history.summary",
    "summarize": "crossdeck.history.summary",
    "wire_value": "crossdeck.history.summary",
    "TimeParseError": "crossdeck.history.timeparse",
    "format_time": "crossdeck.history.timeparse",
    "parse_time": "crossdeck.history.timeparse",
}

__getattr__, __dir__ = lazy_names(globals(), _SOURCES, __all__)
