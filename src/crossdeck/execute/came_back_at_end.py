"""What came back at a run's end: the request's record read once it is final (GET /requests/v2
by id) and /chains for the explorer links, put in words by `crossdeck.history.came_back`. A
service that cannot answer leaves the outcome without it (the status already said how it ended)."""

from __future__ import annotations

import logging

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import CrossdeckError
from crossdeck.history.came_back import CameBack, came_back
from crossdeck.history.explorer import ExplorerLinks
from crossdeck.models import RequestsQuery

log = logging.getLogger(__name__)


async def read_came_back(service: ServiceClient, request_id: str) -> CameBack | None:
    """The final request's amounts, fees and transaction links; None when it cannot be read."""
    try:
        page = await service.requests(RequestsQuery(id=request_id))
    except CrossdeckError as exc:
        log.warning("the record of %s could not be read: %s", request_id, exc)
        return None
    record = next((r for r in page.requests if r.id == request_id), None)
    if record is None:
        return None
    try:
        links: ExplorerLinks | None = ExplorerLinks(await service.chains())
    except CrossdeckError as exc:  # the amounts still read; the hashes go without links
        log.warning("/chains could not be read for explorer links: %s", exc)
        links = None
    return came_back(record, links)
