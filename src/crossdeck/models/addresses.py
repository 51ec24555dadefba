"""Addresses by chain family: EIP-55 checksums of EVM addresses, Solana keys, Bitcoin addresses;
the one check, for what a user types and what a quote says.

EIP-55 encodes a checksum in the case of an address's hex letters. An address written in all
lower or all upper case carries no checksum (EIP-55 says nothing about it) and is accepted; a
mixed-case one carries one, and a wrong checksum means a mistyped (or altered) address, which
must never receive money.
"""

from __future__ import annotations

import re
from enum import StrEnum

from crossdeck.base.keccak import keccak256

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


# -- addresses by chain family --------------------------------------------------------------
#
# /chains' vmType says how a chain writes its addresses. The venue (vmType 'hypevm') keeps its
# users' accounts at EVM addresses; its currency ids are a form of their own
# (`quote_request._VENUE_CURRENCY`).


class Family(StrEnum):
    EVM = "evm"
    SOLANA = "svm"
    BITCOIN = "bvm"


SOLANA_CHAIN_ID = 792703809
BITCOIN_CHAIN_ID = 8253038
# the family of the chains whose family is public knowledge, for when /chains was not asked
# (a quote file, the journal): /chains' vmType wins whenever it is known
WELL_KNOWN_FAMILIES = {SOLANA_CHAIN_ID: Family.SOLANA, BITCOIN_CHAIN_ID: Family.BITCOIN}
_VM_TYPES = {"evm": Family.EVM, "hypevm": Family.EVM, "svm": Family.SOLANA, "bvm": Family.BITCOIN}
# what a chain of each family calls its native currency (an EVM chain: the zero address)
NATIVE_CURRENCY = {
    Family.EVM: "0x" + "0" * 40,
    Family.SOLANA: "11111111111111111111111111111111",
    # as the public service writes it (realdata); a placeholder, not an address: its bech32
    # checksum holds but its 19-byte program is no segwit program, so it is known by name
    Family.BITCOIN: "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8",
}
_FAMILY_WORDS = {
    Family.EVM: "an EVM address ('0x' and 40 hex digits)",
    Family.SOLANA: "a Solana address (base58 of 32 bytes)",
    Family.BITCOIN: "a Bitcoin address (bc1… bech32/bech32m, or 1… / 3… base58check)",
}


# vmTypes /chains answered in this process (`remember_vm_types`, fed by the service client):
# how a chain the public facts above do not name is known to be an SVM (or other) chain
_LEARNED: dict[int, Family] = {}


def remember_vm_types(vm_types: dict[int, str]) -> None:
    """Keep what /chains says of each chain's family, for `family_of` asked without one."""
    for chain_id, vm_type in vm_types.items():
        family = _VM_TYPES.get(vm_type.lower())
        if family is not None:
            _LEARNED[chain_id] = family


class UnknownFamily(ValueError):
    """A chain whose vmType this client does not know how to address."""


def family_of(chain_id: int, vm_type: str | None = None) -> Family:
    """The address family of a chain: its /chains vmType when given, else what /chains said of
    it in this process, else what is publicly known of its id, else EVM (the contract's default
    chains). `UnknownFamily` for a vmType crossdeck has no rules for (e.g. 'tvm'): it never
    guesses how to write an address."""
    if vm_type is not None:
        family = _VM_TYPES.get(vm_type.lower())
        if family is None:
            raise UnknownFamily(
                f"chain {chain_id} is a {vm_type!r} chain, whose addresses crossdeck cannot read"
            )
        return family
    return _LEARNED.get(chain_id) or WELL_KNOWN_FAMILIES.get(chain_id, Family.EVM)


def family_words(family: Family) -> str:
    return _FAMILY_WORDS[family]


def solana_problem(text: str) -> str | None:
    """Why `text` is not a Solana address (base58 of exactly 32 bytes), or None."""
    from crossdeck.models.base58 import b58decode

    try:
        raw = b58decode(text)
    except ValueError as exc:
        return f"{text!r} is not a Solana address: {exc}"
    if len(raw) != 32:
        return f"{text!r} is not a Solana address: it is {len(raw)} bytes, a key is 32"
    return None


# base58check version bytes of Bitcoin's mainnet: P2PKH ('1...') and P2SH ('3...')
_BITCOIN_VERSIONS = {0x00: "P2PKH", 0x05: "P2SH"}


def bitcoin_problem(text: str) -> str | None:
    """Why `text` is not a Bitcoin mainnet address, or None: a segwit address (bc1…, bech32
    for version 0, bech32m for 1 to 16, BIP-173/350) or a base58check P2PKH / P2SH one."""
    from crossdeck.models.base58 import b58check_decode
    from crossdeck.models.bech32 import decode_segwit

    if text[:3].lower() == "bc1":
        try:
            decode_segwit("bc", text)
        except ValueError as exc:
            return f"{text!r} is not a Bitcoin address: {exc}"
        return None
    if text[:1] in ("1", "3"):
        try:
            payload = b58check_decode(text)
        except ValueError as exc:
            return f"{text!r} is not a Bitcoin address: {exc}"
        if len(payload) != 21 or payload[0] not in _BITCOIN_VERSIONS:
            return f"{text!r} is not a Bitcoin address: no P2PKH or P2SH payload"
        return None
    return f"{text!r} is not {_FAMILY_WORDS[Family.BITCOIN]}"


def address_problem(text: str, family: Family) -> str | None:
    """Why `text` is not a valid address of `family` (its shape, then its checksum: EIP-55
    when mixed case, bech32/bech32m, base58check), or None."""
    if family is Family.EVM:
        if not is_evm_address(text):
            return f"{text!r} is not {_FAMILY_WORDS[family]}"
        return checksum_problem(text)
    if family is Family.SOLANA:
        return solana_problem(text)
    return bitcoin_problem(text)


def wrong_family_problem(text: str, family: Family, chain_id: int) -> str | None:
    """`address_problem`, said so that a user sees when the address is of another family
    ('… is a Solana address, but chain 8453 takes an EVM address')."""
    problem = address_problem(text, family)
    if problem is None:
        return None
    other = guess_family(text)
    if other is not None and other is not family:
        return (
            f"{text!r} is {_FAMILY_WORDS[other].split(' (')[0]}, but chain {chain_id} takes "
            f"{_FAMILY_WORDS[family]}"
        )
    return problem


def guess_family(text: str) -> Family | None:
    """The one family whose rules `text` passes, or None (no family, or more than one)."""
    passing = [family for family in Family if address_problem(text, family) is None]
    return passing[0] if len(passing) == 1 else None


def well_formed_problem(text: str) -> str | None:
    """Why `text` is an address of no family at all, or None when some family takes it. For
    a value read before its chain is known (the chain's family is checked once it is): a text
    whose shape points to one family is held to that family's checksum, so the message says
    which checksum failed."""
    if text.startswith("0x"):
        return address_problem(text, Family.EVM)
    if text[:3].lower() == "bc1":
        return bitcoin_problem(text)
    if any(address_problem(text, family) is None for family in Family):
        return None
    if text[:1] in ("1", "3") and 26 <= len(text) <= 35:
        legacy = bitcoin_problem(text)
        if legacy is not None and "checksum" in legacy:
            return legacy
    if all(c in "0123456789abcdefABCDEF" for c in text):
        return address_problem(text, Family.EVM)  # hex: an EVM address short of its '0x'
    if 32 <= len(text) <= 44:
        return solana_problem(text)  # the length of a Solana key's base58: say what is wrong
    return (
        f"{text!r} is no address: not {_FAMILY_WORDS[Family.EVM]}, nor "
        f"{_FAMILY_WORDS[Family.SOLANA]}, nor {_FAMILY_WORDS[Family.BITCOIN]}"
    )


def canonical_address(text: str) -> str:
    """The form two spellings of one address share: hex and bech32 lower-cased
    (their case is a checksum or nothing), every other (base58: Solana keys, Bitcoin legacy
    addresses) as written, since its case is part of it."""
    if text[:2] == "0x" or text[:3].lower() == "bc1":
        return text.lower()  # hex (an EVM address, a venue currency id) or bech32
    return text


def same_address(a: object, b: object) -> bool:
    """Whether two wire values are one address (see `canonical_address`)."""
    return (
        isinstance(a, str) and isinstance(b, str) and canonical_address(a) == canonical_address(b)
    )
