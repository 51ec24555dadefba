"""A spy on an `EvmGateway`'s JSON-RPC calls: every call still goes to the node, and its method
is listed, so a test can count what a run asked."""

from __future__ import annotations

from typing import Any

from crossdeck.wallet.gateway import EvmGateway


def methods_asked(gateway: EvmGateway) -> list[str]:
    """The list the gateway's calls are written to from now on, method by method, in order."""
    asked: list[str] = []
    real_rpc = gateway._rpc

    async def counted(method: str, *params: Any) -> Any:
        asked.append(method)
        return await real_rpc(method, *params)

    gateway._rpc = counted  # type: ignore[method-assign]
    return asked
