"""How the world's request index stores and matches addresses and transaction hashes.

Hex is compared without case (EVM and venue addresses, EVM hashes, Bitcoin txids) and so is
bech32 (BIP-173: a `bc1…` address is all lower or all upper case, the same address either
way). Base58 keeps its case: a Solana address or signature, a Bitcoin `1…`/`3…` address,
lower-cased, is another key or none at all.
"""

from __future__ import annotations

import string

_HEX = frozenset(string.hexdigits)


def address_key(address: str) -> str:
    if address.startswith(("0x", "0X")) or address[:3].lower() == "bc1":
        return address.lower()
    return address


def hash_key(tx_hash: str) -> str:
    if tx_hash.startswith(("0x", "0X")) or (tx_hash and set(tx_hash) <= _HEX):
        return tx_hash.lower()
    return tx_hash
