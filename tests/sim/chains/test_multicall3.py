"""Multicall3 sits at its canonical address on every world chain, with the public code, and
answers `aggregate3` as on the public chains (both backends)."""

from __future__ import annotations

import pytest
from eth_abi.abi import decode, encode
from eth_account import Account
from eth_utils.crypto import keccak

from crossdeck.sim.chains.multicall3 import (
    MULTICALL3_ADDRESS,
    MULTICALL3_DEPLOYER,
    presigned_deployment,
    runtime_code,
)

from .helpers import DEMO, DEMO_NATIVE, DEMO_USDC, ChainKit


def _selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


def test_the_kept_deployment_is_the_public_presigned_one() -> None:
    raw = presigned_deployment()
    assert Account.recover_transaction(raw) == MULTICALL3_DEPLOYER
    code = runtime_code()
    # aggregate3 and getEthBalance are among the code's selectors
    assert _selector("aggregate3((address,bool,bytes)[])") in code
    assert _selector("getEthBalance(address)") in code


@pytest.mark.asyncio(loop_scope="module")
async def test_aggregate3_reads_balances_in_one_call(kit: ChainKit) -> None:
    assert kit.node.multicall3 == MULTICALL3_ADDRESS
    code = await kit.w3.eth.get_code(MULTICALL3_ADDRESS)
    assert bytes(code) == runtime_code()
    owner = DEMO.address
    calls = [
        (MULTICALL3_ADDRESS, False, _selector("getChainId()")),
        (
            MULTICALL3_ADDRESS,
            False,
            _selector("getEthBalance(address)") + encode(["address"], [owner]),
        ),
        (kit.node.usdc, False, _selector("balanceOf(address)") + encode(["address"], [owner])),
        # a failing call is reported, not fatal, with allowFailure
        (kit.node.usdc, True, _selector("noSuchFunction()")),
    ]
    data = _selector("aggregate3((address,bool,bytes)[])") + encode(
        ["(address,bool,bytes)[]"], [calls]
    )
    raw = await kit.w3.eth.call({"to": MULTICALL3_ADDRESS, "data": data})
    (results,) = decode(["(bool,bytes)[]"], bytes(raw))
    assert [ok for ok, _ in results] == [True, True, True, False]
    words = [int.from_bytes(out[:32], "big") for _, out in results[:3]]
    assert words == [
        kit.node.chain_id,
        await kit.w3.eth.get_balance(owner),
        DEMO_USDC,
    ]
    assert words[1] <= DEMO_NATIVE
