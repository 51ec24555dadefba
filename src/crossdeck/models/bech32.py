"""Bech32 (BIP-173) and bech32m (BIP-350) and the segwit address rules on them, written from the
BIPs: a human-readable part, '1', then 5-bit groups ending in a 6-character BCH checksum. A
segwit address's first group is the witness version: version 0 uses bech32's constant, 1 to 16
use bech32m's, so a v1 address written with the v0 checksum (the bug BIP-350 fixed) fails."""

from __future__ import annotations

from enum import Enum

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_INDEX = {char: index for index, char in enumerate(CHARSET)}
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
MAX_LENGTH = 90


class Encoding(Enum):
    BECH32 = 1
    BECH32M = 0x2BC830A3


def _polymod(values: list[int]) -> int:
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for bit, generator in enumerate(_GENERATOR):
            if (top >> bit) & 1:
                check ^= generator
    return check


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _checksum(hrp: str, data: list[int], encoding: Encoding) -> list[int]:
    polymod = _polymod(_hrp_expand(hrp) + data + [0] * 6) ^ encoding.value
    return [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]


def encode(hrp: str, data: list[int], encoding: Encoding) -> str:
    combined = data + _checksum(hrp, data, encoding)
    return hrp + "1" + "".join(CHARSET[d] for d in combined)


def decode(text: str) -> tuple[str, list[int], Encoding]:
    """(hrp, 5-bit data without the checksum, which constant checked it); `ValueError` saying
    what is wrong."""
    if len(text) > MAX_LENGTH:
        raise ValueError(f"{len(text)} characters is longer than bech32 allows ({MAX_LENGTH})")
    if any(ord(c) < 33 or ord(c) > 126 for c in text):
        raise ValueError("holds a character bech32 never uses")
    if text.lower() != text and text.upper() != text:
        raise ValueError("mixes upper and lower case, which bech32 forbids")
    text = text.lower()
    split = text.rfind("1")
    if split < 1 or split + 7 > len(text):
        raise ValueError("has no human-readable part and 6-character checksum around a '1'")
    hrp, rest = text[:split], text[split + 1 :]
    bad = next((c for c in rest if c not in _INDEX), None)
    if bad is not None:
        raise ValueError(f"{bad!r} is not a bech32 character (1, b, i and o never are)")
    data = [_INDEX[c] for c in rest]
    residue = _polymod(_hrp_expand(hrp) + data)
    for encoding in Encoding:
        if residue == encoding.value:
            return hrp, data[:-6], encoding
    raise ValueError("its bech32 checksum is wrong: a character is mistyped or altered")


def convert_bits(data: list[int], from_bits: int, to_bits: int, *, pad: bool) -> list[int]:
    accumulator = 0
    bits = 0
    out = []
    top = (1 << to_bits) - 1
    for value in data:
        if value < 0 or value >> from_bits:
            raise ValueError("a group is out of range")
        accumulator = (accumulator << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((accumulator >> bits) & top)
    if pad:
        if bits:
            out.append((accumulator << (to_bits - bits)) & top)
    elif bits >= from_bits or ((accumulator << (to_bits - bits)) & top):
        raise ValueError("has padding bits a segwit program cannot have")
    return out


def decode_segwit(hrp: str, text: str) -> tuple[int, bytes]:
    """(witness version, program) of a segwit address with human-readable part `hrp`;
    `ValueError` saying which BIP-173 / BIP-350 rule it breaks."""
    found_hrp, data, encoding = decode(text)
    if found_hrp != hrp:
        raise ValueError(f"is for network {found_hrp!r}, not {hrp!r}")
    if not data:
        raise ValueError("has no witness version")
    version = data[0]
    if version > 16:
        raise ValueError(f"witness version {version} does not exist (0 to 16)")
    program = bytes(convert_bits(data[1:], 5, 8, pad=False))
    if not 2 <= len(program) <= 40:
        raise ValueError(f"a witness program is 2 to 40 bytes, this one {len(program)}")
    if version == 0 and len(program) not in (20, 32):
        raise ValueError(f"a version 0 program is 20 or 32 bytes, this one {len(program)}")
    wanted = Encoding.BECH32 if version == 0 else Encoding.BECH32M
    if encoding is not wanted:
        raise ValueError(
            f"a version {version} address takes the {wanted.name.lower()} checksum, it has "
            f"{encoding.name.lower()}'s"
        )
    return version, program


def encode_segwit(hrp: str, version: int, program: bytes) -> str:
    encoding = Encoding.BECH32 if version == 0 else Encoding.BECH32M
    text = encode(hrp, [version, *convert_bits(list(program), 8, 5, pad=True)], encoding)
    decode_segwit(hrp, text)
    return text
