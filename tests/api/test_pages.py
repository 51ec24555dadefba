"""The one pagination loop (`crossdeck.api.pages.follow_pages`), as properties over listings.

A listing is a list of pages, each with its records and the cursor it hands out; the cursor
names the page it leads to, and may name one already read (a service bug). Whatever the
listing, the loop reads no cursor twice, yields every page it read, and ends the same way for
`ServiceClient.iter_pages` and history's `walk_pages` (both go through it): a repeat is
`CursorLoopError` after the page that carried it, never a quiet stop and never a loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crossdeck.api.errors import CursorLoopError
from crossdeck.api.pages import Paging, follow_pages
from crossdeck.models import RequestsQuery


@dataclass
class Page:
    requests: list[object]
    continuation: str | None


def cursor(index: int) -> str:
    return f"c{index}"


# each page: how many records, and which page its cursor leads to (None: the last page)
listings = st.lists(
    st.tuples(st.integers(0, 3), st.one_of(st.none(), st.integers(0, 7))), min_size=1, max_size=8
)


def follow(listing: list[tuple[int, int | None]], max_pages: int | None) -> tuple[list[int], str]:
    """The pages read (by index) and how the loop ended."""
    pages = [
        Page([object()] * size, cursor(to) if to is not None and to < len(listing) else None)
        for size, to in listing
    ]
    fetched: list[str | None] = []

    async def fetch(query: RequestsQuery) -> Page:
        fetched.append(query.continuation)
        index = 0 if query.continuation is None else int(query.continuation[1:])
        return pages[index]

    async def walk() -> tuple[list[int], str]:
        read: list[int] = []
        try:
            async for page in follow_pages(fetch, RequestsQuery(), max_pages=max_pages):
                read.append(next(i for i, p in enumerate(pages) if p is page))
        except CursorLoopError:
            return read, "loop"
        return read, "end"

    read, how = asyncio.run(walk())
    assert len(set(fetched)) == len(fetched), "a cursor was followed twice"
    return read, how


@settings(max_examples=200, deadline=None)
@given(listing=listings, max_pages=st.one_of(st.none(), st.integers(1, 9)))
def test_the_loop_reads_each_cursor_once_and_says_why_it_stopped(
    listing: list[tuple[int, int | None]], max_pages: int | None
) -> None:
    read, how = follow(listing, max_pages)
    # what a reader of the listing expects, walked by hand
    expected: list[int] = []
    followed: set[int] = set()
    index, outcome = 0, "end"
    while True:
        expected.append(index)
        size, to = listing[index]
        if to is None or to >= len(listing) or size == 0:
            break
        if max_pages is not None and len(expected) >= max_pages:
            break
        if to in followed:
            outcome = "loop"
            break
        followed.add(to)
        index = to
    assert read == expected
    assert how == outcome


def test_paging_says_where_to_continue_after_max_pages() -> None:
    listing = [Page([object()], "c1"), Page([object()], None)]

    async def fetch(query: RequestsQuery) -> Page:
        return listing[0 if query.continuation is None else 1]

    async def walk() -> Paging:
        paging = Paging()
        walked = follow_pages(fetch, RequestsQuery(), max_pages=1, paging=paging)
        assert len([page async for page in walked]) == 1
        return paging

    paging = asyncio.run(walk())
    assert paging.pages == 1 and paging.has_more and paging.next_cursor == "c1"


def test_max_pages_below_one_is_refused() -> None:
    async def fetch(query: RequestsQuery) -> Page:
        raise AssertionError("nothing is fetched")

    async def walk() -> None:
        async for _ in follow_pages(fetch, RequestsQuery(), max_pages=0):
            pass

    with pytest.raises(ValueError, match="max_pages"):
        asyncio.run(walk())
