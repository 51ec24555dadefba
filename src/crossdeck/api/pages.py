"""The one loop that follows `continuation` through a paged listing of requests.

`ServiceClient.iter_pages` (GET /requests/v2) and the history layer's `walk_pages` (v3 where the
service offers it) both page through `follow_pages`, so both stop the same way: when the service
gives no cursor, an empty page or `max_pages` is reached (`Paging.next_cursor` then says where to
continue), and with `CursorLoopError` when a cursor comes back that was already followed.

Why an error and not a quiet stop: following a repeated cursor would loop forever, and stopping
without a word would present a listing that may have a gap as if it were whole; a trader
reconciling transfers must know the history is incomplete. The error comes after the page that
carried the cursor was yielded, so every row read so far is still shown.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from crossdeck.api.errors import CursorLoopError

if TYPE_CHECKING:
    from crossdeck.models.requests_query import RequestsQuery


class Page(Protocol):
    """What the loop reads of a page of any listing version."""

    @property
    def continuation(self) -> str | None: ...

    @property
    def requests(self) -> Sequence[object]: ...


P = TypeVar("P", bound=Page)


@dataclass
class Paging:
    """Where a walk through the pages got to."""

    pages: int = 0
    next_cursor: str | None = None  # set when paging stopped at max_pages with more to come
    followed: set[str] = field(default_factory=set, repr=False)
    path: str = "/requests/v2"  # the listing that answered, named in a CursorLoopError

    def saw(self, page: Page) -> None:
        self.pages += 1

    @property
    def has_more(self) -> bool:
        return self.next_cursor is not None


async def follow_pages(
    fetch: Callable[[RequestsQuery], Awaitable[P]],
    query: RequestsQuery,
    *,
    max_pages: int | None = None,
    paging: Paging | None = None,
) -> AsyncIterator[P]:
    """Pages `fetch(query)` returns, from `query.continuation` if it has one, following each
    page's cursor (see the module docstring); `paging` counts them."""
    if max_pages is not None and max_pages < 1:
        raise ValueError(f"max_pages must be at least 1, got {max_pages}")
    paging = paging if paging is not None else Paging()
    if query.continuation:
        paging.followed.add(query.continuation)
    while True:
        page = await fetch(query)
        paging.saw(page)
        yield page
        cursor = page.continuation or None
        if cursor is None or not page.requests:
            return
        if max_pages is not None and paging.pages >= max_pages:
            paging.next_cursor = cursor
            return
        if cursor in paging.followed:
            raise CursorLoopError(cursor, paging.pages, path=paging.path)
        paging.followed.add(cursor)
        query = query.next_page(cursor)
