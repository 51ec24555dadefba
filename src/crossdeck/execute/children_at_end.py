"""The child requests a run's request spawned, named at the run's end.

A deposit address paid too much (strict: the quote is filled and the excess refunded) or paid
twice makes the service open a child request that carries the excess back; the parent's own
status says nothing of it (spec 2.3 shows no parent/child link). So when a deposit-address run
finishes, the children are looked up (`crossdeck.history.child_requests`) and followed, within
a bound, to a final status, and the run's `Finished` names each one: its id, kind, amount and
status. Looking them up never changes the run's outcome: an error is said, not raised.
"""

from __future__ import annotations

import asyncio
import logging
import time

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.events import ChildRequest
from crossdeck.history.children import child_kind, child_requests
from crossdeck.history.summary import currency_in
from crossdeck.models import Quote
from crossdeck.models.status import is_final

log = logging.getLogger(__name__)

CHILD_SETTLE_SECONDS = 30.0  # how long the end of a run waits for a child to become final
CHILD_POLL_SECONDS = 0.5


def pays_a_deposit_address(quote: Quote) -> bool:
    return any(step.deposit_address for step in quote.steps)


async def settled_children(
    service: ServiceClient,
    request_id: str,
    *,
    within: float = CHILD_SETTLE_SECONDS,
    poll: float = CHILD_POLL_SECONDS,
) -> tuple[tuple[ChildRequest, ...], str | None]:
    """(the children of `request_id`, each at its final status where it got there within
    `within` seconds; a problem in words, or None)."""
    deadline = time.monotonic() + within
    found: tuple[ChildRequest, ...] = ()
    while True:
        try:
            listing = await child_requests(service, request_id)
        except CrossdeckError as exc:
            log.warning("children of %s could not be listed: %s", request_id, exc)
            return found, (
                f"its child requests could not be listed: {exc.message} (list them with: "
                f"crossdeck requests --id {request_id} --include-child-requests)"
            )
        found = tuple(
            ChildRequest(
                request_id=row.id,
                kind=child_kind(row),
                status=row.status,
                amount=amount.amount if (amount := currency_in(row.record)) else None,
                amount_text=row.amount,
            )
            for row in listing.rows
        )
        settled = all(is_final(child.status) for child in found)
        if settled or time.monotonic() + poll > deadline:
            return found, None
        await asyncio.sleep(poll)
