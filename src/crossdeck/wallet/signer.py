"""Signing with a local private key: transactions, EIP-712 typed data and EIP-191 messages.

Transactions are encoded by `tx_encoding` (RLP; EIP-1559, EIP-2930 and EIP-155 legacy), typed
data and messages hashed by `typed_data`, and all of them signed with libsecp256k1 (coincurve):
RFC 6979 nonces and low-s signatures, byte for byte what eth-account gives (its eth-keys uses
the same library). Nothing here imports eth-account, eth-keys, eth-utils or rlp: their import
cost a bridge about 0.2 s only to sign its one transaction (issue 37 point 7), and a venue
withdrawal never needed them (issue 15).

The key lives only inside a `Secret` and the key objects built from it; nothing here prints,
logs or returns it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from coincurve import PrivateKey, PublicKey

from crossdeck.base.errors import InputError
from crossdeck.base.keccak import keccak256
from crossdeck.base.secret import Secret
from crossdeck.models.addresses import to_checksum_address
from crossdeck.wallet.errors import InvalidKeyError
from crossdeck.wallet.tx_encoding import unsigned_transaction
from crossdeck.wallet.typed_data import eip191_digest, full_typed_data, typed_data_digest

_HEX32 = re.compile(r"0x[0-9a-fA-F]{64}")


@dataclass(frozen=True)
class SignedTransaction:
    """A signed transaction ready for `eth_sendRawTransaction`."""

    raw: bytes
    hash: str  # 0x-prefixed, lowercase


def new_private_key() -> Secret:
    """A fresh random secp256k1 key (from the OS's random source) as a 0x-prefixed hex
    string."""
    return Secret("0x" + PrivateKey().secret.hex())


def normalise_private_key(key: str | Secret) -> Secret:
    """Check that `key` is a 32-byte hex private key and return it 0x-prefixed, lowercase.

    The error never repeats the value, so a mistyped key cannot end up in a terminal log.
    """
    raw = (key.get_secret_value() if isinstance(key, Secret) else key).strip()
    body = raw[2:] if raw[:2].lower() == "0x" else raw
    if not re.fullmatch(r"[0-9a-fA-F]{64}", body):
        raise InvalidKeyError(
            "a private key is 32 bytes written as 64 hex characters (with or without 0x)",
            hint=f"got {len(body)} characters" if body else "got nothing",
        )
    try:
        PrivateKey(bytes.fromhex(body))
    except ValueError:  # zero, or not below the curve order
        raise InvalidKeyError("that value is not a valid secp256k1 private key") from None
    return Secret("0x" + body.lower())


def _checksum_or_none(address: Any) -> str | None:
    try:
        return to_checksum_address(address)
    except ValueError:  # not an address at all: no wallet's
        return None


def _eip191_digest(message: str) -> bytes:
    if _HEX32.fullmatch(message):
        return eip191_digest(bytes.fromhex(message[2:]))
    return eip191_digest(message.encode("utf-8"))


def _address_of(public_key: PublicKey) -> str:
    """The address of a public key: the last 20 bytes of the hash of its 64-byte point."""
    return to_checksum_address(keccak256(public_key.format(compressed=False)[1:])[-20:])


class Signer:
    """Signs with one private key. `repr` shows the address only."""

    __slots__ = ("_address", "_key", "_private")

    def __init__(self, private_key: Secret) -> None:
        self._key = normalise_private_key(private_key)
        self._private = PrivateKey(bytes.fromhex(self._key.get_secret_value()[2:]))
        self._address = _address_of(self._private.public_key)

    def __repr__(self) -> str:
        return f"Signer(address={self.address}, private_key=Secret('**********'))"

    @property
    def address(self) -> str:
        """The checksum address of the key."""
        return self._address

    def _sign_digest(self, digest: bytes) -> bytes:
        """r || s || v over a 32-byte digest, v 27/28 (libsecp256k1 gives the recovery id)."""
        signature = self._private.sign_recoverable(digest, hasher=None)
        return signature[:64] + bytes([signature[64] + 27])

    def sign_transaction(self, tx: dict[str, Any]) -> SignedTransaction:
        """Sign a transaction dict (EIP-1559 when it has maxFeePerGas).

        Numeric fields may be ints or integer strings (decimal or 0x-hex) as quotes carry them.
        A `from` that is not this signer is refused: the transaction was built for someone else.
        """
        fields = dict(tx)
        sender = fields.pop("from", None)
        if sender is not None and _checksum_or_none(sender) != self.address:
            raise InputError(
                f"the transaction is from {sender}, but the wallet is {self.address}",
                hint="quote again with this wallet as the sender",
            )
        if "chainId" not in fields:
            raise InputError("the transaction has no chainId; refusing to sign a replayable tx")
        unsigned = unsigned_transaction(fields)
        signature = self._private.sign_recoverable(unsigned.signing_hash(), hasher=None)
        raw = unsigned.signed(
            recovery_id=signature[64],
            r=int.from_bytes(signature[:32], "big"),
            s=int.from_bytes(signature[32:64], "big"),
        )
        return SignedTransaction(raw=raw, hash="0x" + keccak256(raw).hex())

    def sign_typed_data(self, typed_data: dict[str, Any]) -> bytes:
        """Sign an EIP-712 message; returns the 65-byte r || s || v signature (v 27/28)."""
        return self._sign_digest(typed_data_digest(full_typed_data(typed_data)))

    def sign_eip191(self, message: str) -> bytes:
        """Sign a personal message. `0x` + 64 hex characters is signed as those 32 raw bytes,
        anything else as UTF-8 text."""
        return self._sign_digest(_eip191_digest(message))

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
    return recover_digest(typed_data_digest(full_typed_data(typed_data)), signature)


def recover_eip191(message: str, signature: bytes | str) -> str:
    """The checksum address that produced `signature` over the personal `message`."""
    return recover_digest(_eip191_digest(message), signature)


def recover_digest(digest: bytes, signature: bytes | str) -> str:
    """The checksum address that signed the 32-byte `digest`; `InputError` when `signature` is
    not 65 bytes (or their hex) with v 27/28 or 0/1, or recovers no key."""
    if isinstance(signature, str):
        try:
            signature = bytes.fromhex(signature.removeprefix("0x"))
        except ValueError:
            raise InputError("a signature is hex digits, 0x-prefixed or not") from None
    if len(signature) != 65 or signature[64] not in (0, 1, 27, 28):
        raise InputError("a signature is 65 bytes, r || s || v with v 27/28 (or 0/1)")
    try:
        public_key = PublicKey.from_signature_and_message(
            signature[:64] + bytes([signature[64] % 27]), digest, hasher=None
        )
    except ValueError:  # r or s zero or beyond the curve order, or no point recovers
        raise InputError("that signature recovers no public key") from None
    return _address_of(public_key)
