"""Router 3.2's transition on a world chain (spec quote-v3.md section 8): since 2026-10-26 the
public service routes through router 3.2 while the older router stays live, both listed by
/chains (the top-level pair and `contracts["v3.2"]` name the new one, `contracts.v3` the old).

In the world the router the chain deployed is the current one (3.2: quotes route through it and
the solver watches it); the older router answers beside it at `PREVIOUS_ROUTER`, its code and
native liquidity copied there, until the transition ends (`sim serve --router-transition off`):
then its code is removed, so a stale quote naming it can do nothing there either.
"""

from __future__ import annotations

from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from crossdeck.sim.chains.node import ChainNode
from crossdeck.sim.chains.provision import ROUTER_NATIVE_WEI
from crossdeck.sim.chains.rpc_client import ChainRpcClient

# a world address of its own (the public pairs' addresses belong to the public chains)
PREVIOUS_ROUTER = to_checksum_address(keccak(b"crossdeck world: router v3 (before 3.2)")[-20:])


async def set_router_transition(node: ChainNode, *, transition: bool) -> str | None:
    """Put the older router at `PREVIOUS_ROUTER` (transition on) or take it away (off); its
    address while it answers, else None."""
    async with ChainRpcClient(node.rpc_url) as client:
        if not transition:
            await client.call("anvil_setCode", PREVIOUS_ROUTER, "0x")
            return None
        code = await client.call("eth_getCode", node.router, "latest")
        await client.call("anvil_setCode", PREVIOUS_ROUTER, code)
        balance = int(await client.call("eth_getBalance", PREVIOUS_ROUTER, "latest"), 16)
        if balance == 0:
            await client.call("anvil_setBalance", PREVIOUS_ROUTER, hex(ROUTER_NATIVE_WEI))
    return PREVIOUS_ROUTER
