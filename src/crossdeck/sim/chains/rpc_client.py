"""A minimal JSON-RPC client the chain setup uses to deploy and fund over the node's own API.

Setup goes through the same HTTP endpoint clients use, so both backends share one code path and
every start exercises the server end to end.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import aiohttp


class ChainRpcError(RuntimeError):
    """A JSON-RPC error object returned by the node."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{method}: {message} (code {code})")
        self.method = method
        self.code = code
        self.rpc_message = message
        self.data = data


class ChainRpcClient:
    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        self.url = url
        self._ids = itertools.count(1)
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None  # made on first use, inside a loop

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session

    async def __aenter__(self) -> ChainRpcClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def call(self, method: str, *params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        async with self._http().post(self.url, json=body) as response:
            response.raise_for_status()
            reply = await response.json(content_type=None)
        if "error" in reply:
            error = reply["error"]
            raise ChainRpcError(
                method, error.get("code", 0), error.get("message", ""), error.get("data")
            )
        return reply["result"]

    async def wait_for_receipt(
        self, tx_hash: str, *, wait_s: float = 60.0, poll_s: float = 0.05
    ) -> dict[str, Any]:
        async with asyncio.timeout(wait_s):
            while True:
                receipt: dict[str, Any] | None = await self.call(
                    "eth_getTransactionReceipt", tx_hash
                )
                if receipt is not None:
                    return receipt
                await asyncio.sleep(poll_s)
