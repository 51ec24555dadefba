"""The swap router on both backends, and `eth_simulateV1` with `traceTransfers` answered alike
by anvil and by the world's py-evm RPC: calls run in order on one state, every native value
moved (inner calls included) shows as a Transfer log of 0xEeee..., a reverted call says why."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from eth_abi.abi import encode
from eth_utils.crypto import keccak

from crossdeck.execute.guards.simulation import revert_reason

from .helpers import DEMO, ChainKit

pytestmark = pytest.mark.asyncio(loop_scope="module")

NATIVE = "0x" + "00" * 20
PSEUDO = "0x" + "ee" * 20
TRANSFER = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
RECIPIENT = "0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB"
ORDER = b"\x07" * 32


def call(signature: str, types: list[str], args: list[Any]) -> str:
    return "0x" + (keccak(text=signature)[:4] + encode(types, args)).hex()


def swap(token_in: str, amount_in: int, token_out: str, amount_out: int) -> str:
    return call(
        "swap(address,uint256,address,uint256,address,bytes32)",
        ["address", "uint256", "address", "uint256", "address", "bytes32"],
        [token_in, amount_in, token_out, amount_out, RECIPIENT, ORDER],
    )


async def simulate(kit: ChainKit, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    answer = await kit.w3.provider.make_request(
        "eth_simulateV1",  # type: ignore[arg-type]
        [{"blockStateCalls": [{"calls": calls}], "traceTransfers": True}, "latest"],
    )
    assert "error" not in answer, answer
    [block] = answer["result"]
    calls_out: list[dict[str, Any]] = block["calls"]
    return calls_out


def transfers(result: dict[str, Any]) -> Counter[tuple[str, str, str, int]]:
    """(token, from, to, amount) of each Transfer log, order aside."""
    found: Counter[tuple[str, str, str, int]] = Counter()
    for log in result["logs"]:
        topics = log["topics"]
        if topics[0] == TRANSFER and len(topics) == 3:
            found[
                (
                    log["address"].lower(),
                    "0x" + topics[1][-40:],
                    "0x" + topics[2][-40:],
                    int(log["data"], 16),
                )
            ] += 1
    return found


async def test_native_in_usdc_out_with_the_surplus_returned(kit: ChainKit) -> None:
    node, wallet = kit.node, DEMO.address.lower()
    router, usdc = node.router.lower(), node.usdc.lower()
    [result] = await simulate(
        kit,
        [
            {
                "from": DEMO.address,
                "to": node.router,
                "value": hex(10**16 + 5),
                "data": swap(NATIVE, 10**16, node.usdc, 30 * 10**6),
            }
        ],
    )
    assert result["status"] == "0x1"
    assert transfers(result) == Counter(
        {
            (PSEUDO, wallet, router, 10**16 + 5): 1,  # the call's own value
            (PSEUDO, router, wallet, 5): 1,  # the surplus, sent back by the router
            (usdc, router, RECIPIENT.lower(), 30 * 10**6): 1,
        }
    )
    # nothing was sent: the wallet's balance is where it was
    assert await kit.w3.eth.get_balance(DEMO.address) > 0


async def test_calls_run_in_order_on_one_state(kit: ChainKit) -> None:
    node, wallet = kit.node, DEMO.address.lower()
    router, usdc = node.router.lower(), node.usdc.lower()
    approve = call("approve(address,uint256)", ["address", "uint256"], [node.router, 10**6])
    take = swap(node.usdc, 10**6, NATIVE, 3 * 10**14)
    allowance = call("allowance(address,address)", ["address", "address"], [wallet, router])
    results = await simulate(
        kit,
        [
            {"from": DEMO.address, "to": node.usdc, "data": approve},
            {"from": DEMO.address, "to": node.router, "data": take},
            {"from": DEMO.address, "to": node.usdc, "data": allowance},
        ],
    )
    assert [r["status"] for r in results] == ["0x1", "0x1", "0x1"]
    assert transfers(results[1]) == Counter(
        {(usdc, wallet, router, 10**6): 1, (PSEUDO, router, RECIPIENT.lower(), 3 * 10**14): 1}
    )
    assert int(results[2]["returnData"], 16) == 0  # the approve was spent, in the same state
    # without the approve first, the swap reverts, saying why
    [alone] = await simulate(kit, [{"from": DEMO.address, "to": node.router, "data": take}])
    assert alone["status"] == "0x0" and transfers(alone) == Counter()
    assert revert_reason(alone) == "execution reverted: ERC20: insufficient allowance"


async def test_the_router_really_swaps(kit: ChainKit) -> None:
    node = kit.node
    before = await kit.w3.eth.get_balance(RECIPIENT)
    tx = {
        "from": DEMO.address,
        "to": node.router,
        "value": 10**15,
        "data": swap(NATIVE, 10**15, node.usdc, 3 * 10**6),
        "gas": 200_000,
        "chainId": node.chain_id,
        "nonce": await kit.w3.eth.get_transaction_count(DEMO.address),
        "maxFeePerGas": 10**11,
        "maxPriorityFeePerGas": 10**9,
    }
    signed = DEMO.sign_transaction(tx)
    sent = await kit.w3.eth.send_raw_transaction(signed.raw_transaction)
    receipt = await kit.w3.eth.wait_for_transaction_receipt(sent)
    assert receipt["status"] == 1
    balance = call("balanceOf(address)", ["address"], [RECIPIENT])
    held = await kit.w3.eth.call({"to": node.usdc, "data": balance})
    assert int.from_bytes(held, "big") >= 3 * 10**6
    assert await kit.w3.eth.get_balance(RECIPIENT) == before  # paid in USDC, not native


async def test_each_call_uses_the_gas_its_receipt_shows(kit: ChainKit) -> None:
    """gasUsed is a receipt's figure (21,000 and calldata in, refunds out), and a call after
    another counts its storage from the state the first left, as the two transactions do when
    mined one after the other: the gas-limit guard holds a deposit after its approve to it."""
    node = kit.node
    approve = call("approve(address,uint256)", ["address", "uint256"], [node.router, 10**6])
    take = swap(node.usdc, 10**6, NATIVE, 3 * 10**14)
    txs = [{"to": node.usdc, "data": approve}, {"to": node.router, "data": take}]
    simulated = await simulate(kit, [{"from": DEMO.address, **tx} for tx in txs])
    assert [r["status"] for r in simulated] == ["0x1", "0x1"]
    mined = []
    for tx in txs:
        receipt = await kit.send(DEMO, {**tx, "gas": 200_000})
        assert receipt["status"] == 1
        mined.append(receipt["gasUsed"])
    assert [int(r["gasUsed"], 16) for r in simulated] == mined
