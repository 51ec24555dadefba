"""Multicall3 at its canonical address on every chain of the world, as on the public chains.

Public chains get Multicall3 from one presigned, chain-less transaction (nonce 0 of a throwaway
deployer; mds1/multicall), so it sits at 0xcA11bde05977b3631167028862bE2a173976CA11 everywhere;
OP Stack chains such as Base carry it as a genesis predeploy at that address. The world's chains
(py-evm refuses chain-less transactions over RPC, as geth does by default) get it the predeploy
way: the runtime code that presigned transaction deploys, set at the canonical address with
`anvil_setCode` (anvil's own method; the py-evm chain answers it too). The transaction is kept
byte for byte (`Multicall3.presigned.hex`) and checked by its public hash, so the code is the
one the public chains run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import rlp  # py-evm and eth-account depend on it
from eth_utils.crypto import keccak

from crossdeck.sim.chains.rpc_client import ChainRpcClient

MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11"
MULTICALL3_DEPLOYER = "0x05f32B3cC3888453ff71B01135B34FF8e41263F2"
# the public hash of the presigned deployment: the file below is that transaction, unaltered
MULTICALL3_DEPLOYMENT_HASH = "0x07471adfe8f4ec553c1199f495be97fc8be8e0626ae307281c22534460184ed1"
_PRESIGNED = Path(__file__).resolve().parent.parent / "contracts" / "Multicall3.presigned.hex"
# the init code's constructor copies the runtime from this offset (CODECOPY at 0x20)
_RUNTIME_OFFSET = 0x20


@cache
def presigned_deployment() -> bytes:
    raw = bytes.fromhex(_PRESIGNED.read_text().strip().removeprefix("0x"))
    if "0x" + keccak(raw).hex() != MULTICALL3_DEPLOYMENT_HASH:
        raise RuntimeError(f"{_PRESIGNED} is not the canonical Multicall3 deployment")
    return raw


@cache
def runtime_code() -> bytes:
    """The code the presigned deployment leaves at the canonical address."""
    # legacy transaction: [nonce, gasPrice, gas, to, value, data, v, r, s]
    fields = rlp.decode(presigned_deployment())
    init_code: bytes = fields[5]
    # PUSH2 <runtime length> DUP1 PUSH2 <offset> ... : the constructor's copy of the runtime
    length = int.from_bytes(init_code[0x13:0x15], "big")
    runtime = init_code[_RUNTIME_OFFSET : _RUNTIME_OFFSET + length]
    if len(runtime) != length or _RUNTIME_OFFSET + length != len(init_code):
        raise RuntimeError("the Multicall3 init code is not laid out as expected")
    return runtime


async def ensure_multicall3(client: ChainRpcClient) -> str:
    """Put Multicall3 at its canonical address unless it is there already (a restored chain
    keeps it); its address."""
    code = await client.call("eth_getCode", MULTICALL3_ADDRESS, "latest")
    if code in ("0x", "0x0", None):
        await client.call("anvil_setCode", MULTICALL3_ADDRESS, "0x" + runtime_code().hex())
    return MULTICALL3_ADDRESS
