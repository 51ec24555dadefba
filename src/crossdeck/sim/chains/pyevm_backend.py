"""eth-tester's py-evm backend, set to a chosen chain id and with O(1) transaction lookups."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from eth_tester import EthereumTester, PyEVMBackend
from eth_tester.backends.pyevm.serializers import (
    serialize_transaction,
    serialize_transaction_receipt,
)
from eth_tester.exceptions import TransactionNotFound
from eth_utils.address import to_canonical_address, to_checksum_address
from eth_utils.hexadecimal import encode_hex

if TYPE_CHECKING:
    from eth.abc import BlockAPI, SignedTransactionAPI


# eth-tester ships no type hints, so its backend class is Any to the type checker
class IndexedPyEVMBackend(PyEVMBackend):  # type: ignore[misc]
    """Looks transactions up through a hash -> block number index, and memoises mined ones.

    eth-tester scans every block backwards for each lookup and recovers each sender anew
    (pure-Python secp256k1: milliseconds each), which makes receipt polling slow on a
    long-running world. Blocks are never reorganised here, so what is read of a mined block
    stays valid.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._tx_block: dict[bytes, int] = {}
        self._indexed_up_to = -1
        self._mined_txs: dict[bytes, dict[str, Any]] = {}
        self._mined_receipts: dict[bytes, dict[str, Any]] = {}
        super().__init__(*args, **kwargs)

    def _locate(self, transaction_hash: bytes) -> tuple[BlockAPI, SignedTransactionAPI, int]:
        head = self.chain.get_block()  # the pending block
        for index, tx in enumerate(head.transactions):
            if tx.hash == transaction_hash:
                return head, tx, index
        for number in range(self._indexed_up_to + 1, head.number):
            for tx in self.chain.get_canonical_block_by_number(number).transactions:
                self._tx_block[tx.hash] = number
            self._indexed_up_to = number
        found = self._tx_block.get(transaction_hash)
        if found is None:
            raise TransactionNotFound(
                f"No transaction found for transaction hash: {encode_hex(transaction_hash)}"
            )
        block = self.chain.get_canonical_block_by_number(found)
        for index, tx in enumerate(block.transactions):
            if tx.hash == transaction_hash:
                return block, tx, index
        raise TransactionNotFound(f"transaction index is stale for {encode_hex(transaction_hash)}")

    def get_transaction_by_hash(self, transaction_hash: bytes) -> dict[str, Any]:
        if transaction_hash in self._mined_txs:
            return self._mined_txs[transaction_hash]
        block, transaction, index = self._locate(transaction_hash)
        is_pending = block.number == self.chain.get_block().number
        serialized: dict[str, Any] = serialize_transaction(block, transaction, index, is_pending)
        if not is_pending:
            self._mined_txs[transaction_hash] = serialized
        return serialized

    def get_transaction_receipt(self, transaction_hash: bytes) -> dict[str, Any]:
        if transaction_hash in self._mined_receipts:
            return self._mined_receipts[transaction_hash]
        block, transaction, index = self._locate(transaction_hash)
        is_pending = block.number == self.chain.get_block().number
        receipts = block.get_receipts(self.chain.chaindb)
        serialized: dict[str, Any] = serialize_transaction_receipt(
            block, receipts, transaction, index, is_pending, self.chain.get_vm()
        )
        if not is_pending:
            self._mined_receipts[transaction_hash] = serialized
        return serialized

    def block_logs(self, number: int) -> list[dict[str, Any]]:
        """The logs of a mined block in eth-tester's shape, without recovering any sender."""
        block = self.chain.get_canonical_block_by_number(number)
        logs: list[dict[str, Any]] = []
        for tx_index, (tx, receipt) in enumerate(
            zip(block.transactions, block.get_receipts(self.chain.chaindb), strict=True)
        ):
            for log in receipt.logs:
                logs.append(
                    {
                        "log_index": len(logs),
                        "transaction_index": tx_index,
                        "transaction_hash": tx.hash,
                        "block_hash": block.hash,
                        "block_number": number,
                        "address": to_checksum_address(log.address),
                        "data": log.data,
                        "topics": [topic.to_bytes(32, "big") for topic in log.topics],
                    }
                )
        return logs

    def refresh_pending_timestamp(self) -> None:
        """Stamp the pending block with the current time, as a producer does when it builds it.

        py-evm stamps a block when its predecessor is mined, so after an idle spell the next
        transaction would run with a stale `block.timestamp`.
        """
        head = self.chain.get_block()
        if head.transactions:
            return
        parent = self.chain.get_canonical_block_header_by_number(head.number - 1)
        stamp = max(parent.timestamp + 1, int(time.time()))
        if stamp != self.chain.header.timestamp:
            self.chain.header = self.chain.header.copy(timestamp=stamp)


def make_tester(chain_id: int, balances: dict[str, int]) -> EthereumTester:
    """An EthereumTester whose chain reports `chain_id`, with the given genesis balances.

    The RPC layer sends raw transactions to the backend and seals blocks itself.
    """
    genesis_state = {
        to_canonical_address(addr): {"balance": wei, "nonce": 0, "code": b"", "storage": {}}
        for addr, wei in balances.items()
    }
    backend = IndexedPyEVMBackend(genesis_state=genesis_state)
    # The chain class is built per backend by eth-tester, so this does not leak to others;
    # py-evm reads it for EIP-155 signing, CHAINID and transaction validation.
    type(backend.chain).chain_id = chain_id
    return EthereumTester(backend=backend, auto_mine_transactions=True)
