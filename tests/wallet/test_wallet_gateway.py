"""EvmGateway against a real anvil node (chain 8453)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import vyper
from aiohttp import web
from wallet_support import Anvil

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.wallet.errors import (
    ChainMismatchError,
    ReceiptTimeoutError,
    RpcError,
    RpcUnreachableError,
    TransactionRevertedError,
    WouldRevertError,
)
from crossdeck.wallet.gateway import EvmGateway, Receipt
from crossdeck.wallet.signer import Signer, new_private_key
from helpers.keys import DEV_KEYS
from helpers.rpc_spy import methods_asked

DEV_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
# Init code that deploys the runtime PUSH1 0 PUSH1 0 REVERT: every call to it reverts.
ALWAYS_REVERTS_INIT = "0x6460006000fd6000526005601bf3"

TOKEN_SOURCE = """# pragma version ^0.4.0
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])

@deploy
def __init__():
    self.balanceOf[msg.sender] = 1000000000000

@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    return True
"""


@pytest.fixture
async def gateway(anvil: Anvil) -> AsyncIterator[EvmGateway]:
    async with EvmGateway(anvil.url, anvil.chain_id, timeout=10) as gw:
        yield gw


async def send(gw: EvmGateway, signer: Signer, tx: dict[str, Any]) -> str:
    """Fill nonce, fees and gas from the chain, sign, broadcast; returns the hash."""
    max_fee, priority = await gw.fee_params()
    full = {
        "from": signer.address,
        "chainId": gw.expected_chain_id,
        "nonce": await gw.nonce(signer.address),
        "maxFeePerGas": max_fee,
        "maxPriorityFeePerGas": priority,
        "value": 0,
        "data": "0x",
        **tx,
    }
    if "gas" not in full:
        full["gas"] = await gw.estimate_gas(full)
    signed = signer.sign_transaction(full)
    sent = await gw.send_raw(signed.raw)
    assert sent == signed.hash
    return sent


async def deploy(gw: EvmGateway, signer: Signer, init_code: str) -> str:
    receipt = await gw.wait_receipt(await send(gw, signer, {"data": init_code}), poll=0.05)
    assert receipt.contract_address is not None
    return receipt.contract_address


async def test_chain_id_is_verified(gateway: EvmGateway) -> None:
    assert await gateway.chain_id() == 8453


async def test_wrong_chain_is_refused_before_any_other_call(anvil: Anvil) -> None:
    async with EvmGateway(anvil.url, 999) as gw:
        with pytest.raises(ChainMismatchError, match=r"serves chain 8453.*chain 999"):
            await gw.chain_id()
        with pytest.raises(ChainMismatchError):
            await gw.balance("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")


async def test_eip1559_transfer_moves_exactly_the_value(gateway: EvmGateway) -> None:
    signer = Signer(Secret(DEV_KEYS[1]))
    recipient = Signer(new_private_key()).address
    before = await gateway.balance(signer.address)
    max_fee, priority = await gateway.fee_params()
    assert max_fee > priority > 0

    value = 10**16
    tx_hash = await send(gateway, signer, {"to": recipient, "value": str(value)})
    receipt = await gateway.wait_receipt(tx_hash, timeout=30, poll=0.05)

    assert isinstance(receipt, Receipt) and receipt.succeeded and receipt.tx_hash == tx_hash
    assert receipt.gas_used == 21_000
    assert await gateway.balance(recipient) == value
    spent = value + receipt.gas_used * receipt.effective_gas_price
    assert await gateway.balance(signer.address) == before - spent
    seen = await gateway.get_transaction(tx_hash)
    assert seen is not None
    assert seen["hash"] == tx_hash
    assert seen["from"] == signer.address
    assert seen["type"] == 2
    assert await gateway.get_receipt(tx_hash) == receipt


async def test_erc20_balance_and_allowance(gateway: EvmGateway) -> None:
    owner = Signer(Secret(DEV_KEYS[0]))
    spender = Signer(new_private_key()).address
    bytecode = vyper.compile_code(TOKEN_SOURCE, output_formats=["bytecode"])["bytecode"]
    token = await deploy(gateway, owner, bytecode)

    assert await gateway.erc20_balance(token, owner.address) == 10**12
    assert await gateway.erc20_balance(token, spender) == 0
    assert await gateway.erc20_allowance(token, owner.address, spender) == 0

    approve = "0x095ea7b3" + spender[2:].lower().rjust(64, "0") + f"{5_000_000:064x}"
    await gateway.wait_receipt(await send(gateway, owner, {"to": token, "data": approve}))
    assert await gateway.erc20_allowance(token, owner.address, spender) == 5_000_000

    with pytest.raises(RpcError, match="returned no amount"):
        await gateway.erc20_balance(spender, owner.address)  # an account, not a token


async def test_reverted_transaction_raises_with_its_hash(gateway: EvmGateway) -> None:
    signer = Signer(Secret(DEV_KEYS[0]))
    target = await deploy(gateway, signer, ALWAYS_REVERTS_INIT)

    with pytest.raises(WouldRevertError):
        await gateway.estimate_gas({"from": signer.address, "to": target, "data": "0x01"})

    # With the gas given, nothing stops it from being mined, and it reverts on chain.
    tx_hash = await send(gateway, signer, {"to": target, "data": "0x01", "gas": 60_000})
    with pytest.raises(TransactionRevertedError) as info:
        await gateway.wait_receipt(tx_hash, timeout=30, poll=0.05)
    assert info.value.tx_hash == tx_hash
    assert tx_hash in str(info.value)
    receipt = await gateway.get_receipt(tx_hash)
    assert receipt is not None and receipt.status == 0


async def test_unknown_transaction(gateway: EvmGateway) -> None:
    unknown = "0x" + "ee" * 32
    assert await gateway.get_receipt(unknown) is None
    assert await gateway.get_transaction(unknown) is None
    with pytest.raises(ReceiptTimeoutError, match=unknown):
        await gateway.wait_receipt(unknown, timeout=0.2, poll=0.05)


async def test_node_rejection_is_an_rpc_error(gateway: EvmGateway) -> None:
    poor = Signer(new_private_key())
    tx = {
        "to": poor.address,
        "value": 1,
        "gas": 21_000,
        "chainId": 8453,
        "nonce": 0,
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
    }
    with pytest.raises(RpcError, match="refused eth_sendRawTransaction") as info:
        await gateway.send_raw(poor.sign_transaction(tx).raw)
    assert not isinstance(info.value, RpcUnreachableError)


async def test_unreachable_rpc() -> None:
    with socket.socket() as sock:  # a port nobody listens on once it is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with EvmGateway(f"http://127.0.0.1:{port}/secret-path", 8453, retries=0) as gw:
        with pytest.raises(RpcUnreachableError) as info:
            await gw.balance("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
    assert "unreachable" in str(info.value)
    assert "secret-path" not in str(info.value)


@pytest.fixture
async def misbehaving_rpc() -> AsyncIterator[str]:
    """A real HTTP server on 127.0.0.1 that answers like a broken RPC endpoint."""

    async def not_json(request: web.Request) -> web.Response:
        return web.Response(text="<html>maintenance</html>")

    async def server_error(request: web.Request) -> web.Response:
        return web.Response(status=502, text="bad gateway")

    async def rpc_error(request: web.Request) -> web.Response:
        body = await request.json()
        error = {"code": -32000, "message": "header not found"}
        return web.json_response({"jsonrpc": "2.0", "id": body["id"], "error": error})

    app = web.Application()
    app.router.add_post("/not-json", not_json)
    app.router.add_post("/502", server_error)
    app.router.add_post("/rpc-error", rpc_error)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("/not-json", RpcError, "malformed answer"),
        ("/502", RpcUnreachableError, "answered HTTP 502"),
        ("/rpc-error", RpcError, "refused eth_chainId: header not found"),
    ],
)
async def test_broken_endpoints_are_classified(
    misbehaving_rpc: str, path: str, error: type[Exception], message: str
) -> None:
    async with EvmGateway(misbehaving_rpc + path, 8453, retries=0) as gw:
        with pytest.raises(error, match=message):
            await gw.chain_id()


async def test_bad_inputs_are_input_errors(gateway: EvmGateway) -> None:
    with pytest.raises(InputError, match="20-byte"):
        await gateway.balance("0x1234")
    with pytest.raises(InputError, match="64 hex"):
        await gateway.get_receipt("0xabc")
    with pytest.raises(InputError, match="value must be an integer"):
        await gateway.estimate_gas({"to": DEV_ADDRESS, "value": "1.5"})


async def test_a_reading_is_given_once_more_while_fresh_then_read_again(anvil: Anvil) -> None:
    """`reuse_reads_for`: the next ask of the very same balance or estimate gets the reading
    without a node read, once; a later ask, a stale reading, or a transaction sent in between
    reads the node again."""
    payer = Signer(Secret(DEV_KEYS[2]))
    recipient = Signer(new_private_key()).address
    async with (
        EvmGateway(anvil.url, anvil.chain_id, reuse_reads_for=30) as reusing,
        EvmGateway(anvil.url, anvil.chain_id) as plain,
    ):
        asked = methods_asked(reusing)
        before = await reusing.balance(recipient)
        # the balance moves behind the gateway's back (another gateway sends)
        await plain.wait_receipt(await send(plain, payer, {"to": recipient, "value": 5}), poll=0.05)
        assert await reusing.balance(recipient) == before  # given once more, not read
        assert await reusing.balance(recipient) == before + 5  # then read again
        assert asked.count("eth_getBalance") == 2

        call = {"from": payer.address, "to": recipient, "value": 1, "data": "0x"}
        estimate = await reusing.estimate_gas(call)
        assert await reusing.estimate_gas({**call, "value": "1"}) == estimate  # the same call
        assert asked.count("eth_estimateGas") == 1
        assert await reusing.estimate_gas({**call, "value": 2}) == estimate  # another: read
        assert asked.count("eth_estimateGas") == 2

        # a transaction sent through it forgets what it kept
        reads = asked.count("eth_getBalance")
        held = await reusing.balance(payer.address)  # read, and kept
        await reusing.wait_receipt(await send(reusing, payer, {"to": recipient, "value": 7}))
        assert await reusing.balance(payer.address) < held  # read again: the send forgot it
        assert asked.count("eth_getBalance") == reads + 2

    async with EvmGateway(anvil.url, anvil.chain_id, reuse_reads_for=0.05) as brief:
        first = await brief.balance(recipient)
        await plain_send(anvil, payer, recipient, 3)
        await asyncio.sleep(0.1)  # older than the gateway keeps a reading for
        assert await brief.balance(recipient) == first + 3


async def plain_send(anvil: Anvil, payer: Signer, to: str, value: int) -> None:
    async with EvmGateway(anvil.url, anvil.chain_id) as gw:
        await gw.wait_receipt(await send(gw, payer, {"to": to, "value": value}), poll=0.05)
