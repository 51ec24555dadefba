"""What came back at a run's end: the request's record read once it is final (GET /requests/v3
by id, the service's current history; /requests/v2, which it retires, only where v3 cannot
answer) and /chains for the explorer links, put in words by `crossdeck.history.came_back`. A
service that cannot answer leaves the outcome without it (the status already said how it ended)."""

from __future__ import annotations

import logging

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import CrossdeckError
from crossdeck.history.came_back import CameBack, came_back
from crossdeck.history.explorer import ExplorerLinks
from crossdeck.history.summary import HistoryRecord
from crossdeck.models import RequestsQuery

log = logging.getLogger(__name__)


async def read_came_back(service: ServiceClient, request_id: str) -> CameBack | None:
    """The final request's amounts, fees and transaction links; None when it cannot be read."""
    query = RequestsQuery(id=request_id)
    records: list[HistoryRecord]
    try:
        records = list((await service.requests_v3(query)).requests)
    except CrossdeckError as exc:
        log.info("the v3 record of %s could not be read (%s): asking /requests/v2", request_id, exc)
        try:
            records = list((await service.requests(query)).requests)
        except CrossdeckError as exc2:
            log.warning("the record of %s could not be read: %s", request_id, exc2)
            return None
    record = next((r for r in records if r.id == request_id), None)
    if record is None:
        return None
    try:
        links: ExplorerLinks | None = ExplorerLinks(await service.recent_chains())
    except CrossdeckError as exc:  # the amounts still read; the hashes go without links
        log.warning("/chains could not be read for explorer links: %s", exc)
        links = None
    return came_back(record, links)
