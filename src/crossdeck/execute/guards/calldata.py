"""Calldata decoded by ABI, never searched for substrings.

The functions a deposit needs (ERC-20 `approve`/`transfer`, the depository's `depositNative` and
`depositErc20`, as the public depository and the world's both define them) are decoded with
`eth_abi` into named arguments; any other selector, or arguments that do not decode to exactly
the function's static layout, is an unknown call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eth_abi.abi import decode
from eth_abi.exceptions import DecodingError
from eth_utils.abi import function_signature_to_4byte_selector
from eth_utils.address import to_checksum_address

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
    "0x" + function_signature_to_4byte_selector(f"{name}({','.join(types)})").hex(): name
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
    try:
        values = decode(list(types), body, strict=True)
    except DecodingError as exc:
        raise CalldataError(f"{name} arguments do not decode ({exc})") from None
    args: dict[str, Any] = {}
    for kind, key, value in zip(types, names, values, strict=True):
        if kind == "address":
            args[key] = to_checksum_address(value)
        elif kind == "bytes32":
            args[key] = "0x" + bytes(value).hex()
        else:
            args[key] = int(value)
    return Call(name, args)
