"""One POST of a JSON-RPC body with the retries a wallet may take, for every chain family's
gateway: a read is tried again after any transport failure, a send only when the connection was
never made. A send whose answer was lost may have landed, and sending it again could pay twice;
the journal holds its hash or signature, and `resume` looks for it instead."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx

RETRY_BACKOFF_S = 0.2


async def post_rpc(
    http: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    *,
    sends: bool,
    retries: int,
    unreachable: Callable[[str], Exception],
) -> httpx.Response:
    """POST `body` to `url`; `sends` says whether the call hands the node a transaction.
    After `retries` more tries (backing off from `RETRY_BACKOFF_S`), or at once where a retry
    is not safe, raise `unreachable(why)`."""
    again: tuple[type[Exception], ...] = (
        (httpx.ConnectError, httpx.ConnectTimeout) if sends else (httpx.TransportError, OSError)
    )
    attempt = 0
    while True:
        try:
            return await http.post(url, json=body)
        except (httpx.TransportError, OSError) as exc:
            if attempt >= retries or not isinstance(exc, again):
                raise unreachable(f"is unreachable ({type(exc).__name__})") from None
        await asyncio.sleep(RETRY_BACKOFF_S * 2**attempt)
        attempt += 1
