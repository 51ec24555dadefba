"""Base58 (Bitcoin's alphabet), as Solana encodes transactions and instruction data on the wire.

Keys and signatures go through `solders`; this is for byte strings of any length.
"""

from __future__ import annotations

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_INDEX = {char: value for value, char in enumerate(ALPHABET)}


def b58encode(data: bytes) -> str:
    zeros = len(data) - len(data.lstrip(b"\x00"))
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, digit = divmod(number, 58)
        digits.append(ALPHABET[digit])
    return "1" * zeros + "".join(reversed(digits))


def b58decode(text: str) -> bytes:
    """Raises ValueError on a character outside the alphabet."""
    number = 0
    for char in text:
        value = _INDEX.get(char)
        if value is None:
            raise ValueError(f"invalid base58 character {char!r}")
        number = number * 58 + value
    zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\x00" * zeros + body
