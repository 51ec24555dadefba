"""eth-tester's py-evm backend, set to a chosen chain id and with O(1) transaction lookups."""

from __future__ import annotations

import time
from typing import Any

from eth_tester import EthereumTester, PyEVMBackend
from eth_tester.backends.pyevm.serializers import (
    serialize_transaction,
    serialize_transaction_receipt,
)
from eth_tester.exceptions import TransactionNotFound
from eth_utils import encode_hex, to_canonical_address


class IndexedPyEVMBackend(PyEVMBackend):
    """Looks transactions up through a hash -> block number index.

    eth-tester scans every block backwards for each lookup, which makes receipt polling slow
    on a long-running world. Blocks are never reorganised here, so an index built as blocks
    are read stays valid.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._tx_block: dict[bytes, int] = {}
        self._indexed_up_to = -1
        super().__init__(*args, **kwargs)

    def _locate(self, transaction_hash: bytes):
        head = self.chain.get_block()  # the pending block
        for index, tx in enumerate(head.transactions):
            if tx.hash == transaction_hash:
                return head, tx, index
        for number in range(self._indexed_up_to + 1, head.number):
            for tx in self.chain.get_canonical_block_by_number(number).transactions:
                self._tx_block[tx.hash] = number
            self._indexed_up_to = number
        number = self._tx_block.get(transaction_hash)
        if number is None:
            raise TransactionNotFound(
                f"No transaction found for transaction hash: {encode_hex(transaction_hash)}"
            )
        block = self.chain.get_canonical_block_by_number(number)
        for index, tx in enumerate(block.transactions):
            if tx.hash == transaction_hash:
                return block, tx, index
        raise TransactionNotFound(f"transaction index is stale for {encode_hex(transaction_hash)}")

    def get_transaction_by_hash(self, transaction_hash):
        block, transaction, index = self._locate(transaction_hash)
        is_pending = block.number == self.chain.get_block().number
        return serialize_transaction(block, transaction, index, is_pending)

    def get_transaction_receipt(self, transaction_hash):
        block, transaction, index = self._locate(transaction_hash)
        is_pending = block.number == self.chain.get_block().number
        receipts = block.get_receipts(self.chain.chaindb)
        return serialize_transaction_receipt(
            block, receipts, transaction, index, is_pending, self.chain.get_vm()
        )

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
