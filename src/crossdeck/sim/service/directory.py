"""What the service knows about its chains, and how it reads them.

The World builds a ``ChainDirectory`` from the chain nodes it started and hands it to the quote
engine and the app::

    directory = ChainDirectory(
        [EvmChain(8453, "base", "Base", rpc_url=node.rpc_url, usdc=node.usdc,
                  depository=node.depository, relayer_key=node.operator_key), ...],
        venue=VenueSide(solver_address=solver.address, depository=..., balance=...),
    )

Chain reads (allowance, balances, fee parameters, block number) and the permit deposit
transaction go through a ``ChainReader``. ``Web3ChainReader`` talks to each chain's JSON-RPC
with web3's ``AsyncWeb3`` (never blocking the event loop, which may also serve a py-evm node).
``StaticChainReader`` answers from fixed values for worlds and tests that run without nodes.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from eth_abi.abi import decode as abi_decode
from eth_abi.abi import encode as abi_encode
from eth_account import Account
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from crossdeck.sim.service.currencies import (
    NATIVE_ADDRESS,
    VENUE_CHAIN_ID,
    Currency,
    currency_key,
    evm_currencies,
    venue_currencies,
)
from crossdeck.sim.service.nonevm import NonEvmChain

DEFAULT_PRIORITY_FEE = 10**9  # 1 gwei


class ChainUnavailable(Exception):
    """A chain's RPC did not answer usefully (the quote answers RPC_HTTP_ERROR, 502)."""


@dataclass(frozen=True)
class EvmChain:
    chain_id: int
    name: str  # machine name, e.g. 'base'
    display_name: str  # e.g. 'Base'
    usdc: str
    depository: str
    rpc_url: str | None = None
    # the swap router of self-executed same-chain swaps (None: every swap goes to the solver)
    router: str | None = None
    # the older router that still answers while router 3.2's transition lasts (/chains names
    # it under contracts.v3; `router` is 3.2's, named at the top level and under "v3.2")
    previous_router: str | None = None
    native_symbol: str = "ETH"
    native_name: str = "Ether"
    explorer_url: str = ""
    multicall3: str | None = None  # Multicall3's address when the chain has it (/chains names it)
    # Key that pays for service-submitted transactions (permit deposits). Never printed.
    relayer_key: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "usdc", to_checksum_address(self.usdc))
        object.__setattr__(self, "depository", to_checksum_address(self.depository))
        if self.router is not None:
            object.__setattr__(self, "router", to_checksum_address(self.router))
        if not self.explorer_url:
            object.__setattr__(self, "explorer_url", f"https://explorer.demo.invalid/{self.name}")


VenueBalance = Callable[[str, str], int]
"""(user, currency address) -> balance in smallest units."""


@dataclass(frozen=True)
class VenueSide:
    """Chain 1337 as the service sees it."""

    solver_address: str  # who fills (orderData.solver, /chains solverAddresses)
    # the venue account withdrawals pay and venue fills come from (protocol.v2.depository of
    # 1337); an account of its own, apart from the solver, as on the public service
    depository: str
    balance: VenueBalance | None = None
    name: str = "venue"
    display_name: str = "Venue"
    # the venue has no block explorer: /chains gives none, as the README says
    explorer_url: str = ""


class ChainReader(Protocol):
    async def allowance(self, chain: EvmChain, token: str, owner: str, spender: str) -> int: ...

    async def balance(self, chain: EvmChain, currency: str, owner: str) -> int: ...

    async def fee_params(self, chain: EvmChain) -> tuple[int, int]:
        """(maxFeePerGas, maxPriorityFeePerGas) in wei."""
        ...

    async def block_number(self, chain: EvmChain) -> int: ...

    async def transact(
        self, chain: EvmChain, to: str, data: bytes, gas: int
    ) -> tuple[str, int, str]:
        """Sign with the chain's relayer key, send, wait for the receipt.

        Returns (tx hash, block number, sender address).

        Raises ``ChainUnavailable`` on RPC trouble and ``TransactionReverted`` on a revert.
        """
        ...


class TransactionReverted(Exception):
    def __init__(self, tx_hash: str) -> None:
        super().__init__(f"transaction {tx_hash} reverted")
        self.tx_hash = tx_hash


def selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


# `_rpc` calls, bound to this transaction now (not to whatever a loop variable holds later)
def _send_raw(raw: bytes) -> Callable[[Any], Any]:
    return lambda w3: w3.eth.send_raw_transaction(raw)


def _wait_for_receipt(tx_hash: str) -> Callable[[Any], Any]:
    return lambda w3: w3.eth.wait_for_transaction_receipt(tx_hash, timeout=60, poll_latency=0.05)


def encode_call(signature: str, arg_types: list[str], args: list[Any]) -> bytes:
    return selector(signature) + abi_encode(arg_types, args)


class Web3ChainReader:
    """Reads chains over JSON-RPC with ``AsyncWeb3`` (one provider per chain and event loop)."""

    def __init__(self, *, timeout: float = 10.0) -> None:
        self._timeout = timeout
        # Providers hold sessions bound to an event loop: keep them per loop, forget dead loops.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._send_locks: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[int, asyncio.Lock]
        ] = weakref.WeakKeyDictionary()

    def _w3(self, chain: EvmChain) -> Any:
        from web3 import AsyncHTTPProvider, AsyncWeb3

        if not chain.rpc_url:
            raise ChainUnavailable(f"chain {chain.chain_id} has no RPC URL")
        clients = self._clients.setdefault(asyncio.get_running_loop(), {})
        client = clients.get(chain.rpc_url)
        if client is None:
            provider = AsyncHTTPProvider(chain.rpc_url, request_kwargs={"timeout": self._timeout})
            client = clients[chain.rpc_url] = AsyncWeb3(provider)
        return client

    async def _rpc(self, chain: EvmChain, call: Callable[[Any], Any]) -> Any:
        try:
            return await call(self._w3(chain))
        except ChainUnavailable:
            raise
        except Exception as exc:  # any transport or node error is the chain being unavailable
            raise ChainUnavailable(f"chain {chain.chain_id}: {type(exc).__name__}: {exc}") from exc

    async def allowance(self, chain: EvmChain, token: str, owner: str, spender: str) -> int:
        data = encode_call("allowance(address,address)", ["address", "address"], [owner, spender])
        raw = await self._rpc(
            chain, lambda w3: w3.eth.call({"to": to_checksum_address(token), "data": data})
        )
        return int(abi_decode(["uint256"], bytes(raw))[0])

    async def balance(self, chain: EvmChain, currency: str, owner: str) -> int:
        owner = to_checksum_address(owner)
        if currency.lower() == NATIVE_ADDRESS:
            return int(await self._rpc(chain, lambda w3: w3.eth.get_balance(owner)))
        data = encode_call("balanceOf(address)", ["address"], [owner])
        raw = await self._rpc(
            chain, lambda w3: w3.eth.call({"to": to_checksum_address(currency), "data": data})
        )
        return int(abi_decode(["uint256"], bytes(raw))[0])

    async def fee_params(self, chain: EvmChain) -> tuple[int, int]:
        block = await self._rpc(chain, lambda w3: w3.eth.get_block("latest"))
        base_fee = int(block.get("baseFeePerGas", 0) or 0)
        return 2 * base_fee + DEFAULT_PRIORITY_FEE, DEFAULT_PRIORITY_FEE

    async def block_number(self, chain: EvmChain) -> int:
        return int(await self._rpc(chain, lambda w3: w3.eth.block_number))

    async def transact(
        self, chain: EvmChain, to: str, data: bytes, gas: int
    ) -> tuple[str, int, str]:
        if not chain.relayer_key:
            raise ChainUnavailable(f"chain {chain.chain_id} has no relayer key to submit with")
        account = Account.from_key(chain.relayer_key)
        locks = self._send_locks.setdefault(asyncio.get_running_loop(), {})
        lock = locks.setdefault(chain.chain_id, asyncio.Lock())
        async with lock:
            max_fee, priority = await self.fee_params(chain)
            last_error: Exception | None = None
            for _ in range(3):  # another sender may share the key: retry with a fresh nonce
                nonce = await self._rpc(
                    chain, lambda w3: w3.eth.get_transaction_count(account.address, "pending")
                )
                tx = {
                    "chainId": chain.chain_id,
                    "nonce": int(nonce),
                    "to": to_checksum_address(to),
                    "data": "0x" + data.hex(),
                    "value": 0,
                    "gas": gas,
                    "maxFeePerGas": max_fee,
                    "maxPriorityFeePerGas": priority,
                }
                raw = Account.sign_transaction(tx, chain.relayer_key).raw_transaction
                try:
                    sent = await self._rpc(chain, _send_raw(raw))
                except ChainUnavailable as exc:
                    last_error = exc
                    if "nonce" in str(exc).lower():
                        continue
                    raise
                tx_hash = "0x" + bytes(sent).hex()
                receipt = await self._rpc(chain, _wait_for_receipt(tx_hash))
                if int(receipt["status"]) != 1:
                    raise TransactionReverted(tx_hash)
                return tx_hash, int(receipt["blockNumber"]), account.address
        raise ChainUnavailable(f"chain {chain.chain_id}: could not send: {last_error}")

    async def close(self) -> None:
        """Disconnect the providers of the running loop."""
        clients = self._clients.pop(asyncio.get_running_loop(), {})
        for client in clients.values():
            disconnect = getattr(client.provider, "disconnect", None)
            if disconnect is not None:
                try:
                    await disconnect()
                except Exception:
                    continue


class StaticChainReader:
    """Fixed chain answers for a world without nodes: allowances and balances you set."""

    def __init__(self, *, base_fee: int = 10**9, block: int = 1) -> None:
        self.base_fee = base_fee
        self.block = block
        self.allowances: dict[tuple[int, str, str, str], int] = {}
        self.balances: dict[tuple[int, str, str], int] = {}

    def set_allowance(
        self, chain_id: int, token: str, owner: str, spender: str, value: int
    ) -> None:
        self.allowances[(chain_id, token.lower(), owner.lower(), spender.lower())] = value

    def set_balance(self, chain_id: int, currency: str, owner: str, value: int) -> None:
        self.balances[(chain_id, currency.lower(), owner.lower())] = value

    async def allowance(self, chain: EvmChain, token: str, owner: str, spender: str) -> int:
        key = (chain.chain_id, token.lower(), owner.lower(), spender.lower())
        return self.allowances.get(key, 0)

    async def balance(self, chain: EvmChain, currency: str, owner: str) -> int:
        return self.balances.get((chain.chain_id, currency.lower(), owner.lower()), 0)

    async def fee_params(self, chain: EvmChain) -> tuple[int, int]:
        return 2 * self.base_fee + DEFAULT_PRIORITY_FEE, DEFAULT_PRIORITY_FEE

    async def block_number(self, chain: EvmChain) -> int:
        return self.block

    async def transact(
        self, chain: EvmChain, to: str, data: bytes, gas: int
    ) -> tuple[str, int, str]:
        raise ChainUnavailable(f"chain {chain.chain_id}: no node to submit to")


class ChainDirectory:
    """Chains, currencies and chain access for the quote engine and the app."""

    def __init__(
        self,
        chains: list[EvmChain],
        *,
        venue: VenueSide,
        reader: ChainReader | None = None,
        others: list[NonEvmChain] | None = None,
    ) -> None:
        self.evm: dict[int, EvmChain] = {c.chain_id: c for c in chains}
        self.others: dict[int, NonEvmChain] = {c.chain_id: c for c in others or []}
        self.venue = venue
        self.reader: ChainReader = reader if reader is not None else Web3ChainReader()
        self._currencies: dict[int, dict[str, Currency]] = {}
        for chain in chains:
            currencies = evm_currencies(
                chain.chain_id, chain.usdc, chain.native_symbol, chain.native_name
            )
            self._currencies[chain.chain_id] = {c.key: c for c in currencies}
        self._currencies[VENUE_CHAIN_ID] = {c.key: c for c in venue_currencies()}
        for other in self.others.values():
            self._currencies[other.chain_id] = {c.key: c for c in other.currencies}

    def chain_ids(self) -> list[int]:
        return [*self.evm, VENUE_CHAIN_ID, *self.others]

    def supports(self, chain_id: int) -> bool:
        return chain_id in self._currencies

    def chain(self, chain_id: int) -> EvmChain:
        return self.evm[chain_id]

    def currencies(self, chain_id: int) -> list[Currency]:
        return list(self._currencies.get(chain_id, {}).values())

    def currency(self, chain_id: int, address: str) -> Currency | None:
        return self._currencies.get(chain_id, {}).get(currency_key(address))

    def native(self, chain_id: int) -> Currency | None:
        if chain_id in self.others:
            return self.others[chain_id].native
        if chain_id not in self.evm:
            return None
        return self.currency(chain_id, NATIVE_ADDRESS)

    def usdc(self, chain_id: int) -> Currency:
        if chain_id == VENUE_CHAIN_ID:
            return next(c for c in self.currencies(chain_id) if c.venue_dex == "")
        if chain_id in self.others:
            return next(c for c in self.others[chain_id].currencies if c.asset == "USDC")
        return self._currencies[chain_id][self.evm[chain_id].usdc.lower()]

    async def user_balance(self, chain_id: int, currency: Currency, owner: str) -> int | None:
        """The user's balance of ``currency``, or None when it cannot be read."""
        try:
            if chain_id == VENUE_CHAIN_ID:
                if self.venue.balance is None:
                    return None
                return int(self.venue.balance(owner, currency.key))
            return await self.reader.balance(self.evm[chain_id], currency.address, owner)
        except Exception:  # a balance is informative only; never fail a quote on it
            return None
