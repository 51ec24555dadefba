"""`PagedLoader`: history pages loaded on demand for a scrolling view (the History screen).

Nothing loads until asked: the screen calls `ensure(index)` as its cursor moves (or
`load_next()`), and only the pages needed to cover that row are fetched, one at a time. Rows
are kept in order with their summaries (`HistoryRow`), each request id once.

    loader = PagedLoader(client, build_query(status="failure"), page_size=50)
    await loader.ensure(0)                 # first page
    await loader.ensure(row_index, margin=10)   # near the bottom: the next page
    newer = await loader.check_newer()     # rows that arrived or changed at the top
    loader.reset(other_query)              # a new filter: forgets rows, drops in-flight pages

Concurrency: calls may overlap (a scroll and a timer); one page is fetched at a time, and a
page that arrives after `reset()` is dropped, so rows of an old filter never mix with a new one.
A failed fetch raises the client's error and leaves the loader as it was, so it can be retried.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from crossdeck.api.client import ServiceClient
from crossdeck.history.errors import CursorLoopError
from crossdeck.history.pager import WalkStats
from crossdeck.history.summary import HistoryRecord, HistoryRow, summarize
from crossdeck.models import RequestsQuery

DEFAULT_PAGE_SIZE = 50


@dataclass(frozen=True)
class NewerRows:
    """What `check_newer` found on the first page: `added` rows (not loaded before, in listing
    order, to put above the current first row), `changed` rows (loaded before, with another
    status or update time; already replaced in `rows`), and `overflow` when every row of the
    first page was new, so more may have arrived than one page holds: `refresh()` then."""

    added: list[HistoryRow] = field(default_factory=list)
    changed: list[HistoryRow] = field(default_factory=list)
    overflow: bool = False


class PagedLoader:
    def __init__(
        self,
        client: ServiceClient,
        query: RequestsQuery | None = None,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> None:
        self._client = client
        self._page_size = page_size
        self._lock = asyncio.Lock()
        self._generation = 0
        self._query = self._paged(query or RequestsQuery())
        self._rows: list[HistoryRow] = []
        self._index: dict[str, int] = {}
        self._cursor: str | None = None
        self._followed: set[str] = set()
        self._exhausted = False
        self._pages = 0
        self._loading = False
        self.duplicates = 0
        # which listing answered last ("v3"/"v2") and the deprecation notice v2 carried
        self.answers = WalkStats()

    def _paged(self, query: RequestsQuery) -> RequestsQuery:
        limit = query.limit if query.limit is not None else self._page_size
        return query.model_copy(update={"limit": limit, "continuation": None})

    # -- state the screen reads ------------------------------------------------------------

    @property
    def query(self) -> RequestsQuery:
        """The filter in use (first page: no continuation)."""
        return self._query

    @property
    def rows(self) -> Sequence[HistoryRow]:
        """The loaded rows in listing order (a live view: do not modify it)."""
        return self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, index: int) -> HistoryRow:
        return self._rows[index]

    def index_of(self, request_id: str) -> int | None:
        return self._index.get(request_id)

    @property
    def has_more(self) -> bool:
        """True until the service said there is nothing after the last loaded page."""
        return not self._exhausted

    @property
    def pages_loaded(self) -> int:
        return self._pages

    @property
    def is_loading(self) -> bool:
        return self._loading

    @property
    def newest_first(self) -> bool:
        return (self._query.sort_direction or "desc") == "desc"

    # -- loading ---------------------------------------------------------------------------

    def reset(self, query: RequestsQuery | None = None) -> None:
        """Forget every row (and any page in flight); start over with `query` (default: the
        current one). Nothing is fetched until the next `ensure`/`load_next`."""
        self._generation += 1
        if query is not None:
            self._query = self._paged(query)
        self._rows = []
        self._index = {}
        self._cursor = None
        self._followed = set()
        self._exhausted = False
        self._pages = 0
        self.duplicates = 0

    async def refresh(self) -> list[HistoryRow]:
        """Start over with the same filter and load its first page."""
        self.reset()
        return await self.load_next()

    async def load_next(self) -> list[HistoryRow]:
        """Fetch the next page; the rows it added ([] when there is nothing more)."""
        generation = self._generation
        async with self._lock:
            if generation != self._generation or self._exhausted:
                return []
            query = self._query if self._cursor is None else self._query.next_page(self._cursor)
            self._loading = True
            try:
                page = await self._client.list_requests(query)
            finally:
                self._loading = False
            self.answers.saw(page)
            if generation != self._generation:
                return []  # the filter changed while this page was on its way
            cursor = page.continuation or None
            if cursor is not None and page.requests and cursor in self._followed:
                raise CursorLoopError(cursor, self._pages + 1)
            added = self._append(page.requests)
            self._pages += 1
            if cursor is None or not page.requests:
                self._exhausted = True
            else:
                self._followed.add(cursor)
                self._cursor = cursor
            return added

    async def ensure(self, index: int, *, margin: int = 0) -> list[HistoryRow]:
        """Load pages until row `index + margin` exists or nothing more comes; the new rows.
        Call it with the row under the cursor: a page is fetched only when it is needed."""
        wanted = index + margin
        added: list[HistoryRow] = []
        while len(self._rows) <= wanted and not self._exhausted:
            generation = self._generation
            added += await self.load_next()
            if generation != self._generation:
                return []
        return added

    def _append(self, records: Sequence[HistoryRecord]) -> list[HistoryRow]:
        added: list[HistoryRow] = []
        for record in records:
            row = summarize(record, compact=True)
            if row.id:
                if row.id in self._index:
                    self.duplicates += 1
                    continue
                self._index[row.id] = len(self._rows)
            self._rows.append(row)
            added.append(row)
        return added

    async def check_newer(self) -> NewerRows:
        """Look at the first page again: rows that appeared above the loaded ones, and loaded
        rows whose status or update time changed (replaced in place). Meant for newest-first
        listings; with oldest-first order new requests come last, so use `refresh()`."""
        generation = self._generation
        async with self._lock:
            if generation != self._generation:
                return NewerRows()
            page = await self._client.list_requests(self._query)
            if generation != self._generation:
                return NewerRows()
            self.answers.saw(page)
            added: list[HistoryRow] = []
            changed: list[HistoryRow] = []
            for record in page.requests:
                row = summarize(record, compact=True)
                at = self._index.get(row.id) if row.id else None
                if at is None:
                    added.append(row)
                    continue
                old = self._rows[at]
                if (old.status, old.updated) != (row.status, row.updated):
                    self._rows[at] = row
                    changed.append(row)
            overflow = (
                bool(page.requests) and len(added) == len(page.requests) and bool(page.continuation)
            )
            if added and not overflow:
                self._prepend(added)
            return NewerRows(
                added=added if not overflow else [], changed=changed, overflow=overflow
            )

    def _prepend(self, rows: list[HistoryRow]) -> None:
        self._rows = [*rows, *self._rows]
        self._index = {row.id: at for at, row in enumerate(self._rows) if row.id}
