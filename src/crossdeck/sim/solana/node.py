"""Start one of the world's SVM chains: LiteSVM provisioned (USDC, wallets, the depository's
vault, a lookup table) behind a Solana JSON-RPC on a loopback port.

    node = await start_solana(state_file=None)                 # Solana (792703809)
    eclipse = await start_solana(setup=ECLIPSE)                # a second SVM chain (9286185)
    ...  # any Solana JSON-RPC client on node.rpc_url
    await node.stop()

Each chain is its own LiteSVM (its own blockhashes: a transaction built on one never lands on
the other), with its own USDC mint and its own depository program id, named in /chains.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from solders.address_lookup_table_account import derive_lookup_table_address
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from crossdeck.sim.chains.jsonrpc_server import JsonRpcServer
from crossdeck.sim.solana import depository
from crossdeck.sim.solana.chain import SLOT_SECONDS, DepositSeen, SolanaChain
from crossdeck.sim.solana.pubsub import PubSub
from crossdeck.sim.solana.rpc import SolanaRpc
from crossdeck.sim.solana.spl import (
    ASSOCIATED_TOKEN_PROGRAM,
    SYSTEM_PROGRAM,
    TOKEN_PROGRAM,
    ata,
)

T = TypeVar("T")

SOLANA_CHAIN_ID = 792703809
ECLIPSE_CHAIN_ID = 9286185  # the service's id for Eclipse, an SVM chain (public: relay-kit)
# The public USDC mint's address: LiteSVM lets the world create its own mint there, so quotes
# and balances name the same mint as the public service (its authority is the world's solver).
USDC_MINT = Pubkey.from_string("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
USDC_DECIMALS = 6
SOL_DECIMALS = 9
LAMPORTS_PER_SOL = 10**9
SAVE_INTERVAL_SECONDS = 2.0


def _demo_keypair(name: str) -> Keypair:
    # Derived from a public phrase: as publicly known as the EVM demo keys. Demo funds only.
    return Keypair.from_seed(hashlib.sha256(f"crossdeck demo world: {name}".encode()).digest())


DEMO_KEYPAIR = _demo_keypair("solana wallet")
SOLVER_KEYPAIR = _demo_keypair("solana solver")
LOOKUP_TABLE, _ = derive_lookup_table_address(SOLVER_KEYPAIR.pubkey(), 1)


@dataclass(frozen=True)
class SvmSetup:
    """What makes one SVM chain of the world itself: its id, its USDC mint, the depository's
    program id there (/chains' `protocol.v2.depository`) and its native currency's names."""

    chain_id: int
    name: str
    display_name: str
    usdc_mint: Pubkey
    program: depository.Program
    native_symbol: str
    native_name: str

    def lookup_addresses(self) -> list[Pubkey]:
        """What the service's deposits name, loaded from the chain's lookup table."""
        vault = self.program.vault
        return [SYSTEM_PROGRAM, TOKEN_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, self.program.config,
                vault, self.usdc_mint, ata(vault, self.usdc_mint)]  # fmt: skip


SOLANA = SvmSetup(
    SOLANA_CHAIN_ID, "solana", "Solana", USDC_MINT, depository.SOLANA, "SOL", "Solana"
)
# The public sources name no depository id or USDC mint for Eclipse: the world's Eclipse has
# its own (derived from public phrases), which also keeps a client that confused the two chains
# from passing. Its native currency is ether with 9 decimals, as Eclipse's is.
ECLIPSE = SvmSetup(
    ECLIPSE_CHAIN_ID,
    "eclipse",
    "Eclipse",
    _demo_keypair("eclipse usdc mint").pubkey(),
    depository.Program.at(_demo_keypair("eclipse depository").pubkey()),
    "ETH",
    "Ether",
)
LOOKUP_TABLE_ADDRESSES = SOLANA.lookup_addresses()
WALLET_LAMPORTS = 100 * LAMPORTS_PER_SOL
WALLET_USDC_UNITS = 100_000 * 10**USDC_DECIMALS
SOLVER_LAMPORTS = 1_000_000 * LAMPORTS_PER_SOL
SOLVER_USDC_UNITS = 100_000_000 * 10**USDC_DECIMALS


def provision(
    chain: SolanaChain, funded: dict[Pubkey, tuple[int, int]], setup: SvmSetup = SOLANA
) -> None:
    """A fresh chain: the USDC mint, `funded` (key -> (lamports, USDC units)), the solver,
    the depository's vault (rent-exempt, with its USDC account) and the lookup table."""
    solver = SOLVER_KEYPAIR.pubkey()
    mint, vault = setup.usdc_mint, setup.program.vault
    chain.create_mint(mint, solver, USDC_DECIMALS)
    for key, (lamports, usdc) in {**funded, solver: (SOLVER_LAMPORTS, SOLVER_USDC_UNITS)}.items():
        chain.airdrop(key, lamports)
        if usdc:
            chain.credit_token(key, mint, usdc)
    chain.airdrop(vault, chain.rent_exempt(0))
    chain.credit_token(vault, mint, 0)
    chain.create_lookup_table(LOOKUP_TABLE, solver, setup.lookup_addresses())


@dataclass
class SolanaNode:
    """The running chain: its JSON-RPC URL, and serialized access for the world's own parts."""

    rpc_url: str
    chain: SolanaChain = field(repr=False)
    _server: JsonRpcServer = field(repr=False)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list, repr=False)
    _stopped: bool = field(default=False, repr=False)
    setup: SvmSetup = SOLANA

    @property
    def chain_id(self) -> int:
        return self.setup.chain_id

    @property
    def ws_url(self) -> str:
        """The PubSub websocket (`sim.solana.pubsub`), at the JSON-RPC's own address."""
        return "ws" + self.rpc_url.removeprefix("http")

    async def run(self, fn: Callable[[SolanaChain], T]) -> T:
        """`fn(chain)` on the RPC's worker thread, in turn with every request."""
        result: T = await self._server.run_serialized(fn, self.chain)
        return result

    async def deposits_since(self, index: int) -> list[DepositSeen]:
        return await self.run(lambda chain: list(chain.deposits[index:]))

    async def deposit_of(self, signature: str) -> list[DepositSeen]:
        return await self.run(
            lambda chain: [seen for seen in chain.deposits if seen.signature == signature]
        )

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks)
        with contextlib.suppress(Exception):
            await self._server.run_serialized(self.chain.save_state)
        await self._server.stop()


async def start_solana(
    *,
    funded: dict[Pubkey, tuple[int, int]] | None = None,
    state_file: Path | None = None,
    slot_seconds: float = SLOT_SECONDS,
    setup: SvmSetup = SOLANA,
) -> SolanaNode:
    """Start the chain `setup` describes on 127.0.0.1 (port chosen by the OS). `funded` is
    applied to a fresh chain only; `state_file` keeps it across restarts (see
    `SolanaChain.save_state`)."""

    def build() -> SolanaChain:
        chain = SolanaChain(state_file=state_file, slot_seconds=slot_seconds, program=setup.program)
        if not chain.restored:
            provision(
                chain,
                funded or {DEMO_KEYPAIR.pubkey(): (WALLET_LAMPORTS, WALLET_USDC_UNITS)},
                setup,
            )
            chain.save_state()
        return chain

    chain = await asyncio.to_thread(build)
    rpc = SolanaRpc(chain)

    async def call(method: str, params: Any) -> Any:
        return await server.run_serialized(rpc.handle, method, params)

    server = JsonRpcServer(rpc.handle, name=setup.name, websocket=PubSub(call).handle)
    url = await server.start()
    node = SolanaNode(url, chain, server, setup=setup)
    if state_file is not None:
        node._tasks.append(asyncio.get_running_loop().create_task(_save_every(server, chain)))
    return node


async def _save_every(server: JsonRpcServer, chain: SolanaChain) -> None:
    while True:
        await asyncio.sleep(SAVE_INTERVAL_SECONDS)
        await server.run_serialized(chain.save_state)


def keypair_base58(keypair: Keypair) -> str:
    """The 64-byte secret+public form wallets import (`solana-keygen`'s base58 string)."""
    return str(keypair)


__all__: list[Any] = ["DEMO_KEYPAIR", "SolanaNode", "start_solana"]
