"""One `EvmGateway` per chain, made on first use from the configured RPC URLs (or a factory)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from crossdeck.models.addresses import Family, family_of

if TYPE_CHECKING:
    from crossdeck.models import ChainsResponse, Quote
    from crossdeck.wallet.gateway import EvmGateway

GatewayFactory = Callable[[int], "EvmGateway | None"]


class Gateways(Protocol):
    """The chains a run can reach: what the executor is handed (`GatewayPool` fits)."""

    @property
    def chain_ids(self) -> frozenset[int] | None:
        """Chains with a configured RPC; None when a factory decides."""
        ...

    def get(self, chain_id: int) -> EvmGateway | None: ...

    async def aclose(self) -> None: ...


def rpc_from_chains(configured: Mapping[int, str], chains: ChainsResponse | None) -> dict[int, str]:
    """The RPC URL the service's /chains gives (`httpRpcUrl`, http or https) for each EVM
    chain the settings name none for: what the public SDK uses too. The settings always win."""
    found: dict[int, str] = {}
    for chain in chains.chains if chains is not None else []:
        url = (chain.http_rpc_url or "").strip()
        if chain.id is None or chain.id in configured:
            continue
        if family_of(chain.id, chain.vm_type) is not Family.EVM:  # hypevm too; not svm, bvm
            continue
        if url.startswith(("https://", "http://")) and url.isprintable() and " " not in url:
            found[chain.id] = url
    return found


def transaction_chains(quote: Quote) -> list[int]:
    """The chains `quote`'s transactions are sent on, in step order."""
    seen: list[int] = []
    for tx in quote.transactions():
        if tx.chain_id is not None and tx.chain_id not in seen:
            seen.append(tx.chain_id)
    return seen


class GatewayPool:
    """`rpc` maps chain id -> RPC URL, or is a factory returning a gateway (None: no RPC).
    `adopt` adds /chains' RPC of each chain the mapping has none for (`from_chains`)."""

    def __init__(
        self, rpc: Mapping[int, str] | GatewayFactory, *, reuse_reads_for: float = 0.0
    ) -> None:
        """`reuse_reads_for`: the gateways' own (`EvmGateway`); not for a factory's."""
        self._reuse_reads_for = reuse_reads_for
        self._urls = {int(k): v for k, v in rpc.items()} if isinstance(rpc, Mapping) else None
        self._factory = None if isinstance(rpc, Mapping) else rpc
        self._made: dict[int, EvmGateway] = {}
        self.from_chains: dict[int, str] = {}

    def adopt(self, chains: ChainsResponse) -> None:
        """Use the /chains `httpRpcUrl` of every EVM chain no RPC is configured for; forget the
        RPC of a chain /chains lists as another family's (an SVM chain's is the SVM gateway's:
        before /chains answered, only the public facts of its id told the families apart)."""
        if self._urls is None:
            return
        from crossdeck.models.addresses import Family

        for chain_id in [c for c in self._urls if chains.by_id(c) is not None]:
            if chains.family(chain_id) is not Family.EVM:
                del self._urls[chain_id]
        found = rpc_from_chains(self._urls, chains)
        self._urls.update(found)
        self.from_chains.update(found)

    def notes(self, quote: Quote) -> list[str]:
        """One line per chain of `quote`'s transactions whose RPC came from /chains. It says
        what that costs: the node the service names answers the checks meant to hold the
        service to the user (funds, gas limits, the simulation), and how to name one's own."""
        return [
            f"chain {chain_id}: RPC {self.from_chains[chain_id]} (the service's /chains "
            "httpRpcUrl; the settings name none for this chain, so the funds, gas and "
            "simulation checks take the service's node's word: set your own with "
            f"CROSSDECK_RPC__{chain_id} or [rpc] {chain_id} in the config)"
            for chain_id in transaction_chains(quote)
            if chain_id in self.from_chains
        ]

    @property
    def chain_ids(self) -> frozenset[int] | None:
        """Chains with a configured RPC; None when a factory decides."""
        return frozenset(self._urls) if self._urls is not None else None

    def get(self, chain_id: int) -> EvmGateway | None:
        if chain_id in self._made:
            return self._made[chain_id]
        gateway: EvmGateway | None
        if self._urls is not None:
            url = self._urls.get(chain_id)
            if url is None:
                return None
            from crossdeck.wallet.gateway import EvmGateway

            gateway = EvmGateway(url, chain_id, reuse_reads_for=self._reuse_reads_for)
        else:
            assert self._factory is not None
            gateway = self._factory(chain_id)
        if gateway is not None:
            self._made[chain_id] = gateway
        return gateway

    async def aclose(self) -> None:
        made, self._made = list(self._made.values()), {}
        for gateway in made:
            await gateway.aclose()
