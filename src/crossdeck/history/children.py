"""The child requests of one request (refunds of an excess, duplicate deposits, retries).

The record itself does not say which requests are its children (spec 2.3: parent/child linkage
is "not shown"), so they are asked for the way the spec offers: `id` with
`includeChildRequests=true` lists the request and its children (4.2). Every record of that
listing other than the request itself is a child.
"""

from __future__ import annotations

from dataclasses import dataclass

from crossdeck.api.client import ServiceClient
from crossdeck.history.summary import HistoryRow, summarize, wire_value
from crossdeck.models import RequestsQuery

CHILD_PAGE_SIZE = 50
# a request with more children than this is pathological; the pane says the list is cut
MAX_CHILD_PAGES = 4


@dataclass(frozen=True)
class Children:
    """The requests a deposit address's request spawned, as history rows."""

    parent_id: str
    rows: list[HistoryRow]
    truncated: bool = False


def child_kind(row: HistoryRow) -> str:
    """What kind of leg a child is ('refund', 'duplicate', ...) when the record says so."""
    kind = wire_value(row.record, "data", "requestKind")
    return kind if isinstance(kind, str) and kind else "child"


async def child_requests(
    client: ServiceClient,
    request_id: str,
    *,
    include_order_data: bool = False,
    include_authenticated_data: bool = False,
) -> Children:
    """The children of `request_id`, in the service's order (newest first)."""
    query = RequestsQuery.build(
        id=request_id,
        include_child_requests=True,
        include_order_data=include_order_data or None,
        include_authenticated_data=include_authenticated_data or None,
        limit=CHILD_PAGE_SIZE,
    )
    rows: list[HistoryRow] = []
    seen = {request_id.lower()}
    pages = 0
    truncated = False
    from crossdeck.history.pager import walk_pages  # (a deposit address's end only)

    async for page in walk_pages(client, query, max_pages=MAX_CHILD_PAGES):
        pages += 1
        for record in page.requests:
            key = (record.id or "").lower()
            if key and key not in seen:
                seen.add(key)
                rows.append(summarize(record, compact=True))
        truncated = pages >= MAX_CHILD_PAGES and page.has_more
    return Children(request_id, rows, truncated)
