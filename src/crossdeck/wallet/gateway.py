"""One EVM chain over JSON-RPC (plain HTTP POSTs through httpx): chain check, nonce, fees,
send, receipts, balances.

Every node failure becomes a `crossdeck.wallet.errors` class. The chain id is verified once,
before the first call that depends on it, so a misconfigured RPC URL never gets a transaction.
The few calls the executor makes need no more than a JSON-RPC envelope: web3 (and with it
aiohttp, ~0.8 s of imports) stays out of the client's processes.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from crossdeck.base.concurrently import answer
from crossdeck.base.errors import InputError
from crossdeck.base.keccak import keccak256
from crossdeck.models.addresses import to_checksum_address
from crossdeck.models.units import tx_int
from crossdeck.wallet.errors import (
    ChainMismatchError,
    ReceiptTimeoutError,
    RpcError,
    RpcUnreachableError,
    SimulationUnsupportedError,
    TransactionRevertedError,
    WouldRevertError,
)
from crossdeck.wallet.node_http import NodeHttp
from crossdeck.wallet.rpc_post import error_message, post_rpc, read_reply

T = TypeVar("T")

_BALANCE_OF = "70a08231"  # balanceOf(address)
_ALLOWANCE = "dd62ed3e"  # allowance(address,address)
_INT_FIELDS = ("value", "gas", "nonce", "chainId", "maxFeePerGas", "maxPriorityFeePerGas")
# fields of a transaction object that are JSON-RPC quantities (hex) or addresses, read as such
_TX_QUANTITIES = (
    "blockNumber", "chainId", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas",
    "nonce", "transactionIndex", "type", "value", "v", "yParity",
)  # fmt: skip
_TX_ADDRESSES = ("from", "to")
_REVERTED = 3


@dataclass(frozen=True)
class Receipt:
    """What the executor needs from a mined transaction."""

    tx_hash: str
    status: int  # 1 success, 0 reverted
    block_number: int
    gas_used: int
    effective_gas_price: int
    contract_address: str | None = None
    # the ERC-20 Transfer events it emitted: (token, from, to, amount), addresses checksummed
    transfers: tuple[tuple[str, str, str, int], ...] = ()

    @property
    def succeeded(self) -> bool:
        return self.status == 1


# keccak256("Transfer(address,address,uint256)"): the ERC-20 transfer event
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def _transfers(logs: Any) -> tuple[tuple[str, str, str, int], ...]:
    """The ERC-20 Transfer events of a receipt's logs; a log of any other shape is skipped."""
    found = []
    for log in logs if isinstance(logs, list) else []:
        topics = log.get("topics") if isinstance(log, Mapping) else None
        if not isinstance(topics, list) or len(topics) != 3:
            continue
        if str(topics[0]).lower() != TRANSFER_TOPIC:
            continue
        try:
            token = to_checksum_address(log["address"])
            sender = to_checksum_address("0x" + str(topics[1])[-40:])
            receiver = to_checksum_address("0x" + str(topics[2])[-40:])
            amount = int(str(log.get("data") or "0x0"), 16)
        except (KeyError, TypeError, ValueError):
            continue
        found.append((token, sender, receiver, amount))
    return tuple(found)


def _hex(value: bytes | str) -> str:
    if isinstance(value, str):
        return value if value.startswith("0x") else "0x" + value
    return "0x" + bytes(value).hex()


def _quantity(value: Any) -> int:
    """A JSON-RPC quantity ('0x1a'); ValueError/TypeError when it is not one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value[:2].lower() == "0x":
        return int(value, 16)
    raise ValueError(f"not a hex quantity: {value!r}")


def _plain_tx(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A transaction object with its quantities as ints and its addresses checksummed."""
    plain = dict(raw)
    for key in _TX_QUANTITIES:
        if plain.get(key) is not None:
            plain[key] = _quantity(plain[key])
    for key in _TX_ADDRESSES:
        if plain.get(key):
            plain[key] = to_checksum_address(plain[key])
    return plain


def _address(name: str, value: Any) -> str:
    try:
        return to_checksum_address(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a 20-byte 0x address, got {value!r}") from None


def _tx_hash(value: Any) -> str:
    if isinstance(value, str) and re.fullmatch(r"0x[0-9a-fA-F]{64}", value):
        return value.lower()
    raise InputError(f"a transaction hash is 0x + 64 hex characters, got {value!r}")


class EvmGateway(NodeHttp):
    """JSON-RPC access to one chain whose id must be `expected_chain_id`."""

    def __init__(
        self,
        rpc_url: str,
        expected_chain_id: int,
        *,
        timeout: float = 20,
        retries: int = 2,
        reuse_reads_for: float = 0.0,
    ) -> None:
        """`reuse_reads_for`: seconds within which a balance or gas estimate this gateway read
        is given once more, to the next ask of the very same, instead of asking the node again
        (0, the default: never). A run's checks before its first signature and that
        signature's own checks ask the same two things a few milliseconds apart, nothing sent
        between; one node read serves both. Sending a transaction, or reading a receipt (a
        wallet that sends its own), forgets every reading kept."""
        super().__init__(rpc_url, timeout=timeout, retries=retries)
        self.rpc_url = rpc_url
        self.expected_chain_id = expected_chain_id
        self._ids = itertools.count(1)
        self._chain_verified = False
        self._reuse_for = reuse_reads_for
        self._kept: dict[tuple[str, str], tuple[float, int]] = {}

    def __repr__(self) -> str:
        return f"EvmGateway({self._where}, chain {self.expected_chain_id})"

    async def __aenter__(self) -> EvmGateway:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def _unreachable(self, why: str) -> RpcUnreachableError:
        return RpcUnreachableError(
            f"the RPC at {self._where} for chain {self.expected_chain_id} {why}",
            hint=f"check rpc.{self.expected_chain_id} in the config or the node",
        )

    async def _post(self, method: str, body: dict[str, Any]) -> httpx.Response:
        """POST `body`: a read is tried again after what the transport lost, a raw transaction
        only when it never reached the node (a send that timed out may have landed)."""
        return await post_rpc(
            self._http,
            self.rpc_url,
            body,
            sends=method == "eth_sendRawTransaction",
            retries=self._retries,
            unreachable=self._unreachable,
        )

    async def _rpc(self, method: str, *params: Any) -> Any:
        """The `result` of one JSON-RPC call, each failure as a wallet error."""
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        response = await self._post(method, body)
        result, error = read_reply(
            response,
            method,
            unreachable=self._unreachable,
            malformed=lambda: RpcError(
                f"malformed answer from the node at {self._where} to {method}",
                hint=f"is rpc.{self.expected_chain_id} a JSON-RPC endpoint?",
            ),
        )
        if error is None:
            return result
        message = error_message(error)
        code = error.get("code") if isinstance(error, dict) else None
        if code == _REVERTED or "revert" in message.lower():
            raise WouldRevertError(
                f"{method} on chain {self.expected_chain_id} would revert: {message}",
                hint="nothing was sent",
            )
        raise RpcError(
            f"the node at {self._where} (chain {self.expected_chain_id}) refused {method}: "
            f"{message}"
        )

    async def _read(self, method: str, read: Callable[[Any], T], *params: Any) -> T:
        """`_rpc` with its result passed through `read`."""
        return self._parse(method, read, await self._rpc(method, *params))

    def _parse(self, method: str, read: Callable[[Any], T], result: Any) -> T:
        """`read(result)`; an answer it cannot read is an `RpcError` naming the call."""
        try:
            return read(result)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise RpcError(
                f"malformed answer from the node at {self._where} to {method} "
                f"({type(exc).__name__})",
                hint=f"is rpc.{self.expected_chain_id} a JSON-RPC endpoint?",
            ) from None

    def _recall(self, key: tuple[str, str]) -> int | None:
        """A reading kept by `_keep` (once: it is forgotten as it is given), while fresh."""
        kept = self._kept.pop(key, None)
        if kept is None or time.monotonic() - kept[0] > self._reuse_for:
            return None
        return kept[1]

    def _keep(self, key: tuple[str, str], value: int) -> int:
        if self._reuse_for > 0:
            self._kept[key] = (time.monotonic(), value)
        return value

    async def _ensure_chain(self) -> None:
        if not self._chain_verified:
            await self.chain_id()

    async def chain_id(self) -> int:
        """The node's chain id; `ChainMismatchError` when it is not the expected one."""
        return self.confirm_chain(await self._read("eth_chainId", _quantity))

    def confirm_chain(self, actual: int) -> int:
        """Take `actual` as the node's chain id, read some other way (a batched read asks for
        it in the same call: Multicall3's getChainId); `ChainMismatchError` when it is not the
        expected one."""
        if actual != self.expected_chain_id:
            raise ChainMismatchError(
                f"the RPC at {self._where} serves chain {actual}, "
                f"but it is configured for chain {self.expected_chain_id}",
                hint=f"fix rpc.{self.expected_chain_id} (env CROSSDECK_RPC__"
                f"{self.expected_chain_id})",
            )
        self._chain_verified = True
        return actual

    async def block_number(self) -> int:
        await self._ensure_chain()
        return await self._read("eth_blockNumber", _quantity)

    async def nonce(self, address: str, block: str = "pending") -> int:
        """The next nonce of `address` (counting pending transactions by default)."""
        await self._ensure_chain()
        who = _address("address", address)
        return await self._read("eth_getTransactionCount", _quantity, who, block)

    def _call_params(self, tx: Mapping[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for key, value in tx.items():
            if value is None:
                continue
            if key in ("from", "to"):
                params[key] = _address(f"transaction field {key}", value)
            elif key in _INT_FIELDS:
                params[key] = hex(tx_int(key, value))
            elif key in ("data", "input"):
                params["data"] = _hex(value)
            else:
                params[key] = value
        return params

    async def estimate_gas(self, tx: Mapping[str, Any]) -> int:
        """Gas the node expects `tx` to use; `WouldRevertError` when it would revert."""
        params = self._call_params(tx)
        key = ("eth_estimateGas", repr(sorted(params.items())))
        recalled = self._recall(key)
        if recalled is not None:
            return recalled
        await self._ensure_chain()
        return self._keep(key, await self._read("eth_estimateGas", _quantity, params))

    async def call(
        self, tx: Mapping[str, Any], block: str = "latest", *, chain_checked: bool = False
    ) -> bytes:
        """`eth_call`: the return data of `tx` without sending it. `chain_checked`: the caller
        reads the chain id within this very call and hands it to `confirm_chain` itself."""
        if not chain_checked:
            await self._ensure_chain()
        return await self._read(
            "eth_call", lambda r: bytes.fromhex(r.removeprefix("0x")), self._call_params(tx), block
        )

    async def fee_params(self) -> tuple[int, int]:
        """EIP-1559 `(max_fee_per_gas, max_priority_fee_per_gas)`: twice the latest base fee
        plus the node's suggested tip, so the fee survives several full blocks."""
        await self._ensure_chain()
        block_read, priority_read = await asyncio.gather(  # one round trip, not two
            self._read("eth_getBlockByNumber", dict, "latest", False),
            self._read("eth_maxPriorityFeePerGas", _quantity),
            return_exceptions=True,
        )
        block = answer(block_read)
        if block.get("baseFeePerGas") is None:
            raise RpcError(f"chain {self.expected_chain_id} has no EIP-1559 base fee")
        base_fee = self._parse("eth_getBlockByNumber", _quantity, block["baseFeePerGas"])
        priority = answer(priority_read)
        return base_fee * 2 + priority, priority

    async def send_raw(self, raw: bytes) -> str:
        """Broadcast a signed transaction; returns its hash.

        A node that already has it (a retried send) is not an error: the hash is the same.
        """
        await self._ensure_chain()
        self._kept.clear()  # what it spends and the state it leaves are the chain's news
        own_hash = _hex(keccak256(raw))
        try:
            sent = await self._read("eth_sendRawTransaction", _tx_hash, _hex(raw))
        except RpcError as exc:
            if "already known" in str(exc).lower():
                return own_hash
            raise
        return sent

    def _receipt(self, raw: Mapping[str, Any]) -> Receipt:
        try:
            contract = raw.get("contractAddress")
            return Receipt(
                tx_hash=_tx_hash(raw["transactionHash"]),
                status=_quantity(raw["status"]),
                block_number=_quantity(raw["blockNumber"]),
                gas_used=_quantity(raw["gasUsed"]),
                effective_gas_price=_quantity(raw.get("effectiveGasPrice") or 0),
                contract_address=to_checksum_address(contract) if contract else None,
                transfers=_transfers(raw.get("logs")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RpcError(
                f"malformed receipt from the node at {self._where}: {type(exc).__name__} {exc}"
            ) from None

    async def get_receipt(self, tx_hash: str) -> Receipt | None:
        """The receipt, or None while the transaction is not mined."""
        tx_hash = _tx_hash(tx_hash)
        await self._ensure_chain()
        self._kept.clear()  # a transaction was sent, perhaps by a wallet that sends its own
        raw = await self._rpc("eth_getTransactionReceipt", tx_hash)
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            raise RpcError(f"malformed receipt from the node at {self._where}: {raw!r:.80}")
        return self._receipt(raw)

    async def wait_receipt(
        self,
        tx_hash: str,
        timeout: float = 120.0,  # noqa: ASYNC109 - the error must name the hash and the wait
        poll: float = 1.0,
    ) -> Receipt:
        """Poll until mined. Reverted -> `TransactionRevertedError`; too slow ->
        `ReceiptTimeoutError` (the transaction may still land)."""
        tx_hash = _tx_hash(tx_hash)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            receipt = await self.get_receipt(tx_hash)
            if receipt is not None:
                if not receipt.succeeded:
                    raise TransactionRevertedError(tx_hash, chain_id=self.expected_chain_id)
                return receipt
            if loop.time() >= deadline:
                raise ReceiptTimeoutError(tx_hash, timeout)
            await asyncio.sleep(min(poll, max(0.0, deadline - loop.time())))

    async def get_transaction(self, tx_hash: str) -> dict[str, Any] | None:
        """The transaction as plain data (ints for quantities, checksummed addresses, hex
        strings for bytes), or None when unknown."""
        tx_hash = _tx_hash(tx_hash)
        await self._ensure_chain()
        raw = await self._rpc("eth_getTransactionByHash", tx_hash)
        if raw is None:
            return None
        return self._parse("eth_getTransactionByHash", _plain_tx, raw)

    async def balance(self, address: str) -> int:
        """Native balance in wei."""
        who = _address("address", address)
        recalled = self._recall(("eth_getBalance", who.lower()))
        if recalled is not None:
            return recalled
        await self._ensure_chain()
        read = await self._read("eth_getBalance", _quantity, who, "latest")
        return self._keep(("eth_getBalance", who.lower()), read)

    async def _erc20_uint(self, token: str, selector: str, *addresses: str) -> int:
        args = "".join(_address("address", a)[2:].lower().rjust(64, "0") for a in addresses)
        result = await self.call({"to": token, "data": "0x" + selector + args})
        if len(result) < 32:
            raise RpcError(
                f"token {token} on chain {self.expected_chain_id} returned no amount",
                hint="is it an ERC-20 contract on this chain?",
            )
        return int.from_bytes(result[:32], "big")

    async def erc20_balance(self, token: str, owner: str) -> int:
        """`balanceOf(owner)` in the token's smallest unit."""
        return await self._erc20_uint(token, _BALANCE_OF, owner)

    async def erc20_allowance(self, token: str, owner: str, spender: str) -> int:
        """`allowance(owner, spender)` in the token's smallest unit."""
        return await self._erc20_uint(token, _ALLOWANCE, owner, spender)

    async def simulate(self, calls: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """`eth_simulateV1` of `calls` in order on the latest state, with `traceTransfers`
        (native value moved shows as Transfer logs of 0xEeee...eEEeE): each call's result
        (`status`, `returnData`, `logs`, `error`). `SimulationUnsupportedError` when the node
        does not have the method."""
        await self._ensure_chain()
        options = {
            "blockStateCalls": [{"calls": [self._call_params(c) for c in calls]}],
            "traceTransfers": True,
            "validation": False,
        }
        try:
            blocks = await self._rpc("eth_simulateV1", options, "latest")
        except RpcUnreachableError:
            raise
        except RpcError as exc:
            if _UNSUPPORTED.search(str(exc)):
                raise SimulationUnsupportedError(
                    f"the node at {self._where} (chain {self.expected_chain_id}) does not "
                    "answer eth_simulateV1",
                    hint="use an RPC that has eth_simulateV1 (geth, reth, anvil, ...)",
                ) from None
            raise
        return self._parse("eth_simulateV1", _simulated_calls, blocks)


def _simulated_calls(blocks: Any) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for block in blocks:
        for call in block["calls"]:
            if not isinstance(call, dict) or not isinstance(call.get("logs", []), list):
                raise ValueError("a simulated call is not an object with logs")
            calls.append(call)
    return calls


# how nodes say they do not have a method (geth, anvil, reth, providers' gateways)
_UNSUPPORTED = re.compile(
    r"does not exist|not found|not supported|unsupported|not available|unknown method|"
    r"method not|not implemented",
    re.IGNORECASE,
)
