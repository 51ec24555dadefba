"""Base58 (Bitcoin's alphabet), as Solana keys and Bitcoin's legacy addresses write bytes, and
base58check (Bitcoin's P2PKH / P2SH addresses: a version byte, the payload, and the first four
bytes of a double SHA-256 as a checksum)."""

from __future__ import annotations

import hashlib

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_INDEX = {char: index for index, char in enumerate(ALPHABET)}
# a base58 text longer than this is no key or address this client reads (and a huge one would
# cost quadratic time to decode)
MAX_TEXT = 128


def b58encode(data: bytes) -> str:
    zeros = len(data) - len(data.lstrip(b"\0"))
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, rest = divmod(number, 58)
        digits.append(ALPHABET[rest])
    return "1" * zeros + "".join(reversed(digits))


def b58decode(text: str) -> bytes:
    """The bytes `text` writes; `ValueError` naming the first character outside the alphabet
    (0, O, I and l are not in it, so that they cannot be mistaken for one another)."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"base58 text of {len(text)} characters is longer than any key")
    number = 0
    for position, char in enumerate(text):
        value = _INDEX.get(char)
        if value is None:
            raise ValueError(
                f"character {position + 1} ({char!r}) is not base58 (0, O, I and l never are)"
            )
        number = number * 58 + value
    zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * zeros + body


def _check(payload: bytes) -> bytes:
    return hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]


def b58check_encode(payload: bytes) -> str:
    return b58encode(payload + _check(payload))


def b58check_decode(text: str) -> bytes:
    """The payload (version byte first) of a base58check text; `ValueError` when the text is
    not base58 or its checksum does not match (a mistyped or altered character)."""
    raw = b58decode(text)
    if len(raw) < 5:
        raise ValueError("too short for base58check (a payload and a 4-byte checksum)")
    payload, checksum = raw[:-4], raw[-4:]
    if _check(payload) != checksum:
        raise ValueError("its base58check checksum is wrong: a character is mistyped or altered")
    return payload
