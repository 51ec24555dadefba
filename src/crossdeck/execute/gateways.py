"""One `EvmGateway` per chain, made on first use from the configured RPC URLs (or a factory)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
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


class GatewayPool:
    """`rpc` maps chain id -> RPC URL, or is a factory returning a gateway (None: no RPC)."""

    def __init__(self, rpc: Mapping[int, str] | GatewayFactory) -> None:
        self._urls = {int(k): v for k, v in rpc.items()} if isinstance(rpc, Mapping) else None
        self._factory = None if isinstance(rpc, Mapping) else rpc
        self._made: dict[int, EvmGateway] = {}

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

            gateway = EvmGateway(url, chain_id)
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
