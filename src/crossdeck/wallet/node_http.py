"""What every chain family's gateway holds of its node: one HTTP client for the node's URL
(TLS as `base.tls` sets it), the URL as messages may name it, and how often a read is tried
again (`rpc_post` for JSON-RPC nodes, the Esplora gateway's own GET)."""

from __future__ import annotations

import httpx

from crossdeck.base.tls import client_context
from crossdeck.models.urls import url_where


class NodeHttp:
    def __init__(self, url: str, *, timeout: float, retries: int) -> None:
        # only scheme, host and port in messages: a node's URL often carries an API key
        self._where = url_where(url)
        self._http = httpx.AsyncClient(timeout=timeout, verify=client_context(url))
        self._retries = max(0, retries)

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._http.aclose()
