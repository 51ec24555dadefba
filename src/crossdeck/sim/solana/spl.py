"""SPL Token account layouts (the 82-byte mint, the 165-byte token account) and the program ids.

The world writes its USDC mint and the demo wallet's token accounts straight into the chain
(`set_account`), so it packs these layouts itself; reading them goes through `solders`.
"""

from __future__ import annotations

import struct
from typing import Any

from solders.pubkey import Pubkey
from solders.token.associated import get_associated_token_address
from solders.token.state import Mint, TokenAccount

TOKEN_PROGRAM = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
TOKEN_2022_PROGRAM = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
ASSOCIATED_TOKEN_PROGRAM = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
SYSTEM_PROGRAM = Pubkey.from_string("11111111111111111111111111111111")
TOKEN_PROGRAMS = (TOKEN_PROGRAM, TOKEN_2022_PROGRAM)
MINT_SIZE = 82
TOKEN_ACCOUNT_SIZE = 165
_NONE = b"\x00" * 36


def _option_key(key: Pubkey | None) -> bytes:
    return _NONE if key is None else struct.pack("<I", 1) + bytes(key)


def pack_mint(authority: Pubkey, supply: int, decimals: int) -> bytes:
    return _option_key(authority) + struct.pack("<QB?", supply, decimals, True) + _NONE


def pack_token_account(mint: Pubkey, owner: Pubkey, amount: int) -> bytes:
    state_initialized = 1
    return (
        bytes(mint)
        + bytes(owner)
        + struct.pack("<Q", amount)
        + _NONE  # delegate
        + bytes([state_initialized])
        + b"\x00" * 12  # is_native: None
        + struct.pack("<Q", 0)  # delegated amount
        + _NONE  # close authority
    )


def ata(owner: Pubkey, mint: Pubkey) -> Pubkey:
    return get_associated_token_address(owner, mint)


def read_mint(data: bytes) -> Mint | None:
    if len(data) < MINT_SIZE:
        return None
    try:
        return Mint.from_bytes(data[:MINT_SIZE])
    except Exception:  # not a mint
        return None


def read_token_account(data: bytes) -> TokenAccount | None:
    if len(data) < TOKEN_ACCOUNT_SIZE:
        return None
    try:
        return TokenAccount.from_bytes(data[:TOKEN_ACCOUNT_SIZE])
    except Exception:
        return None


def ui_amount(amount: int, decimals: int) -> dict[str, Any]:
    """The `uiTokenAmount` object of the public RPC."""
    text = str(amount)
    if decimals:
        text = text.rjust(decimals + 1, "0")
        text = (text[:-decimals] + "." + text[-decimals:]).rstrip("0").rstrip(".")
    return {
        "amount": str(amount),
        "decimals": decimals,
        "uiAmount": amount / 10**decimals,
        "uiAmountString": text,
    }


def parsed_account(owner: Pubkey, data: bytes, decimals_of: Any) -> dict[str, Any] | None:
    """`jsonParsed` data of a token account or mint (None for anything else).
    `decimals_of(mint)` gives a mint's decimals."""
    if owner not in TOKEN_PROGRAMS:
        return None
    program = "spl-token" if owner == TOKEN_PROGRAM else "spl-token-2022"
    if len(data) == MINT_SIZE:
        mint = read_mint(data)
        if mint is None:
            return None
        info: dict[str, Any] = {
            "decimals": mint.decimals,
            "freezeAuthority": None
            if mint.freeze_authority is None
            else str(mint.freeze_authority),
            "isInitialized": mint.is_initialized,
            "mintAuthority": None if mint.mint_authority is None else str(mint.mint_authority),
            "supply": str(mint.supply),
        }
        return {"program": program, "parsed": {"info": info, "type": "mint"}, "space": len(data)}
    account = read_token_account(data)
    if account is None:
        return None
    states = {0: "uninitialized", 1: "initialized", 2: "frozen"}
    info = {
        "isNative": account.is_native is not None,
        "mint": str(account.mint),
        "owner": str(account.owner),
        "state": states.get(int(account.state), "initialized"),
        "tokenAmount": ui_amount(account.amount, decimals_of(account.mint)),
    }
    return {"program": program, "parsed": {"info": info, "type": "account"}, "space": len(data)}
