"""One EVM chain over JSON-RPC (web3's `AsyncWeb3`): chain check, nonce, fees, send, receipts,
balances.

Every node failure becomes a `crossdeck.wallet.errors` class. The chain id is verified once,
before the first call that depends on it, so a misconfigured RPC URL never gets a transaction.
This module imports web3; import it inside command bodies, not at CLI start-up.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import aiohttp
from eth_utils import keccak, to_checksum_address
from hexbytes import HexBytes
from web3 import AsyncHTTPProvider, AsyncWeb3
from web3.exceptions import (
    ContractLogicError,
    ProviderConnectionError,
    TransactionNotFound,
    Web3Exception,
    Web3RPCError,
)
from web3.providers.rpc.utils import ExceptionRetryConfiguration

from crossdeck.errors import InputError
from crossdeck.wallet.errors import (
    ChainMismatchError,
    ReceiptTimeoutError,
    RpcError,
    RpcUnreachableError,
    TransactionRevertedError,
    WouldRevertError,
)

T = TypeVar("T")

_BALANCE_OF = "70a08231"  # balanceOf(address)
_ALLOWANCE = "dd62ed3e"  # allowance(address,address)
_INT_FIELDS = ("value", "gas", "nonce", "chainId", "maxFeePerGas", "maxPriorityFeePerGas")


@dataclass(frozen=True)
class Receipt:
    """What the executor needs from a mined transaction."""

    tx_hash: str
    status: int  # 1 success, 0 reverted
    block_number: int
    gas_used: int
    effective_gas_price: int
    contract_address: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status == 1


def _hex(value: bytes | str) -> str:
    if isinstance(value, str):
        return value if value.startswith("0x") else "0x" + value
    return "0x" + bytes(value).hex()


def _plain(value: Any) -> Any:
    """web3's AttributeDict/HexBytes as plain JSON-friendly data."""
    if isinstance(value, bytes | bytearray | HexBytes):
        return _hex(bytes(value))
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _to_int(name: str, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value, 16) if value[:2].lower() == "0x" else int(value)
        except ValueError:
            pass
    raise InputError(f"transaction field {name} must be an integer, got {value!r}")


def _address(name: str, value: Any) -> str:
    try:
        return to_checksum_address(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a 20-byte 0x address, got {value!r}") from None


def _tx_hash(value: Any) -> str:
    if isinstance(value, str) and re.fullmatch(r"0x[0-9a-fA-F]{64}", value):
        return value.lower()
    raise InputError(f"a transaction hash is 0x + 64 hex characters, got {value!r}")


def _rpc_message(exc: Web3RPCError) -> str:
    response = getattr(exc, "rpc_response", None) or {}
    error = response.get("error") if isinstance(response, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return str(exc)


class EvmGateway:
    """JSON-RPC access to one chain whose id must be `expected_chain_id`."""

    def __init__(
        self, rpc_url: str, expected_chain_id: int, *, timeout: float = 20, retries: int = 2
    ) -> None:
        self.rpc_url = rpc_url
        self.expected_chain_id = expected_chain_id
        parts = urlsplit(rpc_url)
        # Only scheme and host in messages: RPC URLs often carry an API key in the path.
        self._where = f"{parts.scheme}://{parts.netloc}"
        provider = AsyncHTTPProvider(
            rpc_url,
            request_kwargs={"timeout": aiohttp.ClientTimeout(total=timeout)},
            exception_retry_configuration=ExceptionRetryConfiguration(
                errors=(aiohttp.ClientError, TimeoutError),
                retries=max(1, retries + 1),
                backoff_factor=0.2,
            ),
        )
        self._w3 = AsyncWeb3(provider)
        self._chain_verified = False

    def __repr__(self) -> str:
        return f"EvmGateway({self._where}, chain {self.expected_chain_id})"

    async def __aenter__(self) -> EvmGateway:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP session."""
        await self._w3.provider.disconnect()

    async def _rpc(self, what: str, call: Awaitable[T]) -> T:
        try:
            return await call
        except TransactionNotFound:
            raise  # "not mined yet" is an answer, the callers turn it into None
        except ContractLogicError as exc:
            raise WouldRevertError(
                f"{what} on chain {self.expected_chain_id} would revert: {exc.message or exc}",
                hint="nothing was sent",
            ) from None
        except Web3RPCError as exc:
            message = _rpc_message(exc)
            if "revert" in message.lower():
                raise WouldRevertError(
                    f"{what} on chain {self.expected_chain_id} would revert: {message}",
                    hint="nothing was sent",
                ) from None
            raise RpcError(
                f"the node at {self._where} (chain {self.expected_chain_id}) refused {what}: "
                f"{message}"
            ) from None
        except aiohttp.ClientResponseError as exc:
            raise RpcUnreachableError(
                f"the RPC at {self._where} for chain {self.expected_chain_id} answered "
                f"HTTP {exc.status} to {what}",
                hint=f"check rpc.{self.expected_chain_id} in the config or the node",
            ) from None
        except (aiohttp.ClientError, TimeoutError, ProviderConnectionError, OSError) as exc:
            raise RpcUnreachableError(
                f"the RPC at {self._where} for chain {self.expected_chain_id} is unreachable "
                f"({type(exc).__name__})",
                hint=f"check rpc.{self.expected_chain_id} in the config or the node",
            ) from None
        except (Web3Exception, ValueError) as exc:
            # Not JSON, not JSON-RPC, or a field web3 cannot decode.
            raise RpcError(
                f"malformed answer from the node at {self._where} to {what} ({type(exc).__name__})",
                hint=f"is rpc.{self.expected_chain_id} a JSON-RPC endpoint?",
            ) from None

    async def _ensure_chain(self) -> None:
        if not self._chain_verified:
            await self.chain_id()

    async def chain_id(self) -> int:
        """The node's chain id; `ChainMismatchError` when it is not the expected one."""
        actual = await self._rpc("eth_chainId", self._w3.eth.chain_id)
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
        return await self._rpc("eth_blockNumber", self._w3.eth.block_number)

    async def nonce(self, address: str, block: str = "pending") -> int:
        """The next nonce of `address` (counting pending transactions by default)."""
        await self._ensure_chain()
        return await self._rpc(
            "eth_getTransactionCount",
            self._w3.eth.get_transaction_count(_address("address", address), block),
        )

    def _call_params(self, tx: Mapping[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for key, value in tx.items():
            if value is None:
                continue
            if key in ("from", "to"):
                params[key] = _address(f"transaction field {key}", value)
            elif key in _INT_FIELDS:
                params[key] = _to_int(key, value)
            elif key in ("data", "input"):
                params["data"] = _hex(value)
            else:
                params[key] = value
        return params

    async def estimate_gas(self, tx: Mapping[str, Any]) -> int:
        """Gas the node expects `tx` to use; `WouldRevertError` when it would revert."""
        await self._ensure_chain()
        return await self._rpc("eth_estimateGas", self._w3.eth.estimate_gas(self._call_params(tx)))

    async def call(self, tx: Mapping[str, Any], block: str = "latest") -> bytes:
        """`eth_call`: the return data of `tx` without sending it."""
        await self._ensure_chain()
        result = await self._rpc("eth_call", self._w3.eth.call(self._call_params(tx), block))
        return bytes(result)

    async def fee_params(self) -> tuple[int, int]:
        """EIP-1559 `(max_fee_per_gas, max_priority_fee_per_gas)`: twice the latest base fee
        plus the node's suggested tip, so the fee survives several full blocks."""
        await self._ensure_chain()
        block = await self._rpc("eth_getBlockByNumber", self._w3.eth.get_block("latest"))
        base_fee = block.get("baseFeePerGas")
        if base_fee is None:
            raise RpcError(f"chain {self.expected_chain_id} has no EIP-1559 base fee")
        priority = await self._rpc("eth_maxPriorityFeePerGas", self._w3.eth.max_priority_fee)
        return int(base_fee) * 2 + int(priority), int(priority)

    async def send_raw(self, raw: bytes) -> str:
        """Broadcast a signed transaction; returns its hash.

        A node that already has it (a retried send) is not an error: the hash is the same.
        """
        await self._ensure_chain()
        own_hash = _hex(keccak(raw))
        try:
            sent = await self._rpc("eth_sendRawTransaction", self._w3.eth.send_raw_transaction(raw))
        except RpcError as exc:
            if "already known" in str(exc).lower():
                return own_hash
            raise
        return _hex(bytes(sent))

    def _receipt(self, raw: Mapping[str, Any]) -> Receipt:
        try:
            contract = raw.get("contractAddress")
            return Receipt(
                tx_hash=_hex(bytes(raw["transactionHash"])),
                status=int(raw["status"]),
                block_number=int(raw["blockNumber"]),
                gas_used=int(raw["gasUsed"]),
                effective_gas_price=int(raw.get("effectiveGasPrice") or 0),
                contract_address=to_checksum_address(contract) if contract else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RpcError(
                f"malformed receipt from the node at {self._where}: {type(exc).__name__} {exc}"
            ) from None

    async def get_receipt(self, tx_hash: str) -> Receipt | None:
        """The receipt, or None while the transaction is not mined."""
        await self._ensure_chain()
        try:
            raw = await self._rpc(
                "eth_getTransactionReceipt", self._w3.eth.get_transaction_receipt(_tx_hash(tx_hash))
            )
        except TransactionNotFound:
            return None
        return self._receipt(raw) if raw else None

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
        """The transaction as plain data (hex strings for bytes), or None when unknown."""
        await self._ensure_chain()
        try:
            raw = await self._rpc(
                "eth_getTransactionByHash", self._w3.eth.get_transaction(_tx_hash(tx_hash))
            )
        except TransactionNotFound:
            return None
        return _plain(raw) if raw else None

    async def balance(self, address: str) -> int:
        """Native balance in wei."""
        await self._ensure_chain()
        return await self._rpc(
            "eth_getBalance", self._w3.eth.get_balance(_address("address", address))
        )

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
