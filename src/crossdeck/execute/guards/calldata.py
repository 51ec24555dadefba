"""Calldata decoded by ABI, never searched for substrings.

The functions a deposit needs (ERC-20 `approve`/`transfer`, the depository's `depositNative` and
`depositErc20`, as the public depository and the world's both define them) are decoded into
named arguments; any other selector, or arguments that are not exactly the function's static
layout, is an unknown call.

Each of their arguments is static (address, uint256, bytes32): one 32-byte word in order, so
they are read here word by word, with the ABI's strict rule that an address's 12 high bytes are
zero. eth-abi's decoder would add 0.1 s of imports to every process with a guarded step (issue
15); tests/execute/test_execute_guards_unit.py encodes with eth-abi and decodes here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crossdeck.base.keccak import keccak256
from crossdeck.models.addresses import to_checksum_address

# name -> (argument types, argument names)
_FUNCTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "approve": (("address", "uint256"), ("spender", "amount")),
    "transfer": (("address", "uint256"), ("to", "amount")),
    "depositNative": (("address", "bytes32"), ("depositor", "id")),
    "depositErc20": (
        ("address", "address", "uint256", "bytes32"),
        ("depositor", "token", "amount", "id"),
    ),
}
_BY_SELECTOR = {
    "0x" + keccak256(f"{name}({','.join(types)})".encode("ascii"))[:4].hex(): name
    for name, (types, _) in _FUNCTIONS.items()
}
SELECTORS = {name: selector for selector, name in _BY_SELECTOR.items()}


@dataclass(frozen=True)
class Call:
    """A decoded call: `args` by name (addresses checksummed, bytes32 as 0x-hex, ints)."""

    name: str
    args: dict[str, Any]


class CalldataError(ValueError):
    """The calldata is not a call crossdeck can read (the message says how)."""


def decode_call(data: str | None) -> Call | None:
    """The call `data` makes; None for empty calldata (a plain transfer of value)."""
    text = (data or "0x").lower()
    if text in ("0x", ""):
        return None
    selector = text[:10]
    name = _BY_SELECTOR.get(selector)
    if name is None:
        raise CalldataError(f"selector {selector} is none of {', '.join(_FUNCTIONS)}")
    types, names = _FUNCTIONS[name]
    try:
        body = bytes.fromhex(text[10:])
    except ValueError:
        raise CalldataError(f"{name} calldata is not hex") from None
    if len(body) != 32 * len(types):  # static arguments only: nothing may trail them
        raise CalldataError(
            f"{name} calldata is {len(body)} bytes of arguments, not {32 * len(types)}"
        )
    args: dict[str, Any] = {}
    for index, (kind, key) in enumerate(zip(types, names, strict=True)):
        word = body[32 * index : 32 * (index + 1)]
        if kind == "address":
            if any(word[:12]):
                raise CalldataError(f"{name} argument {key} is not an address: high bytes set")
            args[key] = to_checksum_address(word[12:])
        elif kind == "bytes32":
            args[key] = "0x" + word.hex()
        else:
            args[key] = int.from_bytes(word, "big")
    return Call(name, args)
