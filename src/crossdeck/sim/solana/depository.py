"""The service's Solana depository, in the public program's instruction layout, emulated.

The public program (Anchor, `relayprotocol/relay-depository`) cannot be built or loaded here,
so the world keeps its public program id and account addresses (the config and vault PDAs of
that id) and executes its two deposit instructions itself: `parse_deposit` holds an
instruction to the accounts and data the program's constraints require (refusing it with the
Anchor error code the program would return), and `replacement` gives the System or SPL Token
instructions the program would invoke, which the chain runs in the instruction's place within
the same transaction (atomic with the rest). The program's `DepositEvent` is logged as Anchor
emits it (`Program data: <base64>`).
"""

from __future__ import annotations

import base64
import hashlib
import struct
from dataclasses import dataclass

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer

from crossdeck.sim.solana.spl import (
    ASSOCIATED_TOKEN_PROGRAM,
    SYSTEM_PROGRAM,
    TOKEN_PROGRAMS,
    ata,
)


@dataclass(frozen=True)
class Program:
    """The depository as deployed on one SVM chain: its program id and the config and vault
    accounts derived from it (each chain's /chains entry names its id as
    `protocol.v2.depository`)."""

    program_id: Pubkey
    config: Pubkey
    vault: Pubkey

    @classmethod
    def at(cls, program_id: Pubkey) -> Program:
        config, _ = Pubkey.find_program_address([b"relay_depository"], program_id)
        vault, _ = Pubkey.find_program_address([b"vault"], program_id)
        return cls(program_id, config, vault)


# the public program's id on Solana (relay-depository's Anchor.toml, solana.md)
SOLANA = Program.at(Pubkey.from_string("99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2"))
PROGRAM_ID, CONFIG, VAULT = SOLANA.program_id, SOLANA.config, SOLANA.vault


def _discriminator(name: str) -> bytes:
    return hashlib.sha256(f"global:{name}".encode()).digest()[:8]


DEPOSIT_NATIVE = _discriminator("deposit_native")
DEPOSIT_TOKEN = _discriminator("deposit_token")
DEPOSIT_EVENT = hashlib.sha256(b"event:DepositEvent").digest()[:8]
DATA_SIZE = 8 + 8 + 32

# Anchor's framework errors and the program's own (6000 + position in `CustomError`)
INSTRUCTION_DID_NOT_DESERIALIZE = 102
INSTRUCTION_FALLBACK_NOT_FOUND = 101
CONSTRAINT_MUT = 2000
CONSTRAINT_SEEDS = 2006
CONSTRAINT_ASSOCIATED = 2009
NOT_ENOUGH_KEYS = 3005
INVALID_PROGRAM_ID = 3008
ACCOUNT_NOT_SIGNER = 3010
INVALID_MINT = 6001
INVALID_TOKEN_PROGRAM = 6002
INVALID_VAULT_TOKEN_ACCOUNT = 6010


class DepositRefused(Exception):
    """The program would fail this instruction with Anchor error `code`."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Deposit:
    """One deposit instruction, read: what the program would move and log."""

    amount: int
    order_id: bytes  # 32 bytes: the service's request id
    sender: Pubkey
    depositor: Pubkey
    mint: Pubkey | None = None  # None: SOL
    sender_token_account: Pubkey | None = None
    vault_token_account: Pubkey | None = None
    token_program: Pubkey | None = None

    def event_log(self) -> str:
        token = b"\x00" if self.mint is None else b"\x01" + bytes(self.mint)
        body = bytes(self.depositor) + token + struct.pack("<Q", self.amount) + self.order_id
        return "Program data: " + base64.b64encode(DEPOSIT_EVENT + body).decode()


Meta = tuple[Pubkey, bool, bool]  # pubkey, is_signer, is_writable


def deposit_data(discriminator: bytes, amount: int, order_id: bytes) -> bytes:
    return discriminator + struct.pack("<Q", amount) + order_id


def native_instruction(
    sender: Pubkey, depositor: Pubkey, amount: int, order_id: bytes, program: Program = SOLANA
) -> Instruction:
    """`deposit_native` as the service's quote carries it."""
    keys = [
        AccountMeta(program.config, False, False),
        AccountMeta(sender, True, True),
        AccountMeta(depositor, False, False),
        AccountMeta(program.vault, False, True),
        AccountMeta(SYSTEM_PROGRAM, False, False),
    ]
    return Instruction(program.program_id, deposit_data(DEPOSIT_NATIVE, amount, order_id), keys)


def token_instruction(
    sender: Pubkey,
    depositor: Pubkey,
    mint: Pubkey,
    amount: int,
    order_id: bytes,
    token_program: Pubkey = TOKEN_PROGRAMS[0],
    program: Program = SOLANA,
) -> Instruction:
    """`deposit_token` as the service's quote carries it."""
    keys = [
        AccountMeta(program.config, False, False),
        AccountMeta(sender, True, True),
        AccountMeta(depositor, False, False),
        AccountMeta(program.vault, False, False),
        AccountMeta(mint, False, False),
        AccountMeta(ata(sender, mint), False, True),
        AccountMeta(ata(program.vault, mint), False, True),
        AccountMeta(token_program, False, False),
        AccountMeta(ASSOCIATED_TOKEN_PROGRAM, False, False),
        AccountMeta(SYSTEM_PROGRAM, False, False),
    ]
    return Instruction(program.program_id, deposit_data(DEPOSIT_TOKEN, amount, order_id), keys)


def parse_deposit(accounts: list[Meta], data: bytes, program: Program = SOLANA) -> Deposit:
    """Hold one instruction to the depository program to its constraints."""
    head = data[:8]
    if head not in (DEPOSIT_NATIVE, DEPOSIT_TOKEN):
        raise DepositRefused(INSTRUCTION_FALLBACK_NOT_FOUND, "Fallback functions are not supported")
    if len(data) != DATA_SIZE:
        raise DepositRefused(
            INSTRUCTION_DID_NOT_DESERIALIZE,
            "The program could not deserialize the given instruction",
        )
    (amount,) = struct.unpack("<Q", data[8:16])
    order_id = data[16:48]
    native = head == DEPOSIT_NATIVE
    if len(accounts) < (5 if native else 10):
        raise DepositRefused(NOT_ENOUGH_KEYS, "Not enough account keys given to the instruction")
    config, sender, depositor, vault = accounts[:4]
    if config[0] != program.config:
        raise DepositRefused(CONSTRAINT_SEEDS, "A seeds constraint was violated (relay_depository)")
    if not sender[1]:
        raise DepositRefused(ACCOUNT_NOT_SIGNER, "The given account did not sign (sender)")
    if not sender[2]:
        raise DepositRefused(CONSTRAINT_MUT, "A mut constraint was violated (sender)")
    if vault[0] != program.vault:
        raise DepositRefused(CONSTRAINT_SEEDS, "A seeds constraint was violated (vault)")
    if native:
        if not vault[2]:
            raise DepositRefused(CONSTRAINT_MUT, "A mut constraint was violated (vault)")
        if accounts[4][0] != SYSTEM_PROGRAM:
            raise DepositRefused(INVALID_PROGRAM_ID, "Program ID was not as expected (system)")
        return Deposit(amount, order_id, sender[0], depositor[0])
    mint, sender_ta, vault_ta, token_program, ata_program, system = accounts[4:10]
    if token_program[0] not in TOKEN_PROGRAMS:
        raise DepositRefused(INVALID_TOKEN_PROGRAM, "Invalid token program")
    if ata_program[0] != ASSOCIATED_TOKEN_PROGRAM or system[0] != SYSTEM_PROGRAM:
        raise DepositRefused(INVALID_PROGRAM_ID, "Program ID was not as expected")
    if sender_ta[0] != ata(sender[0], mint[0]):
        raise DepositRefused(
            CONSTRAINT_ASSOCIATED, "An associated constraint was violated (sender_token_account)"
        )
    if not sender_ta[2] or not vault_ta[2]:
        raise DepositRefused(CONSTRAINT_MUT, "A mut constraint was violated (token accounts)")
    if vault_ta[0] != ata(program.vault, mint[0]):
        raise DepositRefused(INVALID_VAULT_TOKEN_ACCOUNT, "Invalid vault token account")
    return Deposit(
        amount,
        order_id,
        sender[0],
        depositor[0],
        mint=mint[0],
        sender_token_account=sender_ta[0],
        vault_token_account=vault_ta[0],
        token_program=token_program[0],
    )


def replacement(
    deposit: Deposit, decimals: int | None, program: Program = SOLANA
) -> list[Instruction]:
    """What the program invokes for `deposit`: a System transfer to the vault, or a
    TransferChecked of the mint into the vault's token account (which the world keeps created).
    `decimals` is the mint's (None when the mint is no mint: the program's InvalidMint)."""
    if deposit.mint is None:
        return [
            transfer(
                TransferParams(
                    from_pubkey=deposit.sender, to_pubkey=program.vault, lamports=deposit.amount
                )
            )
        ]
    if decimals is None:
        raise DepositRefused(INVALID_MINT, "Invalid mint")
    assert deposit.sender_token_account is not None and deposit.vault_token_account is not None
    assert deposit.token_program is not None
    transfer_checked = 12
    return [
        Instruction(
            deposit.token_program,
            bytes([transfer_checked]) + struct.pack("<QB", deposit.amount, decimals),
            [
                AccountMeta(deposit.sender_token_account, False, True),
                AccountMeta(deposit.mint, False, False),
                AccountMeta(deposit.vault_token_account, False, True),
                AccountMeta(deposit.sender, True, False),
            ],
        )
    ]
