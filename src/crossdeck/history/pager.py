"""Following `continuation` through the request listing (GET /requests/v3 where the service
offers it, else /requests/v2: `ServiceClient.list_requests`), one page in memory at a time.

`walk_pages` yields pages through the one pagination loop (`crossdeck.api.pages.follow_pages`)
until the service gives no cursor (or an empty page), or `max_pages` is reached
(`stats.next_cursor` then holds where to continue). A cursor the service already gave is a loop:
`CursorLoopError` rather than a silent stop that could hide a gap.

`stream_records` flattens the pages and drops a record whose id was already yielded: with
`sortBy=updatedAt` a request updated while paging moves and may come again; with `createdAt`
that would be a service bug. Either way it is counted in `stats.duplicates`, never printed twice.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crossdeck.api.client import ServiceClient
from crossdeck.api.pages import Page, Paging, follow_pages
from crossdeck.history.summary import HistoryRecord
from crossdeck.models import RequestsPage, RequestsQuery
from crossdeck.models.requests_v3 import RequestsDeprecation, RequestsPageV3, deprecation_of

if TYPE_CHECKING:
    from crossdeck.api.client import ListingPage


@dataclass
class WalkStats(Paging):
    records: int = 0
    duplicates: int = 0
    listing: str | None = None  # "v3" or "v2": the endpoint that answered
    deprecation: RequestsDeprecation | None = None  # the notice a v2 answer carried, if any

    def saw(self, page: Page) -> None:
        super().saw(page)
        if isinstance(page, RequestsPageV3 | RequestsPage):
            self.listing = "v3" if isinstance(page, RequestsPageV3) else "v2"
            self.path = f"/requests/{self.listing}"
            self.deprecation = deprecation_of(page) or self.deprecation


async def walk_pages(
    client: ServiceClient,
    query: RequestsQuery,
    *,
    max_pages: int | None = None,
    stats: WalkStats | None = None,
) -> AsyncIterator[ListingPage]:
    """Pages of `query`, from its `continuation` if it has one; see the module docstring."""
    stats = stats if stats is not None else WalkStats()
    async for page in follow_pages(client.list_requests, query, max_pages=max_pages, paging=stats):
        yield page


async def stream_records(
    client: ServiceClient,
    query: RequestsQuery,
    *,
    max_pages: int | None = None,
    stats: WalkStats | None = None,
) -> AsyncIterator[HistoryRecord]:
    """Records of every page in order, each id once (see the module docstring)."""
    stats = stats if stats is not None else WalkStats()
    seen: set[str] = set()
    async for page in walk_pages(client, query, max_pages=max_pages, stats=stats):
        for record in page.requests:
            if record.id is not None:
                if record.id in seen:
                    stats.duplicates += 1
                    continue
                seen.add(record.id)
            stats.records += 1
            yield record
