"""The demo world's EVM chains (origin 8453, venue EVM 999) on py-evm or anvil.

node = await start_chain(8453, funded={wallet: (10**18, 1_000 * 10**6)})
...  # talk to node.rpc_url with any JSON-RPC client
await node.stop()
"""

from crossdeck.sim.chains.node import BACKENDS, DEFAULT_OPERATOR_KEY, ChainNode, start_chain
from crossdeck.sim.contracts import load_artifact

__all__ = ["BACKENDS", "DEFAULT_OPERATOR_KEY", "ChainNode", "load_artifact", "start_chain"]
