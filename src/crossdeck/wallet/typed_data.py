"""The 32-byte digest of EIP-712 typed data and of an EIP-191 personal message: what a wallet
signs.

crossdeck hashes these itself, following the EIPs, instead of through eth-account: importing
eth-account (with eth-abi, eth-utils, parsimonious and cytoolz) cost every venue withdrawal
about 0.1 s of its 0.3 s budget (issue 15). eth-account still signs transactions.

Stricter than eth-account on purpose, since a wallet signs only what its user could read: a
field missing from the message, a bool or a number written as free text, bytes of the wrong
length or an integer outside its type's range is refused with the field's path, not filled in
or coerced. Fields the message has beyond its type are not part of the digest (as in every
wallet). tests/wallet/test_typed_data.py checks each digest against eth-account's.
"""

from __future__ import annotations

import re
from typing import Any

from crossdeck.base.errors import InputError
from crossdeck.base.keccak import keccak256
from crossdeck.models.addresses import checksum_problem

_INT = re.compile(r"(u?)int(\d{0,3})")
_FIXED_BYTES = re.compile(r"bytes(\d{1,2})")
_ARRAY = re.compile(r"(.+)\[(\d*)\]")
_DECIMAL = re.compile(r"-?[0-9]+")
_HEX_NUMBER = re.compile(r"0x[0-9a-fA-F]+")
_HEX_BYTES = re.compile(r"0x(?:[0-9a-fA-F]{2})*")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_ATOMIC = frozenset({"address", "bool", "string", "bytes"})

Types = dict[str, list[dict[str, str]]]

# EIP-712 orders the domain fields like this; a domain type is derived from the fields present
# when the caller hands over a domain without its `EIP712Domain` type (as a quote's `sign` does).
_DOMAIN_FIELD_TYPES = (
    ("name", "string"),
    ("version", "string"),
    ("chainId", "uint256"),
    ("verifyingContract", "address"),
    ("salt", "bytes32"),
)


def full_typed_data(typed_data: dict[str, Any]) -> dict[str, Any]:
    """The complete EIP-712 message: `types` with `EIP712Domain`, `primaryType`, `domain`,
    `message`.

    Accepts the quote's `sign` shape too (`value` instead of `message`, no domain type).
    """
    try:
        domain = dict(typed_data["domain"])
        types = {name: list(fields) for name, fields in typed_data["types"].items()}
        primary_type = typed_data["primaryType"]
    except (KeyError, TypeError, AttributeError) as exc:
        raise InputError(
            f"typed data is missing {exc}: need domain, types and primaryType"
        ) from None
    message = typed_data.get("message", typed_data.get("value"))
    if not isinstance(message, dict):
        raise InputError("typed data has no message (or value) object to sign")
    if primary_type not in types:
        raise InputError(f"typed data's primaryType {primary_type!r} has no entry in types")
    if "EIP712Domain" not in types:
        types["EIP712Domain"] = [
            {"name": name, "type": kind} for name, kind in _DOMAIN_FIELD_TYPES if name in domain
        ]
    return {"types": types, "primaryType": primary_type, "domain": domain, "message": message}


def typed_data_digest(full: dict[str, Any]) -> bytes:
    """keccak256(0x19 0x01 || hashStruct(domain) || hashStruct(message)) of the complete typed
    data (`types` with `EIP712Domain`, `primaryType`, `domain`, `message`)."""
    types: Types = full["types"]
    primary_type: str = full["primaryType"]
    if primary_type == "EIP712Domain":
        raise InputError("the typed data's primaryType is EIP712Domain: it signs no message")
    domain_fields = {field["name"] for field in _fields(types, "EIP712Domain")}
    extra = sorted(set(full["domain"]) - domain_fields)
    if extra:
        raise InputError(f"the typed data's domain has fields its EIP712Domain type lacks: {extra}")
    domain = _hash_struct(types, "EIP712Domain", full["domain"], "domain")
    message = _hash_struct(types, primary_type, full["message"], "message")
    return keccak256(b"\x19\x01" + domain + message)


def eip191_digest(message: bytes) -> bytes:
    """keccak256 of the personal-message prefix, the message's length in decimal, the message."""
    prefix = b"\x19Ethereum Signed Message:\n" + str(len(message)).encode("ascii")
    return keccak256(prefix + message)


def encode_type(types: Types, primary_type: str) -> str:
    """`Name(type name,...)` of the type, then of each struct it refers to, sorted by name."""
    found: set[str] = set()
    _dependencies(types, primary_type, found)
    found.discard(primary_type)
    return "".join(_type_signature(types, name) for name in [primary_type, *sorted(found)])


def _type_signature(types: Types, kind: str) -> str:
    members = ",".join(f"{field['type']} {field['name']}" for field in _fields(types, kind))
    return f"{kind}({members})"


def _fields(types: Types, kind: str) -> list[dict[str, str]]:
    fields = types[kind]
    if not isinstance(fields, list) or not all(
        isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(f.get("type"), str)
        for f in fields
    ):
        raise InputError(f"the typed data's type {kind!r} is not a list of {{name, type}}")
    return fields


def _is_atomic(kind: str) -> bool:
    if kind in _ATOMIC:
        return True
    number = _INT.fullmatch(kind)
    if number:
        bits = number[2]
        return not bits or (bits[0] != "0" and int(bits) % 8 == 0 and 8 <= int(bits) <= 256)
    fixed = _FIXED_BYTES.fullmatch(kind)
    return fixed is not None and fixed[1][0] != "0" and 1 <= int(fixed[1]) <= 32


def _dependencies(types: Types, kind: str, found: set[str]) -> None:
    while (array := _ARRAY.fullmatch(kind)) is not None:
        kind = array[1]
    if kind in found or _is_atomic(kind):
        return
    if kind not in types:
        raise InputError(f"the typed data uses type {kind!r} but does not define it")
    found.add(kind)
    for field in _fields(types, kind):
        _dependencies(types, field["type"], found)


def _hash_struct(types: Types, kind: str, value: Any, path: str) -> bytes:
    if not isinstance(value, dict):
        raise InputError(f"{path} should be an object of type {kind}, got {_shown(value)}")
    words = [keccak256(encode_type(types, kind).encode("utf-8"))]
    for field in _fields(types, kind):
        name = field["name"]
        if name not in value or value[name] is None:
            raise InputError(f"{path}.{name} ({field['type']}) is missing: nothing is signed")
        words.append(_encode(types, field["type"], value[name], f"{path}.{name}"))
    return keccak256(b"".join(words))


def _encode(types: Types, kind: str, value: Any, path: str) -> bytes:
    """The 32-byte word of one value in its parent's encoding."""
    array = _ARRAY.fullmatch(kind)
    if array is not None:
        if not isinstance(value, list | tuple):
            raise InputError(f"{path} should be a list ({kind}), got {_shown(value)}")
        if array[2] and len(value) != int(array[2]):
            raise InputError(f"{path} should hold {array[2]} items ({kind}), got {len(value)}")
        return keccak256(
            b"".join(_encode(types, array[1], item, f"{path}[{i}]") for i, item in enumerate(value))
        )
    if kind in types and not _is_atomic(kind):
        return _hash_struct(types, kind, value, path)
    if kind == "string":
        if not isinstance(value, str):
            raise InputError(f"{path} should be text (string), got {_shown(value)}")
        return keccak256(value.encode("utf-8"))
    if kind == "bytes":
        return keccak256(_bytes(value, path, kind))
    if kind == "bool":
        if not isinstance(value, bool):
            raise InputError(f"{path} should be true or false (bool), got {_shown(value)}")
        return int(value).to_bytes(32, "big")
    if kind == "address":
        return _address(value, path).rjust(32, b"\0")
    fixed = _FIXED_BYTES.fullmatch(kind)
    if fixed is not None and _is_atomic(kind):
        raw = _bytes(value, path, kind)
        if len(raw) != int(fixed[1]):
            raise InputError(f"{path} should be {fixed[1]} bytes ({kind}), got {len(raw)}")
        return raw.ljust(32, b"\0")
    number = _INT.fullmatch(kind)
    if number is not None and _is_atomic(kind):
        return _integer(value, path, kind, signed=not number[1], bits=int(number[2] or 256))
    raise InputError(f"the typed data uses type {kind!r} at {path}, which EIP-712 does not have")


def _bytes(value: Any, path: str, kind: str) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, str) and _HEX_BYTES.fullmatch(value):
        return bytes.fromhex(value[2:])
    raise InputError(f"{path} should be 0x-prefixed hex bytes ({kind}), got {_shown(value)}")


def _address(value: Any, path: str) -> bytes:
    if isinstance(value, bytes | bytearray) and len(value) == 20:
        return bytes(value)
    if isinstance(value, str) and _ADDRESS.fullmatch(value):
        problem = checksum_problem(value)
        if problem is not None:
            raise InputError(f"{path}: {problem}")
        return bytes.fromhex(value[2:])
    raise InputError(f"{path} should be an address (0x and 40 hex digits), got {_shown(value)}")


def _integer(value: Any, path: str, kind: str, *, signed: bool, bits: int) -> bytes:
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = int(value)
    elif isinstance(value, str) and _HEX_NUMBER.fullmatch(value):
        number = int(value, 16)
    else:
        raise InputError(
            f"{path} should be a whole number ({kind}) in decimal or 0x hex, got {_shown(value)}"
        )
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if signed else (0, 2**bits)
    if not low <= number < high:
        raise InputError(f"{path} = {number} is outside the range of {kind}")
    return (number % 2**256).to_bytes(32, "big")  # two's complement for a negative int


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"
