"""One EVM chain as the solver sees it: new blocks, deposit logs, and transactions it signs.

Everything goes over the node's JSON-RPC (the same endpoint wallets use), so the solver behaves
the same on py-evm and anvil. Transactions of one sender are sent one at a time under a lock and
with the node's pending nonce, so the solver's concurrent fills never reuse a nonce.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from eth_abi.abi import encode as abi_encode
from eth_account.signers.local import LocalAccount
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from crossdeck.sim.chains import ChainNode
from crossdeck.sim.chains.rpc_client import ChainRpcClient, ChainRpcError
from crossdeck.sim.service.state import Tx

NATIVE = "0x0000000000000000000000000000000000000000"
PRIORITY_FEE_WEI = 10**9
GAS_MARGIN_PERCENT = 20
ERC20_TRANSFER_GAS = 80_000

DEPOSIT_TOPIC = "0x" + keccak(text="Deposit(address,address,uint256,bytes32)").hex()
TRANSFER_TOPIC = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
SWAP_TOPIC = (
    "0x" + keccak(text="Swap(address,address,address,uint256,address,uint256,bytes32)").hex()
)
_TRANSFER_SELECTOR = keccak(text="transfer(address,uint256)")[:4]


def erc20_transfer_data(to: str, amount: int) -> bytes:
    return _TRANSFER_SELECTOR + abi_encode(
        ["address", "uint256"], [to_checksum_address(to), amount]
    )


def topic_address(topic: str) -> str:
    return to_checksum_address("0x" + topic[-40:])


def is_native(currency: str) -> bool:
    return currency.lower() == NATIVE


@dataclass(frozen=True)
class Sent:
    """A transaction the solver sent and saw mined."""

    tx: Tx  # with fee (gas used x effective price), block and block timestamp
    ok: bool


class Unconfirmed(Exception):
    """A transaction was (or may have been) broadcast but its outcome is unknown: whoever sent
    it must not act as if nothing was paid (a fill then refunded would pay twice)."""

    def __init__(self, tx_hash: str, cause: BaseException) -> None:
        super().__init__(f"transaction {tx_hash} sent, outcome unknown: {cause}")
        self.tx_hash = tx_hash


class SolverChain:
    def __init__(self, node: ChainNode, *, timeout: float = 30.0) -> None:
        self.node = node
        self.chain_id = node.chain_id
        self.usdc = to_checksum_address(node.usdc)
        self.depository = to_checksum_address(node.depository)
        self.router = to_checksum_address(node.router)
        self.client = ChainRpcClient(node.rpc_url, timeout=timeout)
        self.next_block = 0  # first block not scanned yet
        self._send_locks: dict[str, asyncio.Lock] = {}

    async def close(self) -> None:
        await self.client.close()

    # ---- reads -------------------------------------------------------------------------

    async def head(self) -> int:
        return int(await self.client.call("eth_blockNumber"), 16)

    async def native_balance(self, address: str) -> int:
        return int(await self.client.call("eth_getBalance", address, "latest"), 16)

    async def usdc_balance(self, address: str) -> int:
        data = keccak(text="balanceOf(address)")[:4] + abi_encode(["address"], [address])
        raw = await self.client.call("eth_call", {"to": self.usdc, "data": "0x" + data.hex()})
        return int(raw, 16)

    async def contract_logs(self, from_block: int, to_block: int) -> list[dict[str, Any]]:
        """Depository `Deposit`, USDC `Transfer` and router `Swap` logs in the range, in chain
        order."""
        logs = await self.client.call(
            "eth_getLogs",
            {
                "fromBlock": hex(from_block),
                "toBlock": hex(to_block),
                "address": [self.depository, self.usdc, self.router],
                "topics": [[DEPOSIT_TOPIC, TRANSFER_TOPIC, SWAP_TOPIC]],
            },
        )
        return sorted(logs, key=lambda log: (int(log["blockNumber"], 16), int(log["logIndex"], 16)))

    async def value_transfers(self, from_block: int, to_block: int) -> list[dict[str, Any]]:
        """Transactions with value in the range (the full tx objects), in chain order."""
        out: list[dict[str, Any]] = []
        for number in range(from_block, to_block + 1):
            block = await self.client.call("eth_getBlockByNumber", hex(number), True)
            if block is None:
                break
            out += [tx for tx in block["transactions"] if tx.get("to") and int(tx["value"], 16)]
        return out

    async def onchain_tx(self, tx_hash: str, *, log_index: int | None = None) -> Tx:
        """The 2.3 view of a mined transaction (origin deposit or a solver payment)."""
        tx, receipt = await asyncio.gather(
            self.client.call("eth_getTransactionByHash", tx_hash),
            self.client.wait_for_receipt(tx_hash),
        )
        block = await self.client.call("eth_getBlockByNumber", receipt["blockNumber"], False)
        price = int(receipt.get("effectiveGasPrice") or tx.get("gasPrice") or "0x0", 16)
        return Tx(
            hash=tx_hash,
            chain_id=self.chain_id,
            from_=to_checksum_address(tx["from"]),
            to=to_checksum_address(tx["to"]) if tx.get("to") else NATIVE,
            value=int(tx["value"], 16),
            data=tx.get("input") or tx.get("data") or "0x",
            fee=int(receipt["gasUsed"], 16) * price,
            timestamp=int(block["timestamp"], 16),
            block=int(receipt["blockNumber"], 16),
        )

    # ---- writes ------------------------------------------------------------------------

    async def send(
        self,
        account: LocalAccount,
        *,
        to: str,
        value: int = 0,
        data: bytes = b"",
        gas: int | None = None,
        gas_price: int | None = None,
    ) -> Sent:
        """Sign and send from `account`, wait for the receipt. `gas_price` makes a legacy tx
        (its cost is exactly gas x price, which a sweep of a whole balance needs)."""
        to = to_checksum_address(to)
        lock = self._send_locks.setdefault(account.address, asyncio.Lock())
        async with lock:
            call = {
                "from": account.address,
                "to": to,
                "value": hex(value),
                "data": "0x" + data.hex(),
            }
            if gas is None:
                estimate = int(await self.client.call("eth_estimateGas", call), 16)
                gas = (
                    estimate if estimate == 21_000 else estimate * (100 + GAS_MARGIN_PERCENT) // 100
                )
            nonce = int(
                await self.client.call("eth_getTransactionCount", account.address, "pending"), 16
            )
            tx: dict[str, Any] = {
                "chainId": self.chain_id,
                "nonce": nonce,
                "to": to,
                "value": value,
                "data": data,
                "gas": gas,
            }
            if gas_price is not None:
                tx["gasPrice"] = gas_price
            else:
                latest = await self.client.call("eth_getBlockByNumber", "latest", False)
                base_fee = int(latest.get("baseFeePerGas") or "0x0", 16)
                tx["maxFeePerGas"] = 2 * base_fee + PRIORITY_FEE_WEI
                tx["maxPriorityFeePerGas"] = PRIORITY_FEE_WEI
            raw = account.sign_transaction(tx).raw_transaction
            tx_hash = "0x" + keccak(raw).hex()
            try:
                tx_hash = await self.client.call("eth_sendRawTransaction", "0x" + raw.hex())
            except ChainRpcError:
                raise  # the node refused it: nothing was sent
            except Exception as exc:  # no answer: it may have been accepted all the same
                raise Unconfirmed(tx_hash, exc) from exc
        try:
            receipt = await self.client.wait_for_receipt(tx_hash)
            return Sent(await self.onchain_tx(tx_hash), ok=int(receipt["status"], 16) == 1)
        except Exception as exc:
            raise Unconfirmed(tx_hash, exc) from exc

    async def pay(self, account: LocalAccount, currency: str, to: str, amount: int) -> Sent:
        """Send `amount` of native currency or USDC (the only ERC-20 of the world)."""
        if is_native(currency):
            return await self.send(account, to=to, value=amount)
        if currency.lower() != self.usdc.lower():
            raise ValueError(f"chain {self.chain_id} has no currency {currency}")
        return await self.send(
            account, to=self.usdc, data=erc20_transfer_data(to, amount), gas=ERC20_TRANSFER_GAS
        )

    async def gas_price(self) -> int:
        return int(await self.client.call("eth_gasPrice"), 16)
