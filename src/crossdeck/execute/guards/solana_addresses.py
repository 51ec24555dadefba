"""Solana addresses derived, never taken on a quote's word.

- An associated token account is the program address of (owner, token program, mint) under
  the Associated Token Account program: a token account a quote says is the wallet's own is
  compared with that derivation (a "fake ATA" is any other address).
- The depository's accounts are derived as its public program derives them
  (`relay-depository`, `programs/relay-depository/src/lib.rs`): the config account from the seed
  `relay_depository`, the vault from the seed `vault`, both under the program id, and the
  vault's token account for a mint as the vault's associated token account under the token
  program the deposit names (the program requires exactly that address:
  `InvalidVaultTokenAccount`, and creates it, paid by the sender, when it is missing).
  Each SVM chain has its depository's program id (/chains' `protocol.v2.depository`): the
  accounts are derived under the one of the chain the item is for.
"""

from __future__ import annotations

from functools import cache

from crossdeck.models.solana import (
    ASSOCIATED_TOKEN_PROGRAM,
    DEPOSITORY_PROGRAM,
    TOKEN_2022_PROGRAM,
    TOKEN_PROGRAM,
)

TOKEN_PROGRAMS = (TOKEN_PROGRAM, TOKEN_2022_PROGRAM)
CONFIG_SEED = b"relay_depository"
VAULT_SEED = b"vault"
# the rent-exempt minimum of the accounts a deposit may create (the default rent: 3480
# lamports per byte-year, two years, 128 bytes of account overhead): an SPL Token account is
# 165 bytes, a Token-2022 associated account 170 (with its ImmutableOwner extension)
TOKEN_ACCOUNT_RENT = {
    TOKEN_PROGRAM: (128 + 165) * 3480 * 2,
    TOKEN_2022_PROGRAM: (128 + 170) * 3480 * 2,
}


def _program_address(seeds: list[bytes], program: str) -> str:
    from solders.pubkey import Pubkey

    address, _bump = Pubkey.find_program_address(seeds, Pubkey.from_string(program))
    return str(address)


@cache
def associated_token_account(owner: str, mint: str, token_program: str) -> str | None:
    """The associated token account of `owner` for `mint` under `token_program`; None when a
    key is not a key."""
    from solders.pubkey import Pubkey

    try:
        seeds = [bytes(Pubkey.from_string(k)) for k in (owner, token_program, mint)]
    except ValueError:
        return None
    return _program_address(seeds, ASSOCIATED_TOKEN_PROGRAM)


@cache
def depository_config(program: str = DEPOSITORY_PROGRAM) -> str:
    return _program_address([CONFIG_SEED], program)


@cache
def depository_vault(program: str = DEPOSITORY_PROGRAM) -> str:
    return _program_address([VAULT_SEED], program)


def vault_token_account(
    mint: str, token_program: str, program: str = DEPOSITORY_PROGRAM
) -> str | None:
    return associated_token_account(depository_vault(program), mint, token_program)
