"""Translation between Ethereum JSON-RPC wire values and eth-tester's Python values.

eth-tester speaks snake_case keys with int quantities; the wire speaks camelCase keys with hex
quantities. Malformed input raises `RpcFault` with the JSON-RPC "invalid params" code.
"""

from __future__ import annotations

import re
from typing import Any

from eth_utils.address import is_hex_address, to_checksum_address

INVALID_PARAMS = -32602
BLOCK_TAGS = ("latest", "earliest", "pending", "safe", "finalized")
_HEX_QUANTITY = re.compile(r"^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$")
_HEX_DATA = re.compile(r"^0x([0-9a-fA-F]{2})*$")
_HASH = re.compile(r"^0x[0-9a-fA-F]{64}$")
LOGS_BLOOM_BYTES = 256

# Keys whose wire name is not the camelCase of eth-tester's name.
_RENAMED = {"coinbase": "miner"}


class RpcFault(Exception):
    """A JSON-RPC error to return to the caller: code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def bad_params(message: str) -> RpcFault:
    return RpcFault(INVALID_PARAMS, message)


# ---- wire -> python -------------------------------------------------------------------------


def quantity(value: Any, field: str) -> int:
    if isinstance(value, str) and _HEX_QUANTITY.match(value):
        return int(value, 16)
    raise bad_params(f"invalid argument: {field}: hex quantity without leading zeros expected")


def data_bytes(value: Any, field: str) -> bytes:
    if isinstance(value, str) and _HEX_DATA.match(value):
        return bytes.fromhex(value[2:])
    raise bad_params(f"invalid argument: {field}: 0x-prefixed hex data expected")


def address(value: Any, field: str) -> str:
    if isinstance(value, str) and is_hex_address(value):
        return to_checksum_address(value)
    raise bad_params(f"invalid argument: {field}: 20-byte hex address expected")


def hash32(value: Any, field: str) -> str:
    if isinstance(value, str) and _HASH.match(value):
        return value.lower()
    raise bad_params(f"invalid argument: {field}: 32-byte hex hash expected")


def block_id(value: Any, field: str = "block") -> str | int:
    """A block tag or number; EIP-1898 `{"blockNumber": ...}` objects are accepted too."""
    if value is None:
        return "latest"
    if isinstance(value, dict) and "blockNumber" in value:
        value = value["blockNumber"]
    if isinstance(value, str) and value in BLOCK_TAGS:
        return value
    return quantity(value, field)


def param(params: list[Any], index: int, field: str, *, required: bool = True) -> Any:
    if index < len(params):
        return params[index]
    if required:
        raise bad_params(f"missing value for required argument {index} ({field})")
    return None


def call_request(tx: Any) -> dict[str, Any]:
    """A call object (eth_call / eth_estimateGas) in eth-tester's key names."""
    if not isinstance(tx, dict):
        raise bad_params("invalid argument 0: transaction object expected")
    out: dict[str, Any] = {}
    if tx.get("from") is not None:
        out["from"] = address(tx["from"], "from")
    if tx.get("to") is not None:
        out["to"] = address(tx["to"], "to")
    for wire, key in (
        ("gas", "gas"),
        ("gasPrice", "gas_price"),
        ("maxFeePerGas", "max_fee_per_gas"),
        ("maxPriorityFeePerGas", "max_priority_fee_per_gas"),
        ("value", "value"),
        ("nonce", "nonce"),
    ):
        if tx.get(wire) is not None:
            out[key] = quantity(tx[wire], wire)
    payload = tx.get("input", tx.get("data"))
    if payload is not None:
        out["data"] = data_bytes(payload, "input")
    return out


# ---- python -> wire -------------------------------------------------------------------------


def camel(key: str) -> str:
    if key in _RENAMED:
        return _RENAMED[key]
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def hex_quantity(value: int) -> str:
    return hex(value)


def wire_value(key: str | None, value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if key == "logs_bloom" and isinstance(value, int):
        return "0x" + value.to_bytes(LOGS_BLOOM_BYTES, "big").hex()
    if isinstance(value, int):
        return hex(value)
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict):
        return wire_object(value)
    if isinstance(value, list | tuple):
        return [wire_value(None, item) for item in value]
    return value


def wire_object(obj: dict[str, Any]) -> dict[str, Any]:
    return {camel(k): wire_value(k, v) for k, v in obj.items()}


def wire_transaction(tx: dict[str, Any]) -> dict[str, Any]:
    out = wire_object(tx)
    out["input"] = out.pop("data", "0x")
    return out


def wire_log(log: dict[str, Any]) -> dict[str, Any]:
    out = wire_object({k: v for k, v in log.items() if k != "type"})
    out["removed"] = False
    return out


def wire_receipt(receipt: dict[str, Any]) -> dict[str, Any]:
    from eth_bloom.bloom import BloomFilter

    # A post-Byzantium receipt has a status, not the intermediate state root eth-tester adds.
    out = wire_object({k: v for k, v in receipt.items() if k not in ("logs", "state_root")})
    out["logs"] = [wire_log(log) for log in receipt["logs"]]
    bloom = BloomFilter()
    for log in receipt["logs"]:
        bloom.add(bytes.fromhex(log["address"][2:]))
        for topic in log["topics"]:
            bloom.add(bytes.fromhex(topic[2:]) if isinstance(topic, str) else bytes(topic))
    out["logsBloom"] = "0x" + int(bloom).to_bytes(LOGS_BLOOM_BYTES, "big").hex()
    return out


def wire_block(block: dict[str, Any]) -> dict[str, Any]:
    out = wire_object({k: v for k, v in block.items() if k != "transactions"})
    out["transactions"] = [
        wire_transaction(tx) if isinstance(tx, dict) else wire_value(None, tx)
        for tx in block["transactions"]
    ]
    return out


ERROR_STRING_SELECTOR = bytes.fromhex("08c379a0")  # Error(string)
REVERT_ERROR = 3  # geth's code for a reverted call


def revert_fault(output: bytes) -> RpcFault:
    """geth's revert error: code 3, the revert data in `data`, the reason in the message."""
    from eth_abi.abi import decode as abi_decode

    message = "execution reverted"
    if output[:4] == ERROR_STRING_SELECTOR:
        try:
            (reason,) = abi_decode(["string"], output[4:])
            message = f"execution reverted: {reason}"
        except Exception:  # undecodable reason: the data still carries it
            pass
    return RpcFault(REVERT_ERROR, message, "0x" + output.hex())
