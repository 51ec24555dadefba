"""Reverts reach clients as a real node reports them: errors with data, or a status-0 receipt."""

from __future__ import annotations

import pytest
from eth_abi import decode
from web3.exceptions import ContractLogicError, Web3RPCError

from .helpers import ChainKit

pytestmark = pytest.mark.asyncio(loop_scope="module")

ERROR_STRING = bytes.fromhex("08c379a0")


async def test_eth_call_revert_carries_reason_and_data(kit: ChainKit) -> None:
    stranger = await kit.new_account()
    with pytest.raises(ContractLogicError) as caught:
        await kit.usdc.functions.mint(stranger.address, 1).call({"from": stranger.address})
    assert "USDC: caller is not the owner" in str(caught.value)
    data = bytes.fromhex(caught.value.data[2:])
    assert data[:4] == ERROR_STRING
    assert decode(["string"], data[4:]) == ("USDC: caller is not the owner",)


async def test_estimate_gas_revert_is_an_error(kit: ChainKit) -> None:
    stranger = await kit.new_account()
    with pytest.raises(ContractLogicError, match="caller is not the owner"):
        await kit.w3.eth.estimate_gas(
            {
                "from": stranger.address,
                "to": kit.node.usdc,
                "data": kit.usdc.encode_abi("mint", args=[stranger.address, 1]),
            }
        )


async def test_revert_without_reason(kit: ChainKit) -> None:
    with pytest.raises(ContractLogicError) as caught:
        await kit.w3.eth.call({"to": kit.node.usdc, "data": "0xdeadbeef"})
    assert "execution reverted" in str(caught.value)


async def test_revert_response_shape_matches_geth(kit: ChainKit) -> None:
    reply = await kit.w3.provider.make_request(
        "eth_call",
        [
            {"to": kit.node.usdc, "data": kit.usdc.encode_abi("mint", args=[kit.node.usdc, 1])},
            "latest",
        ],
    )
    assert reply["error"]["code"] == 3
    assert reply["error"]["message"] == "execution reverted: USDC: caller is not the owner"
    assert reply["error"]["data"].startswith("0x08c379a0")


async def test_reverted_transaction_mines_with_status_zero(kit: ChainKit) -> None:
    stranger = await kit.new_account(native=10**17)
    balance_before = await kit.w3.eth.get_balance(stranger.address)
    data = kit.usdc.encode_abi("mint", args=[stranger.address, 10**6])

    receipt = await kit.send(stranger, {"to": kit.node.usdc, "data": data, "gas": 100_000})

    assert receipt["status"] == 0
    assert 21_000 < receipt["gasUsed"] < 100_000
    fee = receipt["gasUsed"] * receipt["effectiveGasPrice"]
    assert await kit.w3.eth.get_balance(stranger.address) == balance_before - fee
    assert await kit.w3.eth.get_transaction_count(stranger.address) == 1
    assert await kit.usdc.functions.balanceOf(stranger.address).call() == 0


async def test_calls_need_no_native_balance(kit: ChainKit) -> None:
    # Wallets read and estimate from empty accounts; nodes run calls with a zero gas price.
    empty = "0x000000000000000000000000000000000000dEaD"
    assert await kit.usdc.functions.decimals().call({"from": empty}) == 6
    gas = await kit.usdc.functions.approve(kit.node.depository, 1).estimate_gas({"from": empty})
    assert 21_000 < gas < 100_000


async def test_transaction_pool_rejections(kit: ChainKit) -> None:
    sender = await kit.new_account(native=10**15)
    for tx, reason in (
        ({"to": kit.node.operator, "value": 10**18, "gas": 21_000}, "(?i)insufficient funds"),
        ({"to": kit.node.operator, "value": 1, "gas": 20_000}, "(?i)intrinsic gas too low"),
    ):
        raw = await kit.sign(sender, tx)
        with pytest.raises(Web3RPCError, match=reason):
            await kit.w3.eth.send_raw_transaction(raw)
    assert await kit.w3.eth.get_transaction_count(sender.address, "pending") == 0
