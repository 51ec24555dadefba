"""Addresses by chain family, as the service checks a quote's user, recipient and refundTo.

A chain's /chains ``vmType`` decides: EVM chains and the venue take 0x addresses, Solana (svm)
base58 32-byte keys (case kept), Bitcoin (bvm) bech32/bech32m or base58check addresses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from solders.pubkey import Pubkey

from crossdeck.sim.bitcoin import is_bitcoin_address
from crossdeck.sim.service.directory import ChainDirectory

EVM_ADDRESS_RE = re.compile(r"^0x[a-fA-F0-9]{40}$")
DESCRIPTIONS = {
    "evm": "an address matching ^0x[a-fA-F0-9]{40}$",
    "svm": "a Solana address (base58, 32 bytes)",
    "bvm": "a Bitcoin address (bech32 bc1..., or base58check 1... / 3...)",
}


def vm_type(directory: ChainDirectory, chain_id: int) -> str:
    other = directory.others.get(chain_id)
    return other.vm_type if other is not None else "evm"


def is_solana_address(value: str) -> bool:
    if not 32 <= len(value) <= 44:
        return False
    try:
        return str(Pubkey.from_string(value)) == value
    except ValueError:
        return False


def valid_address(family: str, value: object) -> bool:
    if not isinstance(value, str):
        return False
    if family == "svm":
        return is_solana_address(value)
    if family == "bvm":
        return is_bitcoin_address(value)
    return bool(EVM_ADDRESS_RE.fullmatch(value))


@dataclass(frozen=True)
class SolanaOptions:
    """The quote body's Solana-only fields (origin 792703809)."""

    deposit_fee_payer: str | None = None
    include_compute_unit_limit: bool = False
    max_route_length: int | None = None
    use_shared_accounts: bool = False
    sponsor_rent: bool = False
