"""One POST of a JSON-RPC body with the retries a wallet may take, and the reading of its
answer, for every chain family's gateway. A read is tried again after any transport failure, a
send only when the connection was never made: a send whose answer was lost may have landed, and
sending it again could pay twice; the journal holds its hash or signature, and `resume` looks
for it instead."""

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


def read_reply(
    response: httpx.Response,
    method: str,
    *,
    unreachable: Callable[[str], Exception],
    malformed: Callable[[], Exception],
) -> tuple[Any, Any]:
    """The `(result, error)` of a JSON-RPC answer to `method`: an HTTP error status raises
    `unreachable(why)`, an answer that is not JSON-RPC (not JSON, or neither member) raises
    `malformed()`. Each family's gateway decides what an `error` means."""
    if response.status_code >= 400:
        raise unreachable(f"answered HTTP {response.status_code} to {method}")
    try:
        reply = response.json()
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or ("result" not in reply and "error" not in reply):
        raise malformed()
    return reply.get("result"), reply.get("error")


def error_message(error: Any) -> str:
    """The words of a JSON-RPC `error` member (its `message`, else the whole member)."""
    return str(error.get("message") or error) if isinstance(error, dict) else str(error)
