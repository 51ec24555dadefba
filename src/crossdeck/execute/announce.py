"""Telling the service of a deposit as soon as it lands (`POST /transactions/index`), as the
public SDK does, so that it need not wait for its own look at the chain.

Best effort: the service finds the deposit without it, so no failure (a 404 from a service
without the endpoint, a timeout) stops the run, and it never holds the run up for long.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from crossdeck.base.errors import CrossdeckError

# the longest a best-effort POST /transactions/index may delay the run
INDEX_TIMEOUT_SECONDS = 1.0


async def announce(index_call: Awaitable[object]) -> None:
    """Await the service client's index call (EVM or SVM) within INDEX_TIMEOUT_SECONDS; any
    failure is dropped."""
    try:
        async with asyncio.timeout(INDEX_TIMEOUT_SECONDS):
            await index_call
    except (CrossdeckError, TimeoutError):
        pass
