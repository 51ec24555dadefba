"""`HistoryFeed`: the History screen's listing, without the screen.

It holds what the listing is at any moment: the filter in use (with its sort toggles and quick
filters), the `PagedLoader` that reads its pages, the rows the view holds (a window of at most
`WINDOW_PAGES` pages, with the listing position of its first row), whether there are rows after
or before them, the new requests counted on top since the first page was shown, the child
requests looked up per row, and the status line that says all this. The screen draws it and
forwards keys; everything here runs, and is tested, without textual (tests/history).

    feed = HistoryFeed(wait=limit)          # `limit` bounds each read (the screen's time limit)
    feed.start(client, feed.build_query(filters, own_api_key=False, api_key=None, wallet=w))
    window = await feed.load(reset=True)    # the first page (or earlier=True: the page before)
    change = feed.take(window)              # what the view must add or redraw
    seen = await feed.check_newer()         # rows changed in place, arrivals counted on top

The 'failed' quick filter lists every status and keeps the failures (refunded ones too) here,
by `keep`: a read goes on while a page's worth has not turned up, within the window. `rows` and
`ids` are the rows kept; `keep`/`keeps_record` say which of a listing's rows the filter keeps
(an export of the filtered rows uses them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from crossdeck.history.children import Children, child_requests
from crossdeck.history.errors import FilterError
from crossdeck.history.filters import (
    QuickFilter,
    apply_quick_filters,
    build_query,
    counts_as_failed,
    describe_filters,
)
from crossdeck.history.loader import NewerRows, PagedLoader
from crossdeck.history.summary import HistoryRecord, HistoryRow, wire_value
from crossdeck.models import RequestsQuery

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.base.secret import Secret
    from crossdeck.models.requests_v3 import RequestsDeprecation

# the service's largest page: a screenful with room to scroll, and 2.5 times fewer round trips
# than its default of 20 when paging far (bench/history_bench.py)
PAGE_SIZE = 50
# pages the view (and its loader) hold: with the cursor on the window's edge a page is read
# in, leaving a page either side of the rows on screen; at 50 a page, WINDOW_ROWS rows whatever
# the length of the listing (bench/history_bench.py: flat memory from 1,000 to 10,000 rows)
WINDOW_PAGES = 4
WINDOW_ROWS = WINDOW_PAGES * PAGE_SIZE
CHILD_CACHE_SIZE = 256

# what each read waits for, as a time limit's message names it
LISTING = "the service (the request listing)"
NEWER = "the service (new requests)"
CHILDREN = "the service (child requests)"

T = TypeVar("T")


class Wait(Protocol):
    """How the feed waits for one read of the service (`what` names it): the app puts a time
    limit on each; as it is, the read is awaited."""

    def __call__(self, reading: Awaitable[T], *, what: str) -> Awaitable[T]: ...


async def as_is(reading: Awaitable[T], *, what: str) -> T:
    return await reading


@dataclass(frozen=True)
class FeedWindow:
    """The rows the view should hold after a read: with `reset` the first page of a new
    listing, otherwise the loader's whole window after a page came or went. `offset` is the
    listing position of the first row, `earlier` whether rows before it were dropped (scrolling
    back re-reads them), `top_read` that the first page was just read again (new requests are
    on top now)."""

    rows: list[HistoryRow]
    reset: bool
    has_more: bool
    offset: int = 0
    earlier: bool = False
    top_read: bool = False


@dataclass(frozen=True)
class WindowChange:
    """What the view does with a window: add `added` at the end; with `cleared`, after taking
    every row away first. `slid`: the window moved (a page dropped at one end, read at the
    other), so the view keeps its rows on the same lines: those it held moved `shift` rows down
    (None: it holds none of them now); `before` is how many rows it held."""

    added: list[HistoryRow]
    cleared: bool = False
    slid: bool = False
    shift: int | None = 0
    before: int = 0


@dataclass(frozen=True)
class NewerSeen:
    """What a look at the first page changed: held rows updated in place (their cells and, for
    the selected one, its detail to draw again) and whether the status line changed."""

    changed: list[HistoryRow] = field(default_factory=list)
    status_changed: bool = False


class HistoryFeed:
    def __init__(
        self,
        *,
        page_size: int = PAGE_SIZE,
        window_pages: int = WINDOW_PAGES,
        wait: Wait = as_is,
    ) -> None:
        self.page_size = page_size
        self.window_pages = window_pages
        self._wait = wait
        self.loader: PagedLoader | None = None
        self.sort_by = "createdAt"
        self.sort_direction = "desc"
        self.quick: set[QuickFilter] = set()
        # the rows the view holds (kept by the filter), in listing order, each id once
        self.ids: list[str] = []
        self.rows: dict[str, HistoryRow] = {}
        self.has_more = True
        self.offset = 0
        self.has_earlier = False
        # new requests on the first page since it was shown (overflow: more than one page)
        self.new_above = 0
        self.new_overflow = False
        self._children: dict[str, Children] = {}
        self._deprecation_told = False

    # -- the query ---------------------------------------------------------------------------

    def build_query(
        self,
        filters: Mapping[str, str | bool],
        *,
        own_api_key: bool,
        api_key: Secret | None,
        wallet: str | None,
    ) -> RequestsQuery:
        """The query of typed-in `filters` (build_query's keywords: text for each filter, a bool
        for each flag), this feed's sort and quick filters, and with `own_api_key` the profile's
        `api_key` as the apiKey filter. FilterError on a bad value, or a missing key."""
        if own_api_key and api_key is None:
            raise FilterError(
                "apiKey",
                "--api-key-filter",
                "this profile has no API key",
                hint="set one with `crossdeck apikey set`",
            )
        # a pairing of keywords and value types no dict type can state
        query = build_query(
            **filters,  # type: ignore[arg-type]
            api_key_filter=api_key if own_api_key else None,
            sort_by=self.sort_by,
            sort_direction=self.sort_direction,
            limit=self.page_size,
        )
        if self.quick:
            query = apply_quick_filters(query, self.quick, wallet=wallet)
        return query

    def start(self, client: ServiceClient, query: RequestsQuery) -> PagedLoader:
        """The loader of `query` (nothing is read until `load`)."""
        self.loader = PagedLoader(
            client, query, page_size=self.page_size, window_pages=self.window_pages
        )
        return self.loader

    @property
    def started(self) -> bool:
        return self.loader is not None

    @property
    def query_in_use(self) -> RequestsQuery | None:
        """The filter the rows were read with (what was applied, not text typed since)."""
        return self.loader.query if self.loader is not None else None

    def apply(self, query: RequestsQuery) -> None:
        """A checked new filter: the next `load(reset=True)` reads its first page."""
        if self.loader is not None:
            self.loader.reset(query)

    def toggle_sort_by(self) -> None:
        self.sort_by = "updatedAt" if self.sort_by == "createdAt" else "createdAt"

    def toggle_direction(self) -> None:
        self.sort_direction = "asc" if self.sort_direction == "desc" else "desc"

    def toggle_quick(self, name: QuickFilter | str) -> None:
        """A quick filter on or off; 'failed' and 'refunded' exclude each other."""
        chosen = QuickFilter(name)
        if chosen in self.quick:
            self.quick.discard(chosen)
            return
        self.quick.add(chosen)
        exclusive = {QuickFilter.FAILED, QuickFilter.REFUNDED}
        if chosen in exclusive:
            self.quick -= exclusive - {chosen}

    def clear_quick(self) -> None:
        self.quick = set()

    # -- what the filter keeps -----------------------------------------------------------------

    @property
    def keeps_failed(self) -> bool:
        return QuickFilter.FAILED in self.quick

    def keep(self, row: HistoryRow) -> bool:
        """Whether a row of the listing is shown (all, but with 'failed' the failures)."""
        if not self.keeps_failed:
            return True
        if row.status not in ("refund", "fallback"):
            return counts_as_failed(row.status, None)
        # only a refund's record is read again (a compact row parses it): for its failReason
        return counts_as_failed(row.status, wire_value(row.record, "data", "failReason"))

    def keeps_record(self, record: HistoryRecord) -> bool:
        """`keep` for a record of the listing (what an export of the filtered rows writes)."""
        if not self.keeps_failed:
            return True
        return counts_as_failed(record.status or "-", wire_value(record, "data", "failReason"))

    def kept(self, rows: Iterable[HistoryRow]) -> list[HistoryRow]:
        return [row for row in rows if self.keep(row)]

    # -- reading -----------------------------------------------------------------------------

    def _loader(self) -> PagedLoader:
        if self.loader is None:
            raise RuntimeError("the feed has no listing yet: start() it first")
        return self.loader

    async def load(self, *, reset: bool = False, earlier: bool = False) -> FeedWindow:
        """The first page (reset), the page after the window, or (earlier) the one before it;
        the window as it then is, its rows those the filter keeps."""
        loader = self._loader()
        if reset:
            reading = loader.refresh()
        elif earlier:
            reading = loader.load_previous()
        else:
            reading = loader.load_next()
        await self._wait(reading, what=LISTING)
        # 'failed' lists every status and keeps the failures (refunded ones too): read on
        # while a page's worth has not turned up, within the loader's window
        extra = 0
        while (
            self.keeps_failed
            and loader.has_more
            and extra < self.window_pages - 1
            and sum(1 for row in loader.rows if self.keep(row)) < self.page_size
        ):
            extra += 1
            await self._wait(loader.load_next(), what=LISTING)
        return FeedWindow(
            self.kept(loader.rows),
            reset=reset,
            has_more=loader.has_more,
            offset=loader.offset,
            earlier=loader.has_earlier,
            top_read=earlier and not loader.has_earlier,
        )

    def can_load(self, *, earlier: bool = False) -> bool:
        """Whether a page after (or before) the window is there to read now (none in flight)."""
        loader = self.loader
        if loader is None or loader.is_loading:
            return False
        return loader.has_earlier if earlier else loader.has_more

    @property
    def at_end(self) -> bool:
        """True when the listing has no page after the window."""
        return self.loader is not None and not self.loader.has_more

    def take(self, window: FeedWindow) -> WindowChange:
        """Hold `window`'s rows; what the view must do to show them. A page added at the end
        is appended; a window that slid is redrawn, with how far the rows held before moved."""
        before = self.ids
        if window.reset:
            self.ids, self.rows = [], {}
            change = WindowChange(self._hold(window.rows), cleared=True, before=len(before))
        else:
            ids = list(dict.fromkeys(row.id for row in window.rows))
            if ids[: len(before)] == before:
                change = WindowChange(self._hold(window.rows))
            else:
                at = {request_id: index for index, request_id in enumerate(ids)}
                kept = next((i for i, request_id in enumerate(before) if request_id in at), None)
                shift = None if kept is None else at[before[kept]] - kept
                self.ids, self.rows = [], {}
                added = self._hold(window.rows)
                change = WindowChange(
                    added, cleared=True, slid=True, shift=shift, before=len(before)
                )
        if window.reset or window.top_read:
            self.new_above = 0  # the first page as it is now is on screen
            self.new_overflow = False
        self.has_more = window.has_more
        self.offset = window.offset
        self.has_earlier = window.earlier
        return change

    def _hold(self, rows: Iterable[HistoryRow]) -> list[HistoryRow]:
        added = []
        for row in rows:
            if row.id in self.rows:
                continue
            self.ids.append(row.id)
            self.rows[row.id] = row
            added.append(row)
        return added

    # -- new requests --------------------------------------------------------------------------

    @property
    def wants_newer_check(self) -> bool:
        """Whether a look at the first page for new requests makes sense now: rows are shown,
        newest first, and no page is in flight."""
        loader = self.loader
        return (
            loader is not None and not loader.is_loading and loader.newest_first and bool(self.ids)
        )

    async def check_newer(self) -> NewerSeen:
        """Read the first page again: changed rows are updated where they are; new ones are
        counted (`new_above`) rather than pushing the rows down under the cursor."""
        newer = await self._wait(self._loader().check_newer(), what=NEWER)
        return self.take_newer(newer)

    def take_newer(self, newer: NewerRows) -> NewerSeen:
        changed = []
        for row in newer.changed:
            if row.id not in self.rows:
                continue
            self.rows[row.id] = row
            self._children.pop(row.id, None)  # looked up again with the row
            changed.append(row)
        self.new_above += len(newer.added)
        self.new_overflow = self.new_overflow or newer.overflow
        return NewerSeen(changed, bool(newer.changed or newer.added or newer.overflow))

    # -- child requests ------------------------------------------------------------------------

    def known_children(self, request_id: str) -> Children | None:
        return self._children.get(request_id)

    async def load_children(self, client: ServiceClient, request_id: str) -> Children:
        """The children of a request (with the include flags of the filter in use), kept for
        the next time its row is selected (the oldest of CHILD_CACHE_SIZE are forgotten)."""
        query = self.query_in_use
        children = await self._wait(
            child_requests(
                client,
                request_id,
                include_order_data=bool(query and query.include_order_data),
                include_authenticated_data=bool(query and query.include_authenticated_data),
            ),
            what=CHILDREN,
        )
        if len(self._children) >= CHILD_CACHE_SIZE:
            self._children.pop(next(iter(self._children)))
        self._children[request_id] = children
        return children

    def forget_children(self) -> None:
        self._children.clear()

    # -- the status line -----------------------------------------------------------------------

    def status_text(self) -> str:
        """Two lines: which rows are held, the order, the quick filters and what more there is;
        then the filters in use (and the listing, when it is not v3)."""
        more = "more below: m or scroll" if self.has_more else "that is all"
        if self.has_earlier:
            more = f"earlier rows: scroll up or Home · {more}"
        query = self.query_in_use
        filters = (
            describe_filters(
                query.model_copy(update={"limit": None, "sort_by": None, "sort_direction": None})
            )
            if query
            else "-"
        )
        order = "newest first" if self.sort_direction == "desc" else "oldest first"
        quick = f" · quick: {', '.join(sorted(self.quick))}" if self.quick else ""
        if self.new_overflow:
            more = f"many new requests on top: ctrl+r shows them · {more}"
        elif self.new_above:
            more = f"{self.new_above} new on top: ctrl+r shows them · {more}"
        counts = f"{self.held_text()}, {order} by {self.sort_by}{quick} · {more}"
        if not self.ids and not self.has_more:
            counts = (
                f"No requests match these filters{quick} (x clears them; transfers made on "
                "Quote, F2, appear here)"
            )
        return f"{counts}\nfilters: {filters}{self.listing_text()}"

    def held_text(self) -> str:
        """'N request(s)' while the view holds every row read; else which rows of the
        listing it holds, of how many (at least, until the last page was read)."""
        loader = self.loader
        held = len(self.ids)
        seen = loader.rows_seen if loader is not None else 0
        if not self.offset and seen <= held:
            return f"{held} request(s)"
        total = f"{seen:,}" if loader is not None and loader.complete else f"≥{seen:,}"
        return f"requests {self.offset + 1:,}-{self.offset + held:,} of {total}"

    def listing_text(self) -> str:
        """' · via /requests/v2 (deprecated, sunset …)' when v3 did not answer; '' on v3."""
        answers = self.loader.answers if self.loader is not None else None
        if answers is None or answers.listing != "v2":
            return ""
        notice = answers.deprecation
        if notice is None:
            return " · via /requests/v2"
        sunset = f", sunset {notice.sunset_at[:10]}" if notice.sunset_at else ""
        return f" · via /requests/v2 (deprecated{sunset})"

    def untold_deprecation(self) -> RequestsDeprecation | None:
        """The listing's deprecation notice, the first time it is asked for after it came."""
        notice = self.loader.answers.deprecation if self.loader is not None else None
        if notice is None or self._deprecation_told:
            return None
        self._deprecation_told = True
        return notice


def no_listing_text(error: BaseException) -> str | None:
    """With no listing that serves this profile (no API key, v2 retired): what the status line
    says instead of an empty table, and what to run; None for any other error."""
    from crossdeck.api.errors import HistoryNeedsApiKey

    if not isinstance(error, HistoryNeedsApiKey):
        return None
    why = "your API key was refused" if error.has_key else "it needs an API key"
    # two lines that fit 80 columns
    return (
        f"No history: {why} for /requests/v3, and /requests/v2 is retired\n"
        "→ run `crossdeck apikey set` for this profile, then ctrl+r"
    )
