"""The node's JSON-RPC surface as web3 and a wallet see it, on both backends."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest
from eth_account import Account
from web3.exceptions import Web3RPCError

from crossdeck.sim.chains import load_artifact
from crossdeck.sim.chains.node import OPERATOR_USDC_UNITS

from .helpers import DEMO, DEMO_NATIVE, DEMO_USDC, ChainKit

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_chain_id_is_the_configured_one(kit: ChainKit) -> None:
    assert await kit.w3.eth.chain_id == 8453
    assert await kit.w3.net.version == "8453"


async def test_transaction_signed_for_another_chain_is_rejected(kit: ChainKit) -> None:
    sender = await kit.new_account()
    nonce_before = await kit.w3.eth.get_transaction_count(sender.address)
    for other_chain in (1, 999):
        raw = await kit.sign(sender, {"to": DEMO.address, "value": 1, "chainId": other_chain})
        with pytest.raises(Web3RPCError, match="invalid chain id"):
            await kit.w3.eth.send_raw_transaction(raw)
    assert await kit.w3.eth.get_transaction_count(sender.address, "pending") == nonce_before


@pytest.mark.parametrize("kit", ["py-evm"], indirect=True)
async def test_shim_rejects_legacy_transactions_not_protected_for_this_chain(kit: ChainKit) -> None:
    # anvil accepts these (a dev-node laxity); the py-evm shim answers as geth does.
    sender = await kit.new_account()
    legacy = {"to": DEMO.address, "value": 1, "gas": 21_000, "gasPrice": 10**10, "nonce": 0}
    for tx in ({**legacy, "chainId": 1}, legacy):  # EIP-155 for chain 1, then pre-EIP-155
        raw = sender.sign_transaction(tx).raw_transaction
        with pytest.raises(Web3RPCError, match="invalid chain id"):
            await kit.w3.eth.send_raw_transaction(raw)
    assert await kit.w3.eth.get_transaction_count(sender.address) == 0


async def test_legacy_transaction_for_this_chain_is_accepted(kit: ChainKit) -> None:
    sender = await kit.new_account()
    receipt = await kit.send(sender, {"to": DEMO.address, "value": 7, "gasPrice": 10**10})
    assert receipt["status"] == 1
    assert receipt["type"] == 0


async def test_native_transfer_with_eip1559_fees(kit: ChainKit) -> None:
    sender = await kit.new_account(native=10**18)
    receiver = Account.create().address
    before = await kit.w3.eth.get_balance(sender.address)
    value = 123_456_789

    receipt = await kit.send(sender, {"to": receiver, "value": value})

    assert receipt["status"] == 1
    assert receipt["type"] == 2
    assert receipt["from"] == sender.address
    assert receipt["to"] == receiver
    assert receipt["gasUsed"] == 21_000
    block = await kit.w3.eth.get_block(receipt["blockNumber"])
    assert receipt["effectiveGasPrice"] >= block["baseFeePerGas"]
    assert receipt["transactionHash"] in block["transactions"]
    fee = receipt["gasUsed"] * receipt["effectiveGasPrice"]
    assert await kit.w3.eth.get_balance(receiver) == value
    assert await kit.w3.eth.get_balance(sender.address) == before - value - fee

    tx = await kit.w3.eth.get_transaction(receipt["transactionHash"])
    assert tx["from"] == sender.address
    assert tx["value"] == value
    assert tx["chainId"] == 8453
    assert tx["blockNumber"] == receipt["blockNumber"]
    assert tx["maxPriorityFeePerGas"] <= tx["maxFeePerGas"]


async def test_pending_nonce_counts_sent_transactions(kit: ChainKit) -> None:
    sender = await kit.new_account()
    assert await kit.w3.eth.get_transaction_count(sender.address, "pending") == 0
    await kit.send(sender, {"to": DEMO.address, "value": 1})
    await kit.send(sender, {"to": DEMO.address, "value": 1})
    assert await kit.w3.eth.get_transaction_count(sender.address, "pending") == 2
    assert await kit.w3.eth.get_transaction_count(sender.address, "latest") == 2


async def test_demo_wallet_and_operator_are_funded(kit: ChainKit) -> None:
    # The demo wallet only ever receives in this module, so its USDC is exactly the grant.
    assert await kit.w3.eth.get_balance(DEMO.address) >= DEMO_NATIVE
    assert await kit.usdc.functions.balanceOf(DEMO.address).call() == DEMO_USDC
    assert await kit.usdc.functions.balanceOf(kit.node.operator).call() == OPERATOR_USDC_UNITS
    assert await kit.w3.eth.get_balance(kit.node.operator) > 1_000 * 10**18
    assert await kit.usdc.functions.owner().call() == kit.node.operator
    assert await kit.depository.functions.owner().call() == kit.node.operator


async def test_deployed_code_is_the_committed_runtime(kit: ChainKit) -> None:
    for name, address in (("USDC", kit.node.usdc), ("Depository", kit.node.depository)):
        code = await kit.w3.eth.get_code(address)
        assert "0x" + code.hex() == load_artifact(name)["deployedBytecode"]


async def test_block_timestamps_follow_the_clock(kit: ChainKit) -> None:
    sender = await kit.new_account()
    first = await kit.send(sender, {"to": DEMO.address, "value": 1})
    await asyncio.sleep(2.5)  # an idle spell: the next block must not carry a stale stamp
    sent_at = int(time.time())
    second = await kit.send(sender, {"to": DEMO.address, "value": 1})
    first_block = await kit.w3.eth.get_block(first["blockNumber"])
    second_block = await kit.w3.eth.get_block(second["blockNumber"])
    assert second_block["number"] > first_block["number"]
    assert second_block["timestamp"] > first_block["timestamp"]
    # anvil keeps its clock as an offset taken at start in whole seconds, so a block can be
    # stamped one second before our own reading (seen under load). The idle spell is long
    # enough that a stale stamp would still be older than this bound.
    assert second_block["timestamp"] >= sent_at - 1


async def test_blocks_by_number_hash_and_tag_agree(kit: ChainKit) -> None:
    latest = await kit.w3.eth.get_block("latest", full_transactions=True)
    assert latest["number"] == await kit.w3.eth.block_number
    by_hash = await kit.w3.eth.get_block(latest["hash"])
    assert by_hash["number"] == latest["number"]
    assert by_hash["parentHash"] == (await kit.w3.eth.get_block(latest["number"] - 1))["hash"]
    genesis = await kit.w3.eth.get_block("earliest")
    assert genesis["number"] == 0


async def test_fee_history_and_fee_suggestions(kit: ChainKit) -> None:
    history = await kit.w3.eth.fee_history(3, "latest", [50])
    latest = await kit.w3.eth.block_number
    assert history["oldestBlock"] == latest - 2
    assert len(history["baseFeePerGas"]) == 4  # three blocks and the next one
    assert len(history["gasUsedRatio"]) == 3
    assert len(history["reward"]) == 3
    assert await kit.w3.eth.max_priority_fee > 0
    assert await kit.w3.eth.gas_price > 0


async def test_storage_slots_are_readable(kit: ChainKit) -> None:
    # Slot layout of USDC.vy: balanceOf, allowance, totalSupply, owner.
    owner_slot = await kit.w3.eth.get_storage_at(kit.node.usdc, 3)
    assert owner_slot[-20:] == bytes.fromhex(kit.node.operator[2:])


async def test_json_rpc_errors_carry_standard_codes(kit: ChainKit) -> None:
    unknown = await kit.w3.provider.make_request("eth_noSuchMethod", [])
    assert unknown["error"]["code"] == -32601
    bad = await kit.w3.provider.make_request("eth_getBalance", ["0xnot-an-address", "latest"])
    assert bad["error"]["code"] == -32602
    accounts = await kit.w3.provider.make_request("eth_accounts", [])
    assert accounts["result"] == []
    assert "error" not in accounts


async def test_batch_requests(kit: ChainKit) -> None:
    async with kit.w3.batch_requests() as batch:
        batch.add(kit.w3.eth.get_balance(DEMO.address))
        batch.add(kit.w3.eth.get_block("latest"))
        batch.add(kit.usdc.functions.decimals())
        balance, block, decimals = await batch.async_execute()
    assert balance >= DEMO_NATIVE
    assert block["number"] >= 1
    assert decimals == 6


async def test_dev_methods_set_balance_and_mine(kit: ChainKit) -> None:
    target = Account.create().address
    reply = await kit.w3.provider.make_request("anvil_setBalance", [target, hex(10**21)])
    assert "error" not in reply
    assert await kit.w3.eth.get_balance(target) == 10**21
    before = await kit.w3.eth.block_number
    assert "error" not in await kit.w3.provider.make_request("evm_mine", [])
    assert await kit.w3.eth.block_number == before + 1


async def post_raw(url: str, body: bytes) -> object:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers={"Content-Type": "application/json"}) as reply,
    ):
        return await reply.json(content_type=None)


async def test_raw_json_rpc_framing(kit: ChainKit) -> None:
    url = kit.node.rpc_url
    # -32700 per JSON-RPC 2.0 (py-evm shim, geth); anvil answers -32600.
    assert (await post_raw(url, b"{not json"))["error"]["code"] in (-32700, -32600)
    mixed = json.dumps(
        [
            {"jsonrpc": "2.0", "id": 7, "method": "eth_chainId", "params": []},
            {"jsonrpc": "2.0", "id": 8, "method": "eth_noSuchMethod", "params": []},
        ]
    ).encode()
    first, second = await post_raw(url, mixed)
    assert (first["id"], first["result"]) == (7, "0x2105")
    assert (second["id"], second["error"]["code"]) == (8, -32601)
