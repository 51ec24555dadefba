"""The depository on the origin chain: deposits tagged with an order id, read back from logs."""

from __future__ import annotations

import os
import time

import pytest
from eth_account import Account
from eth_utils import keccak
from web3.exceptions import ContractLogicError, Web3RPCError

from .helpers import ZERO_ADDRESS, ChainKit, sign_authorization

pytestmark = pytest.mark.asyncio(loop_scope="module")

DEPOSIT_TOPIC = "0x" + keccak(text="Deposit(address,address,uint256,bytes32)").hex()


def topic_of(address: str) -> str:
    return "0x" + bytes.fromhex(address[2:]).rjust(32, b"\0").hex()


async def deposit_logs_for(kit: ChainKit, order_id: bytes, from_block: int) -> list:
    """Deposit events carrying `order_id`, found by topic filter as a solver would."""
    logs = await kit.w3.eth.get_logs(
        {
            "address": kit.node.depository,
            "fromBlock": from_block,
            "toBlock": "latest",
            "topics": [DEPOSIT_TOPIC, None, None, "0x" + order_id.hex()],
        }
    )
    return [kit.depository.events.Deposit().process_log(log) for log in logs]


async def test_approve_then_deposit_erc20_emits_the_order_id(kit: ChainKit) -> None:
    user = await kit.new_account(usdc=25_000_000)
    order_id = os.urandom(32)
    start = await kit.w3.eth.block_number
    vault_before = await kit.usdc.functions.balanceOf(kit.node.depository).call()

    approve = await kit.call_fn(user, kit.usdc, "approve", kit.node.depository, 25_000_000)
    deposit = await kit.call_fn(
        user, kit.depository, "depositErc20", user.address, kit.node.usdc, 25_000_000, order_id
    )

    assert approve["status"] == deposit["status"] == 1
    (event,) = await deposit_logs_for(kit, order_id, start)
    assert event.args.depositor == user.address
    assert event.args.token == kit.node.usdc
    assert event.args.amount == 25_000_000
    assert event.args.id == order_id
    assert event.transactionHash == deposit["transactionHash"]
    assert event.blockNumber == deposit["blockNumber"]
    vault_after = await kit.usdc.functions.balanceOf(kit.node.depository).call()
    assert vault_after - vault_before == 25_000_000
    assert await kit.usdc.functions.balanceOf(user.address).call() == 0


async def test_logs_filter_by_depositor_topic_and_block_range(kit: ChainKit) -> None:
    user = await kit.new_account(native=10**18)
    start = await kit.w3.eth.block_number + 1
    ids = [os.urandom(32), os.urandom(32)]
    for order_id in ids:
        await kit.call_fn(user, kit.depository, "depositNative", user.address, order_id, value=5)
    mine = await kit.w3.eth.get_logs(
        {
            "address": kit.node.depository,
            "fromBlock": start,
            "topics": [DEPOSIT_TOPIC, topic_of(user.address)],
        }
    )
    assert [log["topics"][3] for log in mine] == ids
    before_start = await kit.w3.eth.get_logs(
        {
            "address": kit.node.depository,
            "fromBlock": 0,
            "toBlock": start - 1,
            "topics": [DEPOSIT_TOPIC, topic_of(user.address)],
        }
    )
    assert before_start == []


async def test_deposit_native(kit: ChainKit) -> None:
    user = await kit.new_account(native=10**18)
    order_id = os.urandom(32)
    start = await kit.w3.eth.block_number
    vault_before = await kit.w3.eth.get_balance(kit.node.depository)

    receipt = await kit.call_fn(
        user, kit.depository, "depositNative", user.address, order_id, value=3 * 10**17
    )

    assert receipt["status"] == 1
    (event,) = await deposit_logs_for(kit, order_id, start)
    assert event.args.token == ZERO_ADDRESS
    assert event.args.amount == 3 * 10**17
    assert event.args.depositor == user.address
    assert await kit.w3.eth.get_balance(kit.node.depository) - vault_before == 3 * 10**17


async def test_zero_deposits_revert(kit: ChainKit) -> None:
    user = await kit.new_account()
    with pytest.raises(ContractLogicError, match="zero deposit"):
        await kit.depository.functions.depositNative(user.address, os.urandom(32)).call(
            {"from": user.address, "value": 0}
        )


async def test_deposit_with_receive_authorization_submitted_by_the_service(kit: ChainKit) -> None:
    user = await kit.new_account(native=0, usdc=8_000_000)  # no gas money at all
    order_id = os.urandom(32)
    start = await kit.w3.eth.block_number
    auth = sign_authorization(
        user,
        kit.node,
        primary="ReceiveWithAuthorization",
        to=kit.node.depository,
        value=8_000_000,
        valid_before=int(time.time()) + 600,
    )

    receipt = await kit.call_fn(
        kit.operator,
        kit.depository,
        "depositErc20WithAuthorization",
        kit.node.usdc,
        user.address,
        8_000_000,
        auth["validAfter"],
        auth["validBefore"],
        auth["nonce"],
        auth["v"],
        auth["r"],
        auth["s"],
        order_id,
    )

    assert receipt["status"] == 1
    (event,) = await deposit_logs_for(kit, order_id, start)
    assert event.args.depositor == user.address
    assert event.args.token == kit.node.usdc
    assert event.args.amount == 8_000_000
    assert await kit.usdc.functions.balanceOf(user.address).call() == 0
    assert await kit.usdc.functions.authorizationState(user.address, auth["nonce"]).call()


async def test_only_the_owner_withdraws(kit: ChainKit) -> None:
    user = await kit.new_account(native=10**18)
    await kit.call_fn(
        user, kit.depository, "depositNative", user.address, os.urandom(32), value=10**17
    )
    payee = Account.create().address
    with pytest.raises(ContractLogicError, match="not the owner"):
        await kit.depository.functions.withdrawNative(payee, 1).call({"from": user.address})
    receipt = await kit.call_fn(kit.operator, kit.depository, "withdrawNative", payee, 10**16)
    assert receipt["status"] == 1
    assert await kit.w3.eth.get_balance(payee) == 10**16

    await kit.call_fn(kit.operator, kit.usdc, "mint", kit.node.depository, 500)
    receipt = await kit.call_fn(
        kit.operator, kit.depository, "withdrawErc20", kit.node.usdc, payee, 500
    )
    assert receipt["status"] == 1
    assert await kit.usdc.functions.balanceOf(payee).call() == 500


async def test_log_filters_match_like_a_node(kit: ChainKit) -> None:
    user = await kit.new_account(native=10**18)
    first, second = os.urandom(32), os.urandom(32)
    r1 = await kit.call_fn(user, kit.depository, "depositNative", user.address, first, value=1)
    await kit.call_fn(user, kit.depository, "depositNative", user.address, second, value=2)
    await kit.call_fn(kit.operator, kit.usdc, "mint", user.address, 5)  # a 3-topic Transfer
    start = r1["blockNumber"]

    async def ids(**query) -> list[bytes]:
        logs = await kit.w3.eth.get_logs({"fromBlock": start, **query})
        return [bytes(log["topics"][3]) for log in logs]

    either = ["0x" + first.hex(), "0x" + second.hex()]
    assert await ids(topics=[DEPOSIT_TOPIC, None, None, either]) == [first, second]
    assert await ids(topics=[None, None, None, "0x" + second.hex()]) == [second]
    transfers = await kit.w3.eth.get_logs({"fromBlock": start, "address": kit.node.usdc})
    assert len(transfers) == 1
    # A value at a position the event does not have matches nothing.
    assert await ids(address=kit.node.usdc, topics=[None, None, None, either]) == []
    with pytest.raises(Web3RPCError):  # at most four positions, as on every node
        await ids(topics=[DEPOSIT_TOPIC, None, None, None, None])
    assert await ids(address=[kit.node.usdc], topics=[DEPOSIT_TOPIC]) == []
    by_hash = await kit.w3.eth.get_logs({"blockHash": r1["blockHash"]})
    assert [bytes(log["topics"][3]) for log in by_hash] == [first]
