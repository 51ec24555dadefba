"""`PagedLoader`: history pages loaded on demand for a scrolling view (the History screen).

Nothing loads until asked: the screen calls `ensure(index)` as its cursor moves (or
`load_next()` / `load_previous()`), and only the pages needed to cover that row are fetched,
one at a time. Rows are kept in order with their summaries (`HistoryRow`), each request id once.

    loader = PagedLoader(client, build_query(status="failure"), page_size=50, window_pages=4)
    await loader.ensure(0)                 # first page
    await loader.ensure(row_index, margin=10)   # near the bottom: the next page
    await loader.load_previous()           # scrolled back before the window: re-read a page
    newer = await loader.check_newer()     # rows that arrived or changed at the top
    loader.reset(other_query)              # a new filter: forgets rows, drops in-flight pages

A window: with `window_pages=K` at most K pages of rows are held (the view's memory stays flat
however far it pages). Paging on past the window drops its first page; `load_previous()` reads
the page before it again and drops the last one. Pages are read again by the continuation that
first led to them: the loader keeps one cursor per page boundary (a short string per page; for
10,000 requests at 50 a page, 200 of them), so going back costs one request per page, where
listing again from the first page and skipping would cost as many requests as pages passed. A
re-read page whose continuation is not the one kept (a request on it was removed or re-sorted)
means the held pages no longer follow on from it: the loader keeps that page alone and goes on
from its new continuation, rather than showing a gap or a repeat. Without `window_pages`
every row stays (`rows` is then the whole listing read so far).

Row positions: `rows`, `row(i)` and `index_of(id)` are positions in the window; `offset` is the
listing position of the window's first row, so `offset + i` is where row `i` stands in the
listing (`ensure` takes listing positions). Each id is shown once within the window; a request
that moved (sortBy=updatedAt) onto a page beyond the window is shown where it now is.

Concurrency: calls may overlap (a scroll and a timer); one page is fetched at a time, and a
page that arrives after `reset()` is dropped, so rows of an old filter never mix with a new one.
A failed fetch raises the client's error and leaves the loader as it was, so it can be retried.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crossdeck.api.client import ServiceClient
from crossdeck.history.errors import CursorLoopError
from crossdeck.history.pager import WalkStats
from crossdeck.history.summary import HistoryRecord, HistoryRow, summarize
from crossdeck.models import RequestsQuery

if TYPE_CHECKING:
    from crossdeck.api.client import ListingPage

DEFAULT_PAGE_SIZE = 50
# ids of the first page (and of arrivals already reported) that a windowed loader remembers to
# tell new requests from old ones once the first page left the window; past this many arrivals
# `check_newer` says overflow (the screen then offers a refresh) instead of remembering more
MAX_KNOWN_TOP_PAGES = 10


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
        window_pages: int | None = None,
    ) -> None:
        if window_pages is not None and window_pages < 2:
            # one page to show and one to page into; fewer would drop the rows under the cursor
            raise ValueError(f"window_pages must be at least 2, got {window_pages}")
        self._client = client
        self._page_size = page_size
        self._window_pages = window_pages
        self._lock = asyncio.Lock()
        self._generation = 0
        self._query = self._paged(query or RequestsQuery())
        self._loading = False
        self.duplicates = 0
        # which listing answered last ("v3"/"v2") and the deprecation notice v2 carried
        self.answers = WalkStats()
        self._clear()

    def _clear(self) -> None:
        self._rows: list[HistoryRow] = []  # the held rows: pages _first_page, _first_page + 1, …
        self._index: dict[str, int] = {}  # id -> position in _rows
        self._held: list[int] = []  # how many rows each held page put in _rows
        self._first_page = 0
        # _cursors[p] reads page p (page 0 needs none); one past the last page read while the
        # service has more, else exactly the pages read
        self._cursors: list[str | None] = [None]
        self._sizes: list[int] = []  # rows each page gave when last read: listing positions
        self._known_top: set[str] = set()  # windowed: the first page's ids and reported arrivals
        self._pages = 0

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
        """The held rows in listing order (a live view: do not modify it)."""
        return self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, index: int) -> HistoryRow:
        """The held row at window position `index`."""
        return self._rows[index]

    def index_of(self, request_id: str) -> int | None:
        """The window position of a held request, or None."""
        return self._index.get(request_id)

    @property
    def window_pages(self) -> int | None:
        return self._window_pages

    @property
    def offset(self) -> int:
        """The listing position of the first held row (0 while the first page is held)."""
        return sum(self._sizes[: self._first_page])

    @property
    def rows_seen(self) -> int:
        """Rows of every page read so far: the listing has at least this many, exactly this
        many once `complete`."""
        return sum(self._sizes)

    @property
    def complete(self) -> bool:
        """True once the service said which page is the last (`rows_seen` is then the count)."""
        return len(self._cursors) == len(self._sizes)

    @property
    def has_more(self) -> bool:
        """True while there is a page after the held ones (read before, or never read)."""
        return self._first_page + len(self._held) < len(self._cursors)

    @property
    def has_earlier(self) -> bool:
        """True when pages before the held ones were dropped (`load_previous` reads them)."""
        return self._first_page > 0

    @property
    def pages_loaded(self) -> int:
        """Pages fetched since the last reset (a page read again counts again)."""
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
        self._clear()
        self.duplicates = 0

    async def refresh(self) -> list[HistoryRow]:
        """Start over with the same filter and load its first page."""
        self.reset()
        return await self.load_next()

    async def _fetch(self, number: int) -> ListingPage:
        cursor = self._cursors[number]
        query = self._query if cursor is None else self._query.next_page(cursor)
        self._loading = True
        try:
            page = await self._client.list_requests(query)
        finally:
            self._loading = False
        self.answers.saw(page)
        return page

    async def load_next(self) -> list[HistoryRow]:
        """Fetch the page after the held ones; the rows it added ([] when there is nothing
        more). A windowed loader then drops its first page if it holds more than its window."""
        generation = self._generation
        async with self._lock:
            number = self._first_page + len(self._held)
            if generation != self._generation or number >= len(self._cursors):
                return []
            page = await self._fetch(number)
            if generation != self._generation:
                return []  # the filter changed while this page was on its way
            cursor = page.continuation if page.requests else None
            first_read = number + 1 >= len(self._cursors)
            if first_read and cursor is not None and cursor in self._cursors:
                raise CursorLoopError(cursor, self._pages + 1)
            if not first_read and cursor != self._cursors[number + 1]:
                # read before with another end: the pages after it (never held now) are stale
                del self._cursors[number + 1 :]
                del self._sizes[number + 1 :]
                first_read = True
            if first_read and cursor is not None:
                self._cursors.append(cursor)
            added = self._fresh(page.requests)
            self._note_page(number, added)
            self._index_rows(len(self._rows), added)
            self._rows.extend(added)
            self._held.append(len(added))
            if self._window_pages is not None and len(self._held) > self._window_pages:
                dropped = self._held.pop(0)
                del self._rows[:dropped]
                self._first_page += 1
                self._reindex()
            return added

    async def load_previous(self) -> list[HistoryRow]:
        """Read the page before the held ones again (by the cursor kept for it); the rows it
        put on top ([] when the first page is held). A windowed loader then drops its last page
        if it holds more than its window. See the module docstring for a page that changed."""
        generation = self._generation
        async with self._lock:
            number = self._first_page - 1
            if generation != self._generation or number < 0:
                return []
            page = await self._fetch(number)
            if generation != self._generation:
                return []
            cursor = page.continuation if page.requests else None
            if cursor != self._cursors[number + 1]:
                # the held pages no longer follow on from this one: keep it alone, its own
                # continuation next, rather than show a gap or a repeat
                self._rows, self._index, self._held = [], {}, []
                del self._cursors[number + 1 :]
                del self._sizes[number + 1 :]
                if cursor is not None:
                    self._cursors.append(cursor)
            added = self._fresh(page.requests)
            self._note_page(number, added)
            self._rows[:0] = added
            self._held.insert(0, len(added))
            self._first_page = number
            if self._window_pages is not None and len(self._held) > self._window_pages:
                dropped = self._held.pop()
                if dropped:
                    del self._rows[-dropped:]
            self._reindex()
            return added

    async def ensure(self, index: int, *, margin: int = 0) -> list[HistoryRow]:
        """Load pages until the row at listing position `index + margin` is held or nothing
        more comes; the new rows. Call it with the row under the cursor (`offset` + its window
        position): a page is fetched only when it is needed."""
        wanted = index + margin
        added: list[HistoryRow] = []
        while self.offset + len(self._rows) <= wanted and self.has_more:
            generation = self._generation
            added += await self.load_next()
            if generation != self._generation:
                return []
        return added

    def _fresh(self, records: Sequence[HistoryRecord]) -> list[HistoryRow]:
        """The rows of `records` not already held (counted in `duplicates`)."""
        fresh: list[HistoryRow] = []
        seen: set[str] = set()
        for record in records:
            row = summarize(record, compact=True)
            if row.id:
                if row.id in self._index or row.id in seen:
                    self.duplicates += 1
                    continue
                seen.add(row.id)
            fresh.append(row)
        return fresh

    def _note_page(self, number: int, rows: list[HistoryRow]) -> None:
        self._pages += 1
        if number < len(self._sizes):
            self._sizes[number] = len(rows)
        else:
            self._sizes.append(len(rows))
        if number == 0 and self._window_pages is not None:
            self._known_top = {row.id for row in rows if row.id}

    def _index_rows(self, start: int, rows: list[HistoryRow]) -> None:
        for at, row in enumerate(rows, start):
            if row.id:
                self._index[row.id] = at

    def _reindex(self) -> None:
        self._index = {}
        self._index_rows(0, self._rows)

    async def check_newer(self) -> NewerRows:
        """Look at the first page again: rows that appeared above the loaded ones, and held
        rows whose status or update time changed (replaced in place). Meant for newest-first
        listings; with oldest-first order new requests come last, so use `refresh()`.

        Without a window the added rows are put on top of `rows`; a windowed loader keeps its
        pages as the service cut them and only reports them (once each): `refresh()` or reading
        the first page again shows them."""
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
                    if row.id not in self._known_top:
                        added.append(row)
                    continue
                old = self._rows[at]
                if (old.status, old.updated) != (row.status, row.updated):
                    self._rows[at] = row
                    changed.append(row)
            overflow = (
                bool(page.requests) and len(added) == len(page.requests) and bool(page.continuation)
            )
            if self._window_pages is not None:
                remembered = len(self._known_top) + len(added)
                overflow = overflow or remembered > MAX_KNOWN_TOP_PAGES * self._page_size
            if added and not overflow:
                if self._window_pages is None:
                    self._prepend(added)
                else:
                    self._known_top.update(row.id for row in added)
            return NewerRows(
                added=added if not overflow else [], changed=changed, overflow=overflow
            )

    def _prepend(self, rows: list[HistoryRow]) -> None:
        self._rows = [*rows, *self._rows]
        if self._sizes:
            self._sizes[0] += len(rows)
            self._held[0] += len(rows)
        self._reindex()
