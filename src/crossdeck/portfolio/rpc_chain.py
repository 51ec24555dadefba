"""What the readers of chains behind a JSON-RPC (EVM, Solana) share: which URL a chain is read
at (the config's `rpc`, else the `httpRpcUrl` /chains gives), what of it is shown, and the
reading of a chain that has no URL at all; and the name every reader shows a chain by."""

from __future__ import annotations

from crossdeck.models.chains import ChainInfo
from crossdeck.models.urls import url_where
from crossdeck.portfolio.model import ChainReading


def chain_label(chain: ChainInfo) -> str:
    """The name a chain is shown by: /chains' display name, else its name, else its id."""
    return chain.display_name or chain.name or str(chain.id)


class RpcChainReader:
    """The URL half of a reader: `rpc_urls` by chain id (the config's), else /chains'."""

    def __init__(self, rpc_urls: dict[int, str], *, timeout: float = 8.0) -> None:
        self.rpc_urls = rpc_urls
        self.timeout = timeout  # per RPC request; the whole chain has reader.CHAIN_SECONDS

    def url_for(self, chain: ChainInfo) -> str | None:
        assert chain.id is not None
        return self.rpc_urls.get(chain.id) or chain.http_rpc_url or None

    def where(self, chain: ChainInfo) -> str:
        url = self.url_for(chain)
        return url_where(url) if url else ""

    @staticmethod
    def no_url(chain: ChainInfo) -> ChainReading:
        assert chain.id is not None
        return ChainReading(
            chain.id,
            chain_label(chain),
            "",
            "",
            error=f"no RPC URL: set rpc.{chain.id} in the config",
        )
