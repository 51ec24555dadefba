"""Block-explorer links for the transactions and addresses of a request, from GET /chains.

Each chain has `explorerUrl` and optionally `explorerPaths` with templates such as
`{"transaction": "/tx/{TX_HASH}", "address": "/address/{ADDRESS}"}` (the public service uses
these placeholders; `{txHash}`/`{hash}` and `{address}` are read too) and `explorerQueryParams`
to append. Without a template the paths are `/tx/<hash>` and `/address/<address>`.
Values are URL-quoted before they go into a link: a hash from the service is data, not a path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlencode

from crossdeck.api.client import ServiceClient
from crossdeck.models import ChainInfo, ChainsResponse, RequestRecord, RequestTx
from crossdeck.models.requests_v3 import RequestRecordV3, RequestTxV3

_TX_PLACEHOLDERS = ("{TX_HASH}", "{txHash}", "{hash}")
_ADDRESS_PLACEHOLDERS = ("{ADDRESS}", "{address}")


@dataclass(frozen=True)
class TxLink:
    """A request's transaction, with its explorer link when the chain has one."""

    direction: Literal["in", "out"]
    chain_id: int | None
    hash: str
    url: str | None  # None when the chain or its explorer is unknown


def _fill(template: str, placeholders: tuple[str, ...], value: str) -> str:
    for placeholder in placeholders:
        if placeholder in template:
            return template.replace(placeholder, value)
    return template.rstrip("/") + "/" + value


def _link(
    chain: ChainInfo, kind: str, default: str, placeholders: tuple[str, ...], value: str
) -> str | None:
    base = (chain.explorer_url or "").rstrip("/")
    template = (chain.explorer_paths or {}).get(kind) or default
    path = _fill(template, placeholders, quote(value, safe=""))
    if path.startswith(("https://", "http://")):
        url = path
    elif base:
        url = base + "/" + path.lstrip("/")
    else:
        return None
    params = chain.extra_fields.get("explorerQueryParams")
    if isinstance(params, dict) and params:
        url += ("&" if "?" in url else "?") + urlencode({k: str(v) for k, v in params.items()})
    return url


class ExplorerLinks:
    """Explorer URLs by chain id. Build it once per screen from `/chains`."""

    def __init__(self, chains: ChainsResponse | Iterable[ChainInfo]) -> None:
        items = chains.chains if isinstance(chains, ChainsResponse) else list(chains)
        self._chains = {chain.id: chain for chain in items if chain.id is not None}

    @classmethod
    async def load(cls, client: ServiceClient) -> ExplorerLinks:
        return cls(await client.chains())

    def chain(self, chain_id: int | None) -> ChainInfo | None:
        return self._chains.get(chain_id) if chain_id is not None else None

    def chain_name(self, chain_id: int | None) -> str:
        chain = self.chain(chain_id)
        if chain is None:
            return str(chain_id) if chain_id is not None else "?"
        return chain.display_name or chain.name or str(chain_id)

    def tx_url(self, chain_id: int | None, tx_hash: str) -> str | None:
        chain = self.chain(chain_id)
        if chain is None or not tx_hash:
            return None
        return _link(chain, "transaction", "/tx/{TX_HASH}", _TX_PLACEHOLDERS, tx_hash)

    def address_url(self, chain_id: int | None, address: str) -> str | None:
        chain = self.chain(chain_id)
        if chain is None or not address:
            return None
        return _link(chain, "address", "/address/{ADDRESS}", _ADDRESS_PLACEHOLDERS, address)

    def record_links(self, record: RequestRecord | RequestRecordV3) -> list[TxLink]:
        """Links of the request's origin (`in`) and destination (`out`) transactions."""
        links: list[TxLink] = []
        data = record.data
        Txs = list[RequestTx] | list[RequestTxV3] | None
        legs: tuple[tuple[Literal["in", "out"], Txs], ...] = (
            ("in", data.in_txs if data else None),
            ("out", data.out_txs if data else None),
        )
        for direction, txs in legs:
            for tx in txs or []:
                if tx.hash:
                    url = self.tx_url(tx.chain_id, tx.hash)
                    links.append(TxLink(direction, tx.chain_id, tx.hash, url))
        return links
