"""Starting, sharing across loops, interval mining and stopping chains."""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import threading
from collections.abc import Iterator

import aiohttp
import pytest
from eth_account import Account

from crossdeck.sim.chains import start_chain
from crossdeck.sim.chains.anvil import AnvilNotFound, spawn_anvil

from .conftest import BACKEND_PARAMS
from .helpers import ChainKit


async def endpoint_answers(url: str) -> bool:
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
    try:
        async with aiohttp.ClientSession() as session, session.post(url, json=body) as reply:
            return reply.status == 200
    except aiohttp.ClientConnectionError:
        return False


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
async def test_custom_operator_owns_the_contracts_and_stop_closes_the_node(backend: str) -> None:
    operator = Account.create()
    node = await start_chain(999, backend=backend, operator_key=operator.key.hex())
    kit = ChainKit.connect(node)
    try:
        assert node.operator == operator.address
        assert node.operator_key.removeprefix("0x") not in repr(node)
        assert await kit.usdc.functions.owner().call() == operator.address
        assert await kit.depository.functions.owner().call() == operator.address
        assert await kit.w3.eth.get_balance(operator.address) > 0
    finally:
        await kit.w3.provider.disconnect()
        await node.stop()
    assert not await endpoint_answers(node.rpc_url)
    await node.stop()  # a second stop is harmless


def port_is_open(url: str) -> bool:
    host, port = url.removeprefix("http://").split(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_a_forgotten_node_dies_with_its_event_loop(backend: str) -> None:
    node = asyncio.run(start_chain(8453, backend=backend))  # never stopped
    assert not port_is_open(node.rpc_url)


async def test_dropped_anvil_process_is_killed() -> None:
    anvil = await spawn_anvil(31337)
    process = anvil.process
    assert process.poll() is None
    del anvil
    gc.collect()
    assert process.poll() is not None


async def test_missing_anvil_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CROSSDECK_ANVIL", "/nonexistent/anvil")
    with pytest.raises(AnvilNotFound, match="npm install"):
        await start_chain(8453, backend="anvil")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": "geth"}, "backend must be one of"),
        ({"funded": {"0x1234": (1, 1)}}, "not a 20-byte hex address"),
        ({"funded": {Account.create().address: (-1, 0)}}, "two ints >= 0"),
        ({"operator_key": "0x00"}, "operator_key"),
        ({"block_time": 0}, "block_time"),
    ],
)
async def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        await start_chain(8453, **kwargs)


@pytest.fixture
def background_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop on its own thread, as the World runs its servers."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


async def test_pyevm_chain_started_on_another_loop_serves_and_stops_from_here(
    background_loop: asyncio.AbstractEventLoop,
) -> None:
    wallet = Account.create()
    started = asyncio.run_coroutine_threadsafe(
        start_chain(8453, funded={wallet.address: (10**18, 10**6)}), background_loop
    )
    node = await asyncio.wrap_future(started)
    kit = ChainKit.connect(node)
    try:
        # Many concurrent senders: the shim serialises them onto one chain.
        senders = [await kit.new_account(native=10**16) for _ in range(5)]
        receipts = await asyncio.gather(
            *(kit.send(s, {"to": wallet.address, "value": 1_000}) for s in senders)
        )
        assert {r["status"] for r in receipts} == {1}
        assert len({r["blockNumber"] for r in receipts}) == 5  # one block per transaction
        assert await kit.w3.eth.get_balance(wallet.address) == 10**18 + 5_000
    finally:
        await kit.w3.provider.disconnect()
        await node.stop()  # from this loop, while the node lives on the background one
    assert not await endpoint_answers(node.rpc_url)


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
async def test_interval_mining_with_block_time(backend: str) -> None:
    node = await start_chain(999, backend=backend, block_time=0.5)
    kit = ChainKit.connect(node)
    try:
        first = await kit.w3.eth.block_number
        async with asyncio.timeout(20):
            while True:  # empty blocks keep coming with no transactions sent
                if await kit.w3.eth.block_number >= first + 2:
                    break
                await asyncio.sleep(0.1)
        receipt = await kit.send(kit.operator, {"to": Account.create().address, "value": 1})
        assert receipt["status"] == 1
        block = await kit.w3.eth.get_block(receipt["blockNumber"])
        parent = await kit.w3.eth.get_block(receipt["blockNumber"] - 1)
        # anvil may give sub-second siblings one stamp; never a stamp going back.
        assert block["timestamp"] >= parent["timestamp"]
        assert receipt["transactionHash"] in block["transactions"]
    finally:
        await kit.w3.provider.disconnect()
        await node.stop()


def test_no_anvil_left_behind() -> None:
    # Every anvil this module started was stopped or finalised: none is a child of ours.
    children = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as cmd:
                command = cmd.read()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"anvil" in command and fields[0] != "Z":
            children.append(pid)
    assert children == []
