"""Start an EVM chain of the demo world with its contracts deployed and accounts funded."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from eth_account import Account
from eth_utils.address import is_hex_address, to_checksum_address

from crossdeck.sim.chains.multicall3 import ensure_multicall3
from crossdeck.sim.chains.provision import deployed, provision
from crossdeck.sim.chains.rpc_client import ChainRpcClient

if TYPE_CHECKING:  # for annotations only: each backend is imported when it starts
    from crossdeck.sim.chains.jsonrpc_server import JsonRpcServer
    from crossdeck.sim.chains.pyevm_rpc import PyEvmRpc

BACKENDS = ("py-evm", "anvil")
# Hardhat/anvil dev account #1: a publicly known test key, so contract addresses are stable.
DEFAULT_OPERATOR_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
OPERATOR_NATIVE_WEI = 1_000_000 * 10**18
OPERATOR_USDC_UNITS = 100_000_000 * 10**6
SAVE_INTERVAL_SECONDS = 2.0


@dataclass
class ChainNode:
    """A running chain with the demo contracts deployed."""

    chain_id: int
    rpc_url: str
    backend: str
    usdc: str
    depository: str
    router: str  # the swap router of self-executed same-chain swaps
    multicall3: str
    operator_key: str = field(repr=False)
    operator: str
    _stop: Callable[[], Awaitable[None]] = field(repr=False, compare=False)
    _stopped: bool = field(default=False, repr=False, compare=False)

    async def stop(self) -> None:
        """Shut the node down; safe to call twice and from any event loop."""
        if self._stopped:
            return
        self._stopped = True
        await self._stop()


def _balances(
    funded: Mapping[str, tuple[int, int]], operator: str
) -> tuple[dict[str, int], dict[str, int]]:
    native: dict[str, int] = {}
    usdc: dict[str, int] = {}
    for raw_address, amounts in funded.items():
        if not isinstance(raw_address, str) or not is_hex_address(raw_address):
            raise ValueError(f"funded: {raw_address!r} is not a 20-byte hex address")
        if (
            not isinstance(amounts, tuple | list)
            or len(amounts) != 2
            or not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in amounts)
        ):
            raise ValueError(
                f"funded[{raw_address}]: expected (native wei, usdc units) as two ints >= 0"
            )
        address = to_checksum_address(raw_address)
        native[address] = native.get(address, 0) + amounts[0]
        usdc[address] = usdc.get(address, 0) + amounts[1]
    native[operator] = native.get(operator, 0) + OPERATOR_NATIVE_WEI
    usdc[operator] = usdc.get(operator, 0) + OPERATOR_USDC_UNITS
    return native, usdc


async def start_chain(
    chain_id: int,
    *,
    backend: str = "py-evm",
    funded: Mapping[str, tuple[int, int]] | None = None,
    operator_key: str | None = None,
    block_time: float | None = None,
    state_file: Path | None = None,
) -> ChainNode:
    """Start a chain on 127.0.0.1 (port chosen by the OS), deploy USDC and the depository,
    and put Multicall3 at its canonical address.

    `funded` maps address -> (native wei, USDC smallest units) given at start; the operator
    (deployer, USDC owner) is funded generously on top. `block_time` switches from mining each
    transaction at once to interval mining. `state_file` keeps the chain across restarts (py-evm:
    its database, anvil: `--state`): a chain restored from it keeps its contracts, balances,
    nonces, blocks and receipts, and `funded` is not applied again.
    """
    if not isinstance(chain_id, int) or isinstance(chain_id, bool) or chain_id <= 0:
        raise ValueError(f"chain_id must be a positive int, got {chain_id!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if block_time is not None and block_time <= 0:
        raise ValueError(f"block_time must be positive seconds, got {block_time!r}")
    key = operator_key or DEFAULT_OPERATOR_KEY
    try:
        operator = Account.from_key(key).address
    except Exception as exc:
        raise ValueError("operator_key is not a valid secp256k1 private key") from exc
    native, usdc = _balances(funded or {}, operator)

    if backend == "py-evm":
        running = await _start_pyevm(chain_id, native, block_time, state_file)
    else:
        running = await _start_anvil(chain_id, native, block_time, state_file)
    stop = _stop_with_loop(asyncio.get_running_loop(), running)
    try:
        async with ChainRpcClient(running.rpc_url) as client:
            if running.restored:
                deployment = await deployed(client, chain_id, operator)
            else:
                deployment = await provision(client, chain_id, key, usdc)
            multicall3 = await ensure_multicall3(client)
    except BaseException:
        await stop()
        raise
    return ChainNode(
        chain_id=chain_id,
        rpc_url=running.rpc_url,
        backend=backend,
        usdc=deployment.usdc,
        depository=deployment.depository,
        router=deployment.router,
        multicall3=multicall3,
        operator_key=key,
        operator=operator,
        _stop=stop,
    )


@dataclass(frozen=True)
class _Running:
    rpc_url: str
    shutdown: Callable[[], Awaitable[None]]  # the orderly way, on the loop that started it
    kill: Callable[[], None]  # the last resort once that loop is gone; blocking
    restored: bool = False  # from a state file: provisioned already


async def _shut_down_when_cancelled(shutdown: Callable[[], Awaitable[None]]) -> None:
    try:
        await asyncio.Event().wait()
    finally:
        await shutdown()


def _stop_with_loop(
    loop: asyncio.AbstractEventLoop, running: _Running
) -> Callable[[], Awaitable[None]]:
    """Tie the node's life to the loop that started it and return its stop function.

    A guard task owns the shutdown: `stop()` cancels it from any loop or thread, and so does
    the teardown of the home loop (asyncio.run and asyncio.Runner cancel leftover tasks), so
    a forgotten node does not outlive its loop.
    """
    guard = loop.create_task(_shut_down_when_cancelled(running.shutdown))

    async def cancel_guard() -> None:
        guard.cancel()
        await asyncio.wait([guard])
        error = None if guard.cancelled() else guard.exception()
        if error is not None:
            raise error

    async def stop() -> None:
        if asyncio.get_running_loop() is loop:
            await cancel_guard()
        elif loop.is_running():
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(cancel_guard(), loop))
        else:
            await asyncio.to_thread(running.kill)

    return stop


async def _start_pyevm(
    chain_id: int, native: dict[str, int], block_time: float | None, state_file: Path | None
) -> _Running:
    from crossdeck.sim.chains.jsonrpc_server import JsonRpcServer
    from crossdeck.sim.chains.pyevm_rpc import PyEvmRpc

    rpc = await asyncio.to_thread(
        PyEvmRpc, chain_id, native, auto_mine=block_time is None, state_file=state_file
    )
    server = JsonRpcServer(rpc.handle, name=f"py-evm-{chain_id}")
    url = await server.start()
    loop = asyncio.get_running_loop()
    tasks: list[asyncio.Task[None]] = []
    if block_time is not None:
        tasks.append(loop.create_task(_mine_every(server, rpc, block_time)))
    if state_file is not None:
        tasks.append(loop.create_task(_save_every(server, rpc, SAVE_INTERVAL_SECONDS)))

    async def shutdown() -> None:
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        if state_file is not None:
            await server.run_serialized(rpc.save_state)
        await server.stop()

    return _Running(url, shutdown, server.abandon, restored=rpc.restored)


async def _save_every(server: JsonRpcServer, rpc: PyEvmRpc, interval: float) -> None:
    # besides the save at shutdown: a world that is killed loses at most this much of it
    while True:
        await asyncio.sleep(interval)
        await server.run_serialized(rpc.save_state)


async def _mine_every(server: JsonRpcServer, rpc: PyEvmRpc, block_time: float) -> None:
    while True:
        await asyncio.sleep(block_time)
        await server.run_serialized(rpc.mine_block)


async def _start_anvil(
    chain_id: int, native: dict[str, int], block_time: float | None, state_file: Path | None
) -> _Running:
    from crossdeck.sim.chains.anvil import spawn_anvil

    restored = state_file is not None and await asyncio.to_thread(state_file.exists)
    process = await spawn_anvil(chain_id, block_time=block_time, state_file=state_file)
    try:
        if not restored:
            async with ChainRpcClient(process.rpc_url) as client:
                for address, wei in native.items():
                    await client.call("anvil_setBalance", address, hex(wei))
    except BaseException:
        await process.stop()
        raise
    return _Running(process.rpc_url, process.stop, process.kill, restored=restored)
