"""EVM transactions as the signer signs them: a transaction dict checked and encoded in RLP.

eth-account's import (with eth-keys, eth-utils, rlp and eth-rlp) cost a bridge about 0.2 s
of its ~1.1 s only to sign its one transaction (issue 37 point 7), so transactions are encoded
here and signed with libsecp256k1 in `signer`, byte for byte what eth-account 0.13 gives (a
test compares them over many transactions). The dicts accepted are those eth-account's
`sign_transaction` accepts for three kinds:

- EIP-1559 (type 2): `maxFeePerGas` or `maxPriorityFeePerGas` present (both required);
- EIP-2930 (type 1): `gasPrice` and `accessList` present, or `type` 1;
- legacy with EIP-155 replay protection: `gasPrice`, no `type`.

Blob (type 3) and set-code (type 4) transactions, which eth-account would also sign, are
refused: no quote carries one, and signing an account's code delegation is not something a
bridge should do unasked. Any field a kind does not have is refused, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crossdeck.base.errors import InputError
from crossdeck.base.keccak import keccak256
from crossdeck.models.units import tx_int

# an RLP item: a byte string, a non-negative integer (big-endian, no leading zeros) or a list
RlpItem = bytes | int | Sequence["RlpItem"]

_HEX_DIGITS = re.compile(r"[0-9a-fA-F]*")
_EVM_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")

_INT_FIELDS = (
    "value",
    "gas",
    "nonce",
    "chainId",
    "maxFeePerGas",
    "maxPriorityFeePerGas",
    "gasPrice",
    "type",
)

# each kind's fields in RLP order; a legacy transaction takes its chainId into v (EIP-155)
_LEGACY = ("nonce", "gasPrice", "gas", "to", "value", "data")
_ACCESS_LIST = ("chainId", "nonce", "gasPrice", "gas", "to", "value", "data", "accessList")
_DYNAMIC_FEE = (
    "chainId",
    "nonce",
    "maxPriorityFeePerGas",
    "maxFeePerGas",
    "gas",
    "to",
    "value",
    "data",
    "accessList",
)
_ORDER = {0: _LEGACY, 1: _ACCESS_LIST, 2: _DYNAMIC_FEE}
_OPTIONAL = {"to", "value", "data", "accessList", "chainId"}  # empty or 0 when missing
_REFUSED_KINDS = {
    3: "a blob transaction (type 3)",
    4: "a set-code transaction (type 4, EIP-7702)",
}


def rlp_encode(item: RlpItem) -> bytes:
    """The RLP encoding of `item` (Ethereum yellow paper, appendix B)."""
    if isinstance(item, int):
        if item < 0:
            raise ValueError("RLP has no negative integers")
        item = item.to_bytes((item.bit_length() + 7) // 8, "big")
    if isinstance(item, bytes):
        if len(item) == 1 and item[0] < 0x80:
            return item
        return _length_prefix(len(item), 0x80) + item
    payload = b"".join(rlp_encode(part) for part in item)
    return _length_prefix(len(payload), 0xC0) + payload


def _length_prefix(length: int, offset: int) -> bytes:
    if length < 56:
        return bytes([offset + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([offset + 55 + len(size)]) + size


@dataclass(frozen=True)
class UnsignedTransaction:
    """A transaction's fields in RLP order, ready to be hashed and signed."""

    kind: int  # 0 legacy, 1 EIP-2930, 2 EIP-1559
    chain_id: int
    fields: tuple[RlpItem, ...]

    def signing_hash(self) -> bytes:
        """The 32 bytes the key signs: EIP-155's for legacy, EIP-2718's envelope otherwise."""
        if self.kind == 0:
            return keccak256(rlp_encode((*self.fields, self.chain_id, 0, 0)))
        return keccak256(bytes([self.kind]) + rlp_encode(self.fields))

    def signed(self, recovery_id: int, r: int, s: int) -> bytes:
        """The raw signed transaction, given the signature of `signing_hash`."""
        if self.kind == 0:
            v = recovery_id + 35 + 2 * self.chain_id  # EIP-155
            return rlp_encode((*self.fields, v, r, s))
        return bytes([self.kind]) + rlp_encode((*self.fields, recovery_id, r, s))


def unsigned_transaction(tx: dict[str, Any]) -> UnsignedTransaction:
    """Check a transaction dict and put it in RLP form; `InputError` for anything eth-account
    would refuse or that is refused here (see the module's doc).

    Integers may be ints or integer strings (decimal or 0x-hex) as quotes carry them; `to` is
    0x + 40 hex digits, 20 bytes, or empty / None / missing for a contract creation; `data` is
    hex (0x-prefixed or not) or bytes, empty when missing."""
    fields = dict(tx)
    for name in _INT_FIELDS:
        if name in fields:
            fields[name] = tx_int(name, fields[name])
            if fields[name] < 0:
                raise InputError(f"transaction field {name} is negative: {fields[name]}")
    kind = _kind(fields)
    fields.pop("type", None)
    order = _ORDER[kind]
    unknown = sorted(set(fields) - set(order) - {"chainId"})
    if unknown:
        raise InputError(f"cannot sign the transaction: its kind has no field {unknown}")
    missing = [name for name in order if name not in fields and name not in _OPTIONAL]
    if missing:
        raise InputError(f"cannot sign the transaction: it lacks {missing}")
    encoded: list[RlpItem] = []
    for name in order:
        if name == "to":
            encoded.append(_to_bytes(fields.get("to")))
        elif name == "data":
            encoded.append(_data_bytes(fields.get("data", b"")))
        elif name == "accessList":
            encoded.append(_access_list(fields.get("accessList", [])))
        else:
            encoded.append(fields.get(name, 0))
    return UnsignedTransaction(kind=kind, chain_id=fields.get("chainId", 0), fields=tuple(encoded))


def _kind(fields: dict[str, Any]) -> int:
    """The transaction's type, given or as eth-account infers it from its fields."""
    if "type" in fields:
        kind: int = fields["type"]
    elif "gasPrice" in fields and "accessList" in fields:
        kind = 1
    elif "maxFeePerGas" in fields or "maxPriorityFeePerGas" in fields:
        if "maxFeePerBlobGas" in fields or "blobVersionedHashes" in fields:
            kind = 3
        elif "authorizationList" in fields:
            kind = 4
        else:
            kind = 2
    else:
        return 0
    if kind in _REFUSED_KINDS:
        raise InputError(f"crossdeck does not sign {_REFUSED_KINDS[kind]}")
    if kind not in (1, 2):
        raise InputError(f"cannot sign a transaction of unknown type {kind}")
    return kind


def _to_bytes(to: Any) -> bytes:
    if to in (None, "", b""):
        return b""  # a contract creation
    return _address_bytes(to, "transaction field to")


def _data_bytes(data: Any) -> bytes:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    if isinstance(data, int) and not isinstance(data, bool) and data >= 0:
        return bytes.fromhex(_even(f"{data:x}"))  # eth-account reads an int as its hex
    if isinstance(data, str):
        digits = data[2:] if data[:2] in ("0x", "0X") else data
        if _HEX_DIGITS.fullmatch(digits):
            return bytes.fromhex(_even(digits))
    raise InputError("transaction field data is not hex or bytes")


def _even(digits: str) -> str:
    return "0" + digits if len(digits) % 2 else digits


def _access_list(entries: Any) -> list[RlpItem]:
    """EIP-2930's [[address, [storage key, ...]], ...] from the JSON-RPC form
    [{"address": ..., "storageKeys": [...]}, ...]."""
    if not isinstance(entries, list | tuple):
        raise InputError("transaction field accessList is not a list")
    encoded: list[RlpItem] = []
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"address", "storageKeys"}:
            raise InputError(
                f"each accessList entry is {{address, storageKeys}} and nothing else, got {entry!r}"
            )
        address, keys = entry["address"], entry["storageKeys"]
        if not isinstance(keys, list | tuple):
            raise InputError(f"accessList storageKeys is not a list: {keys!r}")
        encoded.append(
            [_address_bytes(address, "accessList address"), [_storage_key(k) for k in keys]]
        )
    return encoded


def _address_bytes(address: Any, what: str) -> bytes:
    """`to` or an access list's address (`what`, for the refusal): 0x + 40 hex digits in any
    case (no checksum checked, as eth-account's signing took them) or 20 bytes."""
    if isinstance(address, bytes | bytearray) and len(address) == 20:
        return bytes(address)
    if isinstance(address, str) and _EVM_ADDRESS.fullmatch(address):
        return bytes.fromhex(address[2:])
    raise InputError(f"{what} is not an address: {address!r}")


def _storage_key(key: Any) -> bytes:
    """A storage key, an int or 0x-hex text, as its 32 bytes."""
    number: int | None = None
    if isinstance(key, int) and not isinstance(key, bool):
        number = key
    elif isinstance(key, str) and key[:2] in ("0x", "0X") and _HEX_DIGITS.fullmatch(key[2:]):
        number = int(key[2:] or "0", 16)
    if number is None or not 0 <= number < 2**256:
        raise InputError(f"accessList storage key is not a 32-byte number: {key!r}")
    return number.to_bytes(32, "big")
