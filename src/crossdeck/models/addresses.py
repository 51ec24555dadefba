"""EIP-55 checksums of EVM addresses: the one check, for what a user types and what a quote says.

EIP-55 encodes a checksum in the case of an address's hex letters. An address written in all
lower or all upper case carries no checksum (EIP-55 says nothing about it) and is accepted; a
mixed-case one carries one, and a wrong checksum means a mistyped (or altered) address, which
must never receive money.
"""

from __future__ import annotations

import re

from crossdeck.keccak import keccak256

_EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


def is_evm_address(text: str) -> bool:
    """0x and 40 hex digits, in any case."""
    return bool(_EVM_ADDRESS.fullmatch(text))


def to_checksum_address(address: str | bytes) -> str:
    """The EIP-55 form of an address given as 0x + 40 hex digits (any case) or 20 bytes;
    `ValueError` for anything else. The case of what was given is not checked: see
    `checksum_problem` for that."""
    if isinstance(address, bytes | bytearray):
        if len(address) != 20:
            raise ValueError(f"an address is 20 bytes, got {len(address)}")
        digits = bytes(address).hex()
    elif isinstance(address, str) and _EVM_ADDRESS.fullmatch(address):
        digits = address[2:].lower()
    else:
        raise ValueError(f"not an address (0x and 40 hex digits): {address!r}")
    # a letter is upper case where the hash of the lower-case hex has a nibble of 8 or more
    nibbles = keccak256(digits.encode("ascii")).hex()
    return "0x" + "".join(
        char.upper() if int(nibble, 16) >= 8 else char
        for char, nibble in zip(digits, nibbles, strict=False)
    )


def checksum_problem(address: str) -> str | None:
    """Why `address` (0x + 40 hex digits) fails its EIP-55 checksum, or None when it passes or
    carries none (all lower or all upper case, or not an EVM address at all)."""
    if not _EVM_ADDRESS.fullmatch(address):
        return None
    digits = address[2:]
    if digits == digits.lower() or digits == digits.upper():
        return None
    if to_checksum_address(address) == address:
        return None
    # the checksum form of a mistyped address is still the wrong address: it is not offered
    return (
        f"{address} has mixed-case letters but a wrong EIP-55 checksum: a character is "
        "mistyped or was altered; copy the address again from where it came"
    )


def checked_checksum(address: str) -> str:
    """`address` unchanged, or `ValueError` when its EIP-55 checksum is wrong."""
    problem = checksum_problem(address)
    if problem is not None:
        raise ValueError(problem)
    return address
