"""Signing with a local private key: transactions, EIP-712 typed data and EIP-191 messages.

The key lives only inside a `SecretStr` and the eth-account object built from it; nothing here
prints, logs or returns it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.messages import SignableMessage, encode_defunct, encode_typed_data
from eth_account.signers.local import LocalAccount
from eth_utils.address import to_checksum_address
from pydantic import SecretStr

from crossdeck.errors import InputError
from crossdeck.models.units import tx_int
from crossdeck.wallet.errors import InvalidKeyError

_HEX32 = re.compile(r"0x[0-9a-fA-F]{64}")

# EIP-712 orders the domain fields like this; a domain type is derived from the fields present
# when the caller hands over a domain without its `EIP712Domain` type (as a quote's `sign` does).
_DOMAIN_FIELD_TYPES = (
    ("name", "string"),
    ("version", "string"),
    ("chainId", "uint256"),
    ("verifyingContract", "address"),
    ("salt", "bytes32"),
)

_INT_TX_FIELDS = (
    "value",
    "gas",
    "nonce",
    "chainId",
    "maxFeePerGas",
    "maxPriorityFeePerGas",
    "gasPrice",
    "type",
)


@dataclass(frozen=True)
class SignedTransaction:
    """A signed transaction ready for `eth_sendRawTransaction`."""

    raw: bytes
    hash: str  # 0x-prefixed, lowercase


def new_private_key() -> SecretStr:
    """A fresh random secp256k1 key as a 0x-prefixed hex string."""
    return SecretStr("0x" + bytes(Account.create().key).hex())


def normalise_private_key(key: str | SecretStr) -> SecretStr:
    """Check that `key` is a 32-byte hex private key and return it 0x-prefixed, lowercase.

    The error never repeats the value, so a mistyped key cannot end up in a terminal log.
    """
    raw = (key.get_secret_value() if isinstance(key, SecretStr) else key).strip()
    body = raw[2:] if raw[:2].lower() == "0x" else raw
    if not re.fullmatch(r"[0-9a-fA-F]{64}", body):
        raise InvalidKeyError(
            "a private key is 32 bytes written as 64 hex characters (with or without 0x)",
            hint=f"got {len(body)} characters" if body else "got nothing",
        )
    try:
        Account.from_key("0x" + body)
    except Exception:  # eth-keys rejects zero and keys beyond the curve order
        raise InvalidKeyError("that value is not a valid secp256k1 private key") from None
    return SecretStr("0x" + body.lower())


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


def _eip191_message(message: str) -> SignableMessage:
    if _HEX32.fullmatch(message):
        return encode_defunct(hexstr=message)
    return encode_defunct(text=message)


class Signer:
    """Signs with one private key. `repr` shows the address only."""

    __slots__ = ("_account", "_key")

    def __init__(self, private_key: SecretStr) -> None:
        self._key = normalise_private_key(private_key)
        # eth-account's from_key is a combomethod, which its type hints leave untyped
        self._account: LocalAccount = Account.from_key(self._key.get_secret_value())

    def __repr__(self) -> str:
        return f"Signer(address={self.address}, private_key=SecretStr('**********'))"

    @property
    def address(self) -> str:
        """The checksum address of the key."""
        return self._account.address

    def sign_transaction(self, tx: dict[str, Any]) -> SignedTransaction:
        """Sign a transaction dict (EIP-1559 when it has maxFeePerGas).

        Numeric fields may be ints or integer strings (decimal or 0x-hex) as quotes carry them.
        A `from` that is not this signer is refused: the transaction was built for someone else.
        """
        fields = dict(tx)
        sender = fields.pop("from", None)
        if sender is not None and to_checksum_address(sender) != self.address:
            raise InputError(
                f"the transaction is from {sender}, but the wallet is {self.address}",
                hint="quote again with this wallet as the sender",
            )
        if "chainId" not in fields:
            raise InputError("the transaction has no chainId; refusing to sign a replayable tx")
        for name in _INT_TX_FIELDS:
            if name in fields:
                fields[name] = tx_int(name, fields[name])
        if fields.get("to"):
            fields["to"] = to_checksum_address(fields["to"])
        fields.setdefault("data", "0x")
        try:
            signed = self._account.sign_transaction(fields)
        except (TypeError, ValueError) as exc:
            raise InputError(f"cannot sign the transaction: {exc}") from None
        return SignedTransaction(raw=bytes(signed.raw_transaction), hash="0x" + signed.hash.hex())

    def sign_typed_data(self, typed_data: dict[str, Any]) -> bytes:
        """Sign an EIP-712 message; returns the 65-byte r || s || v signature (v 27/28)."""
        full = full_typed_data(typed_data)
        try:
            signed = self._account.sign_typed_data(full_message=full)
        except (TypeError, ValueError) as exc:
            raise InputError(f"cannot sign the typed data: {exc}") from None
        return bytes(signed.signature)

    def sign_eip191(self, message: str) -> bytes:
        """Sign a personal message. `0x` + 64 hex characters is signed as those 32 raw bytes,
        anything else as UTF-8 text."""
        return bytes(self._account.sign_message(_eip191_message(message)).signature)

    @staticmethod
    def recover_typed_data(typed_data: dict[str, Any], signature: bytes | str) -> str:
        """The address behind `signature` over `typed_data` (for self-checks before posting)."""
        return recover_typed_data(typed_data, signature)

    @staticmethod
    def recover_eip191(message: str, signature: bytes | str) -> str:
        """The address behind `signature` over the personal `message`."""
        return recover_eip191(message, signature)


def recover_typed_data(typed_data: dict[str, Any], signature: bytes | str) -> str:
    """The checksum address that produced `signature` over `typed_data`."""
    return recover_message(encode_typed_data(full_message=full_typed_data(typed_data)), signature)


def recover_eip191(message: str, signature: bytes | str) -> str:
    """The checksum address that produced `signature` over the personal `message`."""
    return recover_message(_eip191_message(message), signature)


def recover_message(message: SignableMessage, signature: bytes | str) -> str:
    """The checksum address that signed `message` (eth-account's combomethod, typed here)."""
    signer: str = Account.recover_message(message, signature=signature)
    return signer
