"""`eth_simulateV1` on the py-evm chain: calls run in order on one state, with the transfers
they make, as geth and anvil answer it.

What a wallet needs of it is here: one or more `blockStateCalls`, each a list of `calls` run one
after another on the state the previous call left (an approve, then the call that spends it);
`traceTransfers` adds, for every native value moved by a call or any call inside it, an ERC-20
style `Transfer` log from the pseudo-address 0xEeee...EEeE, as the nodes do. `validation` false
(the default) runs the calls without fees, so no gas is charged and a call's nonce is the
account's current one. State and block overrides are refused by name rather than ignored.

One difference from geth: the native-transfer logs of a call come first in its `logs`, before
the contract logs (geth interleaves them in execution order). Each log is whole either way; a
caller that sums transfers by sender and receiver reads the same result.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.exceptions import Revert
from eth.vm.forks.london.transactions import LondonTransactionBuilder
from eth.vm.spoof import SpoofTransaction
from eth_utils.address import to_canonical_address, to_checksum_address
from eth_utils.crypto import keccak
from eth_utils.exceptions import ValidationError

from crossdeck.sim.chains import rpc_format as fmt
from crossdeck.sim.chains.rpc_format import RpcFault, bad_params, param, revert_fault

if TYPE_CHECKING:
    from eth.abc import ComputationAPI, StateAPI, VirtualMachineAPI

# the pseudo-token of native transfers in traced logs (geth, anvil: ERC-7528's address)
NATIVE_TRANSFER_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
TRANSFER_TOPIC = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
MAX_CALLS = 1000
# geth's codes for eth_simulateV1 (execution-apis): a reverted call, a VM error, bad input
REVERTED = 3
VM_ERROR = -32015
INVALID_PARAMS = -32602


def simulate_v1(rpc: Any, params: list[Any]) -> list[dict[str, Any]]:
    """`rpc`: the `PyEvmRpc` asked (its chain, chain id and block lookup)."""
    options = param(params, 0, "simulation")
    if not isinstance(options, dict):
        raise bad_params("invalid argument 0: simulation options object expected")
    block_calls = options.get("blockStateCalls")
    if not isinstance(block_calls, list) or not block_calls:
        raise bad_params("invalid argument 0: blockStateCalls must be a non-empty array")
    if options.get("validation"):
        raise RpcFault(INVALID_PARAMS, "validation: true is not supported by this node")
    trace = bool(options.get("traceTransfers"))
    block = fmt.block_id(param(params, 1, "block", required=False))
    header = rpc._header(block)
    vm = rpc.chain.get_vm(at_header=header)
    total = sum(len(b.get("calls") or []) for b in block_calls if isinstance(b, dict))
    if total > MAX_CALLS:
        raise RpcFault(INVALID_PARAMS, f"too many calls: {total} (at most {MAX_CALLS})")
    blocks: list[dict[str, Any]] = []
    state = _costless_state(vm)
    for index, block_call in enumerate(block_calls):
        if not isinstance(block_call, dict):
            raise bad_params(f"blockStateCalls[{index}] must be an object")
        for unsupported in ("stateOverrides", "blockOverrides"):
            if block_call.get(unsupported):
                raise RpcFault(
                    INVALID_PARAMS, f"blockStateCalls[{index}].{unsupported} is not supported"
                )
        calls = block_call.get("calls") or []
        if not isinstance(calls, list):
            raise bad_params(f"blockStateCalls[{index}].calls must be an array")
        number = header.block_number + 1 + index
        results = [
            _run(rpc, vm, state, call, trace, number, position)
            for position, call in enumerate(calls)
        ]
        blocks.append(_block(number, header.timestamp + 1 + index, header.gas_limit, results))
    return blocks


def _costless_state(vm: Any) -> StateAPI:
    """A state on top of the latest block with no base fee, as `vm.in_costless_state()` builds
    (`vm`: the py-evm VM, whose `chain_context` the VM's API does not name),
    but without its snapshot: each call locks its changes (as a block does between its
    transactions), which a snapshot taken before them cannot survive. Nothing is persisted: the
    changes live in the state's own journal, dropped with it."""
    header = vm.get_header()
    block = vm.generate_block_from_parent_header_and_coinbase(header, header.coinbase)
    free = block.header.copy(base_fee_per_gas=0)
    hashes = itertools.chain((header.hash,), vm.previous_hashes or ())
    state: StateAPI = vm.build_state(vm.chaindb.db, free, vm.chain_context, hashes)
    return state


def _block(
    number: int, timestamp: int, gas_limit: int, calls: list[dict[str, Any]]
) -> dict[str, Any]:
    used = sum(int(c["gasUsed"], 16) for c in calls)
    return {
        "number": hex(number),
        "hash": "0x" + keccak(text=f"simulated block {number}").hex(),
        "timestamp": hex(timestamp),
        "gasLimit": hex(gas_limit),
        "gasUsed": hex(used),
        "baseFeePerGas": "0x0",
        "calls": calls,
    }


def _run(
    rpc: Any,
    vm: VirtualMachineAPI,
    state: StateAPI,
    call: Any,
    trace: bool,
    number: int,
    position: int,
) -> dict[str, Any]:
    request = fmt.call_request(call)
    sender = to_canonical_address(request.get("from", "0x" + "00" * 20))
    builder = vm.get_transaction_builder()
    if not issubclass(builder, LondonTransactionBuilder):
        raise RpcFault(INVALID_PARAMS, "calls need a fork with EIP-1559 transactions")
    unsigned = builder.new_unsigned_dynamic_fee_transaction(
        chain_id=rpc.chain_id,
        nonce=request.get("nonce", state.get_nonce(sender)),
        max_priority_fee_per_gas=0,
        max_fee_per_gas=0,
        gas=request.get("gas", vm.get_header().gas_limit),
        to=to_canonical_address(request["to"]) if "to" in request else CREATE_CONTRACT_ADDRESS,
        value=request.get("value", 0),
        data=request.get("data", b""),
        access_list=(),
    )
    tx = SpoofTransaction(unsigned, from_=sender)
    # as a block does before each transaction: the call's storage costs and refunds count from
    # the state the calls before it left (EIP-2200's original value), and nothing is warm
    state.lock_changes()
    try:
        # a SpoofTransaction stands in for a signed one (as in eth_call)
        computation = state.apply_transaction(tx)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise RpcFault(-32000, f"call {position}: {exc}") from exc
    tx_hash = "0x" + keccak(text=f"simulated call {number}:{position}").hex()
    logs = _native_transfers(computation) if trace else []
    logs += [
        (to_checksum_address(address), ["0x" + t.to_bytes(32, "big").hex() for t in topics], data)
        for address, topics, data in computation.get_log_entries()
    ]
    out: dict[str, Any] = {
        "returnData": "0x" + bytes(computation.output).hex(),
        "logs": [
            {
                "address": address.lower(),
                "topics": topics,
                "data": "0x" + bytes(data).hex(),
                "blockNumber": hex(number),
                "transactionHash": tx_hash,
                "transactionIndex": hex(position),
                "logIndex": hex(index),
                "removed": False,
            }
            for index, (address, topics, data) in enumerate(logs)
        ],
        "gasUsed": hex(_receipt_gas_used(state, tx, computation)),
        "status": "0x1" if computation.is_success else "0x0",
    }
    if computation.is_error:
        error = computation.error
        if isinstance(error, Revert):
            fault = revert_fault(bytes(computation.output))
            out["error"] = {"code": REVERTED, "message": fault.message, "data": fault.data}
        else:
            out["error"] = {"code": VM_ERROR, "message": str(error) or type(error).__name__}
    return out


def _receipt_gas_used(state: StateAPI, tx: Any, computation: ComputationAPI) -> int:
    """The gas the call's receipt would show, as geth and anvil answer it: the intrinsic gas
    (21,000 and the calldata) and the execution, less the refund (at most a fifth since London),
    plus any calldata floor (Prague). `computation.get_gas_used()` is the execution alone: an
    approve's 24,332 where the receipt and anvil say 45,928, which a gas-limit guard would read
    as half the transaction's need."""
    spent = tx.gas - computation.get_gas_remaining()
    executor: Any = state.get_transaction_executor()  # the fork's, which has the refund rule
    refund = executor.calculate_gas_refund(computation, spent)
    return int(spent - refund + getattr(computation, "data_floor_gas", 0))


def _native_transfers(computation: ComputationAPI) -> list[tuple[str, list[str], bytes]]:
    """Every native value the call moved, outermost first: its own value, then each inner
    call's that did not revert (a reverted frame moved nothing, nor did its children)."""
    if computation.is_error:
        return []
    found: list[tuple[str, list[str], bytes]] = []
    msg = computation.msg
    if msg.value and msg.should_transfer_value:
        found.append(
            (
                NATIVE_TRANSFER_ADDRESS,
                [TRANSFER_TOPIC, _topic(msg.sender), _topic(msg.storage_address)],
                msg.value.to_bytes(32, "big"),
            )
        )
    for child in computation.children:
        found += _native_transfers(child)
    return found


def _topic(address: bytes) -> str:
    return "0x" + bytes(address).rjust(32, b"\0").hex()
