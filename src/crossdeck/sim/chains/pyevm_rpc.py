"""The Ethereum JSON-RPC methods of the py-evm chain, answered as a real node answers them.

Calls here are synchronous and NOT thread-safe: the server runs them one at a time on a single
worker thread. Results are wire values (hex quantities, camelCase objects); failures raise
`RpcFault` with the code and message geth gives for the same condition.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.exceptions import OutOfGas, Revert, VMError
from eth.vm.forks.london.transactions import LondonTransactionBuilder
from eth.vm.spoof import SpoofTransaction
from eth_tester.exceptions import BlockNotFound, TransactionNotFound
from eth_typing import BlockNumber
from eth_utils.address import to_canonical_address, to_checksum_address
from eth_utils.exceptions import ValidationError

from crossdeck.sim.chains import rpc_format as fmt
from crossdeck.sim.chains.pyevm_backend import IndexedPyEVMBackend, make_tester
from crossdeck.sim.chains.pyevm_state import restore_chain, save_chain
from crossdeck.sim.chains.rpc_format import RpcFault, bad_params, param, revert_fault

if TYPE_CHECKING:
    from eth.abc import (
        BlockHeaderAPI,
        ComputationAPI,
        SignedTransactionAPI,
        StateAPI,
        VirtualMachineAPI,
    )
    from eth.chains.base import MiningChain

EXECUTION_ERROR = -32000
REVERT_ERROR = 3
METHOD_NOT_FOUND = -32601
PRIORITY_FEE_WEI = 10**9
CLIENT_VERSION = "crossdeck-sim/py-evm"
BLOB_TX_TYPE = 3
FEE_HISTORY_MAX_BLOCKS = 1024
MAX_LOG_BLOCK_RANGE = 100_000
MAX_TOPICS = 4


def _execution_error(message: str) -> RpcFault:
    return RpcFault(EXECUTION_ERROR, message)


def _base_fee(header: BlockHeaderAPI) -> int:
    """The block's base fee: py-evm types it optional for pre-London blocks, which no world
    chain has (every chain starts on a fork with EIP-1559)."""
    fee = header.base_fee_per_gas
    if fee is None:
        raise _execution_error(f"block {header.block_number} has no base fee (pre-London)")
    return fee


class PyEvmRpc:
    def __init__(
        self,
        chain_id: int,
        balances: dict[str, int],
        *,
        auto_mine: bool = True,
        state_file: Path | None = None,
    ) -> None:
        """`state_file`: the chain is kept there (`save_state`) and, when the file exists,
        restored from it (`restored`; `balances` then play no part)."""
        self.chain_id = chain_id
        self.tester = make_tester(chain_id, balances)
        self.auto_mine = auto_mine
        self.state_file = state_file
        self.restored = state_file is not None and state_file.exists()
        if self.restored:
            assert state_file is not None
            self.backend.chain = restore_chain(self.chain, state_file)
        self._saved_head: bytes | None = self.chain.get_canonical_head().hash
        self._logs_by_block: dict[int, list[dict[str, Any]]] = {}  # mined blocks never change
        self.methods: dict[str, Callable[[list[Any]], Any]] = {
            name: getattr(self, name)
            for name in dir(self)
            if name.startswith(("eth_", "net_", "web3_", "evm_", "anvil_", "hardhat_"))
            and callable(getattr(self, name))
        }

    @property
    def backend(self) -> IndexedPyEVMBackend:
        backend: IndexedPyEVMBackend = self.tester.backend  # eth-tester is untyped: Any
        return backend

    @property
    def chain(self) -> MiningChain:
        chain: MiningChain = self.backend.chain  # set by eth-tester's (untyped) backend
        return chain

    def handle(self, method: str, params: Any) -> Any:
        handler = self.methods.get(method)
        if handler is None:
            raise RpcFault(METHOD_NOT_FOUND, f"the method {method} does not exist/is not available")
        if params is None:
            params = []
        if not isinstance(params, list):
            raise bad_params("params must be an array")
        try:
            return handler(params)
        except RpcFault:
            raise
        except (BlockNotFound, TransactionNotFound):
            return None
        except ValidationError as exc:
            raise _execution_error(str(exc)) from exc

    def save_state(self) -> None:
        """Write the chain to `state_file` if its head moved since the last write."""
        head = self.chain.get_canonical_head().hash
        if self.state_file is None or (head == self._saved_head and self.state_file.exists()):
            return
        save_chain(self.chain, self.state_file)
        self._saved_head = head

    def mine_block(self) -> None:
        """Seal the pending block now (interval mining when auto-mine is off)."""
        self.backend.refresh_pending_timestamp()
        self.backend.mine_blocks(1)

    # ---- helpers --------------------------------------------------------------------------

    def _header(self, block: str | int) -> BlockHeaderAPI:
        if block == "pending":
            return self.chain.get_block().header
        number = self._block_number(block)
        try:
            return self.chain.get_canonical_block_header_by_number(BlockNumber(number))
        except Exception as exc:
            raise RpcFault(EXECUTION_ERROR, f"header not found: block {block}") from exc

    def _latest_number(self) -> int:
        return self.chain.get_block().number - 1

    def _block_number(self, block: str | int) -> int:
        if block == "earliest":
            return 0
        if block == "pending":
            return self.chain.get_block().number
        if isinstance(block, int):
            if block > self._latest_number():
                raise RpcFault(EXECUTION_ERROR, f"header not found: block {block}")
            return block
        return self._latest_number()

    def _state(self, block: str | int) -> StateAPI:
        if block == "pending":
            return self.chain.get_vm().state
        return self.chain.get_vm(at_header=self._header(block)).state

    def _next_base_fee(self) -> int:
        return _base_fee(self.chain.get_block().header)

    # ---- dev methods anvil also has, so a world can drive either backend alike -----------

    def evm_mine(self, params: list[Any]) -> str:
        self.mine_block()
        return "0x0"

    def _set_state(self, change: Callable[[StateAPI], None]) -> None:
        state = self.chain.get_vm().state
        change(state)
        state.persist()
        self.chain.header = self.chain.header.copy(state_root=state.state_root)
        if self.auto_mine:
            self.mine_block()  # anvil shows the change at 'latest' at once

    def anvil_setBalance(self, params: list[Any]) -> None:
        account = fmt.address(param(params, 0, "address"), "address")
        wei = fmt.quantity(param(params, 1, "balance"), "balance")
        self._set_state(lambda state: state.set_balance(to_canonical_address(account), wei))
        return None

    hardhat_setBalance = anvil_setBalance

    def anvil_setCode(self, params: list[Any]) -> None:
        account = fmt.address(param(params, 0, "address"), "address")
        code = fmt.data_bytes(param(params, 1, "code"), "code")
        self._set_state(lambda state: state.set_code(to_canonical_address(account), code))
        return None

    hardhat_setCode = anvil_setCode

    # ---- plain reads ----------------------------------------------------------------------

    def eth_chainId(self, params: list[Any]) -> str:
        return hex(self.chain_id)

    def net_version(self, params: list[Any]) -> str:
        return str(self.chain_id)

    def web3_clientVersion(self, params: list[Any]) -> str:
        return CLIENT_VERSION

    def net_listening(self, params: list[Any]) -> bool:
        return True

    def eth_syncing(self, params: list[Any]) -> bool:
        return False

    def eth_accounts(self, params: list[Any]) -> list[Any]:
        return []

    def eth_blockNumber(self, params: list[Any]) -> str:
        return hex(self._latest_number())

    def eth_gasPrice(self, params: list[Any]) -> str:
        return hex(self._next_base_fee() + PRIORITY_FEE_WEI)

    def eth_maxPriorityFeePerGas(self, params: list[Any]) -> str:
        return hex(PRIORITY_FEE_WEI)

    def eth_getBalance(self, params: list[Any]) -> str:
        account = fmt.address(param(params, 0, "address"), "address")
        state = self._state(fmt.block_id(param(params, 1, "block", required=False)))
        return hex(state.get_balance(to_canonical_address(account)))

    def eth_getTransactionCount(self, params: list[Any]) -> str:
        account = fmt.address(param(params, 0, "address"), "address")
        state = self._state(fmt.block_id(param(params, 1, "block", required=False)))
        return hex(state.get_nonce(to_canonical_address(account)))

    def eth_getCode(self, params: list[Any]) -> str:
        account = fmt.address(param(params, 0, "address"), "address")
        state = self._state(fmt.block_id(param(params, 1, "block", required=False)))
        return "0x" + state.get_code(to_canonical_address(account)).hex()

    def eth_getStorageAt(self, params: list[Any]) -> str:
        account = fmt.address(param(params, 0, "address"), "address")
        slot = fmt.quantity(param(params, 1, "slot"), "slot")
        state = self._state(fmt.block_id(param(params, 2, "block", required=False)))
        value = state.get_storage(to_canonical_address(account), slot)
        return "0x" + value.to_bytes(32, "big").hex()

    def eth_getBlockByNumber(self, params: list[Any]) -> dict[str, Any] | None:
        block = fmt.block_id(param(params, 0, "block"))
        full = bool(param(params, 1, "fullTransactions", required=False))
        if isinstance(block, int) and block > self._latest_number():
            return None
        return fmt.wire_block(self.tester.get_block_by_number(block, full_transactions=full))

    def eth_getBlockByHash(self, params: list[Any]) -> dict[str, Any] | None:
        block_hash = fmt.hash32(param(params, 0, "hash"), "hash")
        full = bool(param(params, 1, "fullTransactions", required=False))
        return fmt.wire_block(self.tester.get_block_by_hash(block_hash, full_transactions=full))

    def eth_getTransactionByHash(self, params: list[Any]) -> dict[str, Any] | None:
        tx_hash = fmt.hash32(param(params, 0, "hash"), "hash")
        return fmt.wire_transaction(self.tester.get_transaction_by_hash(tx_hash))

    def eth_getTransactionReceipt(self, params: list[Any]) -> dict[str, Any] | None:
        tx_hash = fmt.hash32(param(params, 0, "hash"), "hash")
        tx = self.tester.get_transaction_by_hash(tx_hash)
        if tx["block_number"] is None or tx["block_number"] > self._latest_number():
            return None  # still in the pending block
        return fmt.wire_receipt(self.tester.get_transaction_receipt(tx_hash))

    def eth_getLogs(self, params: list[Any]) -> list[Any]:
        query = param(params, 0, "filter")
        if not isinstance(query, dict):
            raise bad_params("invalid argument 0: filter object expected")
        if query.get("blockHash") is not None:
            block = self.tester.get_block_by_hash(fmt.hash32(query["blockHash"], "blockHash"))
            from_block = to_block = block["number"]
        else:
            latest = self._latest_number()
            from_id = fmt.block_id(query.get("fromBlock"), "fromBlock")
            to_id = fmt.block_id(query.get("toBlock"), "toBlock")
            from_block = from_id if isinstance(from_id, int) else self._block_number(from_id)
            to_block = to_id if isinstance(to_id, int) else self._block_number(to_id)
            to_block = min(latest, to_block)
        addresses = query.get("address")
        if isinstance(addresses, str):
            addresses = [addresses]
        wanted = None
        if addresses is not None:
            wanted = {fmt.address(a, "address").lower() for a in addresses}
        topics = [self._topic_filter(t) for t in (query.get("topics") or [])]
        if len(topics) > MAX_TOPICS:
            raise bad_params("exceeded maximum topics len")
        if to_block - from_block >= MAX_LOG_BLOCK_RANGE:
            raise _execution_error(f"block range exceeds {MAX_LOG_BLOCK_RANGE} blocks")
        found = []
        for number in range(from_block, to_block + 1):
            for log in self._block_logs(number):
                if wanted is not None and log["address"].lower() not in wanted:
                    continue
                if self._topics_match(topics, log["topics"]):
                    found.append(log)
        return found

    def _block_logs(self, number: int) -> list[dict[str, Any]]:
        logs = self._logs_by_block.get(number)
        if logs is None:
            logs = [fmt.wire_log(log) for log in self.backend.block_logs(number)]
            self._logs_by_block[number] = logs
        return logs

    @staticmethod
    def _topics_match(wanted: list[Any], topics: list[str]) -> bool:
        # geth: a filter longer than the log's topic list never matches, even with nulls.
        if len(wanted) > len(topics):
            return False
        for position, choice in enumerate(wanted):
            if choice is None:
                continue
            options = choice if isinstance(choice, list) else [choice]
            if options and topics[position] not in options:
                return False
        return True

    @staticmethod
    def _topic_filter(topic: Any) -> Any:
        if topic is None:
            return None
        if isinstance(topic, list):
            return [fmt.hash32(t, "topics") for t in topic]
        return fmt.hash32(topic, "topics")

    def eth_feeHistory(self, params: list[Any]) -> dict[str, Any]:
        raw_count = param(params, 0, "blockCount")
        count = raw_count if isinstance(raw_count, int) else fmt.quantity(raw_count, "blockCount")
        newest = self._block_number(fmt.block_id(param(params, 1, "newestBlock")))
        percentiles = param(params, 2, "rewardPercentiles", required=False)
        if not 1 <= count <= FEE_HISTORY_MAX_BLOCKS:
            raise bad_params(f"blockCount must be between 1 and {FEE_HISTORY_MAX_BLOCKS}")
        oldest = max(0, newest - count + 1)
        base_fees, ratios, rewards = [], [], []
        for number in range(oldest, newest + 1):
            block = self.chain.get_canonical_block_by_number(BlockNumber(number))
            header = block.header
            base_fees.append(hex(_base_fee(header)))
            ratios.append(header.gas_used / header.gas_limit)
            if percentiles:
                tips = sorted(self._tip(tx, _base_fee(header)) for tx in block.transactions)
                tips = tips or [0]
                rewards.append(
                    [hex(tips[min(len(tips) - 1, int(len(tips) * p / 100))]) for p in percentiles]
                )
        next_header = (
            self.chain.get_canonical_block_header_by_number(BlockNumber(newest + 1))
            if newest < self._latest_number()
            else self.chain.get_block().header
        )
        base_fees.append(hex(_base_fee(next_header)))
        result: dict[str, Any] = {
            "oldestBlock": hex(oldest),
            "baseFeePerGas": base_fees,
            "gasUsedRatio": ratios,
        }
        if percentiles:
            result["reward"] = rewards
        return result

    @staticmethod
    def _tip(tx: SignedTransactionAPI, base_fee: int) -> int:
        max_fee: int | None = getattr(tx, "max_fee_per_gas", None)
        if max_fee is None:
            return tx.gas_price - base_fee
        return min(tx.max_priority_fee_per_gas, max_fee - base_fee)

    # ---- execution ------------------------------------------------------------------------

    def _prepare_call(self, params: list[Any]) -> tuple[VirtualMachineAPI, SpoofTransaction]:
        request = fmt.call_request(param(params, 0, "transaction"))
        block = fmt.block_id(param(params, 1, "block", required=False))
        header = self._header(block)
        sender = request.get("from", "0x" + "00" * 20)
        explicit_price = request.get("max_fee_per_gas", request.get("gas_price"))
        vm = self.chain.get_vm(at_header=header)
        state = vm.state
        value = request.get("value", 0)
        balance = state.get_balance(to_canonical_address(sender))
        gas = request.get("gas", header.gas_limit)
        if "gas" not in request and explicit_price and balance > value:
            # Like geth: without a gas limit, the allowance is what the balance can pay for.
            gas = min(gas, (balance - value) // explicit_price)
        cost = value + (gas * explicit_price if explicit_price else 0)
        if balance < cost:
            raise _execution_error(
                f"insufficient funds for gas * price + value: address {sender} "
                f"have {balance} want {cost}"
            )
        builder = vm.get_transaction_builder()
        if not issubclass(builder, LondonTransactionBuilder):
            raise _execution_error("calls need a fork with EIP-1559 transactions")
        unsigned = builder.new_unsigned_dynamic_fee_transaction(
            chain_id=self.chain_id,
            nonce=request.get("nonce", state.get_nonce(to_canonical_address(sender))),
            # Calls run fee-free like geth's (no base fee, zero gas price): a wallet with no
            # native balance can still read contracts and estimate.
            max_priority_fee_per_gas=0,
            max_fee_per_gas=0,
            gas=gas,
            to=to_canonical_address(request["to"]) if "to" in request else CREATE_CONTRACT_ADDRESS,
            value=value,
            data=request.get("data", b""),
            access_list=(),
        )
        return vm, SpoofTransaction(unsigned, from_=to_canonical_address(sender))

    def _execute(
        self, params: list[Any]
    ) -> tuple[VirtualMachineAPI, SpoofTransaction, ComputationAPI]:
        vm, tx = self._prepare_call(params)
        with vm.in_costless_state() as state:
            try:
                # a SpoofTransaction proxies a signed one (with the caller as sender), but
                # py-evm does not declare it a SignedTransactionAPI
                computation = state.apply_transaction(tx)  # type: ignore[arg-type]
            except ValidationError as exc:
                raise _execution_error(str(exc)) from exc
        if computation.is_error:
            error = computation.error
            if isinstance(error, Revert):
                raise revert_fault(bytes(computation.output))
            raise _execution_error(self._vm_error_message(error))
        return vm, tx, computation

    @staticmethod
    def _vm_error_message(error: VMError) -> str:
        if isinstance(error, OutOfGas):
            return "out of gas"
        return str(error) or type(error).__name__

    def eth_simulateV1(self, params: list[Any]) -> list[dict[str, Any]]:
        from crossdeck.sim.chains.pyevm_simulate import simulate_v1

        return simulate_v1(self, params)

    def eth_call(self, params: list[Any]) -> str:
        _, _, computation = self._execute(params)
        return "0x" + bytes(computation.output).hex()

    def eth_estimateGas(self, params: list[Any]) -> str:
        vm, tx, _ = self._execute(params)  # surfaces reverts with their data, as geth does
        with vm.in_costless_state() as state:
            try:
                # a SpoofTransaction stands in for a signed one (see _execute)
                estimate = self.chain.gas_estimator(state, tx)  # type: ignore[arg-type]
            except Revert as exc:
                raise revert_fault(bytes(exc.args[0]) if exc.args else b"") from exc
            except VMError as exc:
                raise _execution_error(self._vm_error_message(exc)) from exc
        return hex(estimate)

    def eth_sendRawTransaction(self, params: list[Any]) -> str:
        raw = fmt.data_bytes(param(params, 0, "transaction"), "transaction")
        if not raw:
            raise bad_params("invalid argument 0: empty transaction")
        if raw[0] == BLOB_TX_TYPE:
            raise _execution_error("transaction type not supported")
        vm = self.chain.get_vm()
        try:
            tx = vm.get_transaction_builder().decode(raw)
        except Exception as exc:
            raise _execution_error(f"rlp: invalid transaction: {exc}") from exc
        self._check_chain_id(tx)
        self._check_admissible(tx, vm.state)
        self.backend.refresh_pending_timestamp()
        try:
            # Straight to the backend: it applies the transaction to the pending block, so
            # pending nonces and balances see it even before the block is sealed.
            tx_hash = self.backend.send_raw_transaction(raw)
        except ValidationError as exc:
            raise _execution_error(str(exc)) from exc
        if self.auto_mine:
            self.backend.mine_blocks(1)
        return "0x" + bytes(tx_hash).hex()

    def _check_chain_id(self, tx: SignedTransactionAPI) -> None:
        # py-evm itself accepts a signature for any chain id; a real node does not.
        if hasattr(tx, "v") and not hasattr(tx, "y_parity"):  # legacy transaction
            if tx.v in (27, 28):
                raise _execution_error(
                    "invalid chain id: only replay-protected (EIP-155) transactions allowed "
                    "over RPC"
                )
            chain_id = (tx.v - 35) // 2
        else:
            chain_id = tx.chain_id
        if chain_id != self.chain_id:
            raise _execution_error(
                f"invalid chain id for signer: have {chain_id} want {self.chain_id}"
            )

    def _check_admissible(self, tx: SignedTransactionAPI, state: StateAPI) -> None:
        """The txpool checks geth makes before accepting a transaction, with its messages."""
        try:
            sender = tx.sender
        except Exception as exc:
            raise _execution_error("invalid sender") from exc
        sender_hex = to_checksum_address(sender)
        expected_nonce = state.get_nonce(sender)
        if tx.nonce < expected_nonce:
            raise _execution_error(
                f"nonce too low: next nonce {expected_nonce}, tx nonce {tx.nonce}"
            )
        if tx.nonce > expected_nonce:
            # geth would park it in the queue; with instant mining there is no queue to wait in.
            raise _execution_error(
                f"nonce too high: next nonce {expected_nonce}, tx nonce {tx.nonce}"
            )
        header = self.chain.get_block().header
        if tx.gas > header.gas_limit:
            raise _execution_error("exceeds block gas limit")
        if tx.gas < tx.intrinsic_gas:
            raise _execution_error(
                f"intrinsic gas too low: gas {tx.gas}, minimum needed {tx.intrinsic_gas}"
            )
        max_fee = getattr(tx, "max_fee_per_gas", None)
        if max_fee is None:
            max_fee = tx.gas_price
        tip = getattr(tx, "max_priority_fee_per_gas", max_fee)
        if tip > max_fee:
            raise _execution_error(
                f"max priority fee per gas higher than max fee per gas: address {sender_hex}, "
                f"maxPriorityFeePerGas: {tip}, maxFeePerGas: {max_fee}"
            )
        base_fee = _base_fee(header)
        if max_fee < base_fee:
            raise _execution_error(
                f"max fee per gas less than block base fee: address {sender_hex}, "
                f"maxFeePerGas: {max_fee}, baseFee: {base_fee}"
            )
        balance = state.get_balance(sender)
        cost = tx.gas * max_fee + tx.value
        if balance < cost:
            raise _execution_error(
                f"insufficient funds for gas * price + value: balance {balance}, "
                f"tx cost {cost}, overshot {cost - balance}"
            )
