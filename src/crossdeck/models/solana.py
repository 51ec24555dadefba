"""A Solana step item and what its instructions say, read without any Solana library.

The public service's Solana item (`relay-kit`'s `TransactionStepItem`, solana.md) is
`{instructions: [{programId, keys: [{pubkey, isSigner, isWritable}], data}],
addressLookupTableAddresses: [..]}`, `data` being hex without `0x`. `decode` reads each
instruction of the programs crossdeck knows into a `Decoded` (its name, its fields, words
for a person) and raises `Undecodable` naming the program of any other: an instruction
nobody here can read is never signed.

The depository's two instructions follow its Anchor layout (`relay-depository`'s `lib.rs`):
an 8-byte discriminator (the first 8 bytes of sha256("global:<name>")), the amount as u64
little-endian, then the 32-byte order id; accounts: config, sender (signer), depositor,
vault, then for a token mint, sender token account, vault token account, token program,
associated token program, system program (the native form: system program).
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from dataclasses import dataclass, field

from pydantic import Field

from crossdeck.models.base import WireModel, new_list
from crossdeck.models.base58 import b58decode, b58encode

SYSTEM_PROGRAM = "11111111111111111111111111111111"
TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111"
MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"
# the service's depository program on Solana (public: relay-depository, solana.md); another SVM
# chain's is the one its /chains entry names (`protocol.v2.depository`): `decode` is told it
DEPOSITORY_PROGRAM = "99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2"
DEPOSIT_NAMES = ("deposit_native", "deposit_token")
LAMPORTS_DECIMALS = 9


def _anchor_discriminator(name: str) -> bytes:
    return hashlib.sha256(f"global:{name}".encode()).digest()[:8]


DEPOSIT_NATIVE = _anchor_discriminator("deposit_native")
DEPOSIT_TOKEN = _anchor_discriminator("deposit_token")

PROGRAM_NAMES = {
    SYSTEM_PROGRAM: "System",
    TOKEN_PROGRAM: "SPL Token",
    TOKEN_2022_PROGRAM: "SPL Token-2022",
    ASSOCIATED_TOKEN_PROGRAM: "Associated Token Account",
    COMPUTE_BUDGET_PROGRAM: "Compute Budget",
    DEPOSITORY_PROGRAM: "the service's depository",
}


class SolanaAccountMeta(WireModel):
    pubkey: str
    is_signer: bool = False
    is_writable: bool = False


class SolanaInstruction(WireModel):
    program_id: str
    keys: list[SolanaAccountMeta] = Field(default_factory=new_list)
    data: str = ""

    def data_bytes(self) -> bytes:
        """`data` as bytes: hex without '0x' (the public form; '0x' is tolerated);
        `ValueError` when it is not hex."""
        text = self.data.removeprefix("0x")
        return bytes.fromhex(text)


class SolanaTransactionData(WireModel):
    """A Solana item: instructions to put in one v0 message, and the lookup tables it uses."""

    instructions: list[SolanaInstruction] = Field(default_factory=new_list)
    address_lookup_table_addresses: list[str] = Field(default_factory=new_list)

    def signers(self) -> list[str]:
        """Every key an instruction marks as a signer, in first-seen order."""
        seen: list[str] = []
        for instruction in self.instructions:
            for key in instruction.keys:
                if key.is_signer and key.pubkey not in seen:
                    seen.append(key.pubkey)
        return seen


class Undecodable(ValueError):
    """An instruction crossdeck cannot read (another program, or data its program would not
    take); its message names the program."""


@dataclass(frozen=True)
class Decoded:
    """One instruction, read: `name` (e.g. 'deposit_token'), its fields, and words."""

    program: str
    name: str
    words: str
    fields: dict[str, object] = field(default_factory=dict)
    moves: tuple[Movement, ...] = ()


@dataclass(frozen=True)
class Movement:
    """Value an instruction takes from one of the signer's accounts: lamports, or tokens
    of `mint` (None: unknown until the token account is read) from `source`."""

    source: str
    destination: str
    amount: int
    mint: str | None = None  # None with lamports=True: SOL
    lamports: bool = True


def program_name(program_id: str, depository: str = DEPOSITORY_PROGRAM) -> str:
    if program_id == depository:
        return "the service's depository"
    if program_id == DEPOSITORY_PROGRAM:
        return f"Solana's depository {program_id}"  # on another SVM chain: not its depository
    return PROGRAM_NAMES.get(program_id, f"program {program_id}")


def _key(instruction: SolanaInstruction, index: int, what: str) -> str:
    if index >= len(instruction.keys):
        raise Undecodable(
            f"{program_name(instruction.program_id)}: the instruction lacks its {what} account"
        )
    return instruction.keys[index].pubkey


def _u64(data: bytes, offset: int, what: str, program: str) -> int:
    if len(data) < offset + 8:
        raise Undecodable(f"{program_name(program)}: {what} is cut short")
    return int(struct.unpack_from("<Q", data, offset)[0])


def _depository(instruction: SolanaInstruction, data: bytes) -> Decoded:
    program = instruction.program_id
    head = data[:8]
    if head not in (DEPOSIT_NATIVE, DEPOSIT_TOKEN):
        raise Undecodable(
            f"the depository instruction {head.hex() or '(empty)'} is neither deposit_native "
            "nor deposit_token"
        )
    if len(data) != 48:
        raise Undecodable(
            f"a depository deposit is 48 bytes (discriminator, amount, order id), this is "
            f"{len(data)}"
        )
    amount = _u64(data, 8, "the amount", program)
    order_id = "0x" + data[16:48].hex()
    sender = _key(instruction, 1, "sender")
    depositor = _key(instruction, 2, "depositor")
    vault = _key(instruction, 3, "vault")
    if head == DEPOSIT_NATIVE:
        return Decoded(
            program,
            "deposit_native",
            f"deposit {amount} lamports of SOL from {sender} to the depository's vault {vault},"
            f" credited to {depositor}, for order {order_id}",
            {"amount": amount, "orderId": order_id, "sender": sender, "depositor": depositor,
             "vault": vault, "mint": None, "config": _key(instruction, 0, "config"),
             "programs": [_key(instruction, 4, "system program")]},
            (Movement(sender, vault, amount),),
        )  # fmt: skip
    config = _key(instruction, 0, "config")
    mint = _key(instruction, 4, "mint")
    source = _key(instruction, 5, "sender token account")
    destination = _key(instruction, 6, "vault token account")
    token_program = _key(instruction, 7, "token program")
    return Decoded(
        program,
        "deposit_token",
        f"deposit {amount} units of mint {mint} from {sender}'s token account {source} to "
        f"the depository's {destination}, credited to {depositor}, for order {order_id}",
        {"amount": amount, "orderId": order_id, "sender": sender, "depositor": depositor,
         "vault": vault, "mint": mint, "source": source, "vaultTokenAccount": destination,
         "tokenProgram": token_program, "config": config,
         "programs": [_key(instruction, 8, "associated token program"),
                      _key(instruction, 9, "system program")]},
        (Movement(source, destination, amount, mint=mint, lamports=False),),
    )  # fmt: skip


def _system(instruction: SolanaInstruction, data: bytes) -> Decoded:
    program = instruction.program_id
    if len(data) < 4:
        raise Undecodable("System: the instruction has no index")
    index = int(struct.unpack_from("<I", data, 0)[0])
    if index == 2:  # Transfer { lamports }
        lamports = _u64(data, 4, "the lamports", program)
        source, destination = _key(instruction, 0, "from"), _key(instruction, 1, "to")
        return Decoded(
            program,
            "transfer",
            f"transfer {lamports} lamports of SOL from {source} to {destination}",
            {"lamports": lamports, "from": source, "to": destination},
            (Movement(source, destination, lamports),),
        )
    return _system_other(instruction, data, index)


# System instructions read only to be named in a refusal: none of them belongs in a deposit
_NONCE_INSTRUCTIONS = {4: "advanceNonceAccount", 5: "withdrawNonceAccount",
                       6: "initializeNonceAccount", 7: "authorizeNonceAccount",
                       12: "upgradeNonceAccount"}  # fmt: skip


def _system_other(instruction: SolanaInstruction, data: bytes, index: int) -> Decoded:
    program = instruction.program_id
    if index == 0:  # CreateAccount { lamports, space, owner }: funding, new account
        lamports = _u64(data, 4, "the lamports", program)
        space = _u64(data, 12, "the space", program)
        owner = key_text(data[20:52]) if len(data) >= 52 else "?"
        payer, account = _key(instruction, 0, "funding"), _key(instruction, 1, "new account")
        return Decoded(
            program, "createAccount",
            f"create account {account} of {space} bytes owned by {program_name(owner)}, "
            f"funded with {lamports} lamports by {payer}",
            {"payer": payer, "account": account, "lamports": lamports, "owner": owner},
        )  # fmt: skip
    if index == 3:  # CreateAccountWithSeed { base, seed, lamports, space, owner }
        payer, account = _key(instruction, 0, "funding"), _key(instruction, 1, "new account")
        seed_length = _u64(data, 36, "the seed", program)
        lamports = _u64(data, 44 + seed_length, "the lamports", program)
        return Decoded(
            program, "createAccountWithSeed",
            f"create account {account} (from a seed), funded with {lamports} lamports by "
            f"{payer}",
            {"payer": payer, "account": account, "lamports": lamports},
        )  # fmt: skip
    if index in _NONCE_INSTRUCTIONS:
        name = _NONCE_INSTRUCTIONS[index]
        account = _key(instruction, 0, "nonce account")
        return Decoded(program, name, f"{name} on durable nonce account {account}",
                       {"account": account})  # fmt: skip
    if index in (1, 8, 9, 10):  # Assign, Allocate and their seeded forms
        name = {1: "assign", 8: "allocate", 9: "allocateWithSeed", 10: "assignWithSeed"}[index]
        account = _key(instruction, 0, "account")
        return Decoded(program, name, f"{name} account {account}", {"account": account})
    if index == 11:  # TransferWithSeed { lamports, seed, owner }: from, base, to
        lamports = _u64(data, 4, "the lamports", program)
        source, destination = _key(instruction, 0, "from"), _key(instruction, 2, "to")
        return Decoded(
            program, "transferWithSeed",
            f"transfer {lamports} lamports from seeded account {source} to {destination}",
            {"lamports": lamports, "from": source, "to": destination},
            (Movement(source, destination, lamports),),
        )  # fmt: skip
    raise Undecodable(f"System: instruction {index} is not one crossdeck reads")


def _token(instruction: SolanaInstruction, data: bytes) -> Decoded:
    program = instruction.program_id
    if not data:
        raise Undecodable(f"{program_name(program)}: the instruction has no index")
    index = data[0]
    if index == 3:  # Transfer { amount }: source, destination, owner
        amount = _u64(data, 1, "the amount", program)
        source, destination = _key(instruction, 0, "source"), _key(instruction, 1, "destination")
        owner = _key(instruction, 2, "owner")
        return Decoded(
            program,
            "transfer",
            f"transfer {amount} token units from {source} to {destination} (owner {owner})",
            {"amount": amount, "source": source, "destination": destination, "owner": owner},
            (Movement(source, destination, amount, lamports=False),),
        )
    if index == 12:  # TransferChecked { amount, decimals }: source, mint, destination, owner
        amount = _u64(data, 1, "the amount", program)
        decimals = data[9] if len(data) > 9 else None
        source, mint = _key(instruction, 0, "source"), _key(instruction, 1, "mint")
        destination, owner = _key(instruction, 2, "destination"), _key(instruction, 3, "owner")
        return Decoded(
            program,
            "transferChecked",
            f"transfer {amount} units of mint {mint} ({decimals} decimals) from {source} to "
            f"{destination} (owner {owner})",
            {"amount": amount, "decimals": decimals, "mint": mint, "source": source,
             "destination": destination, "owner": owner},
            (Movement(source, destination, amount, mint=mint, lamports=False),),
        )  # fmt: skip
    if index == 9:  # CloseAccount: account, destination, owner (the rent goes back)
        account, destination = _key(instruction, 0, "account"), _key(instruction, 1, "to")
        owner = _key(instruction, 2, "owner")
        return Decoded(
            program,
            "closeAccount",
            f"close token account {account}, its lamports and rent to {destination}",
            {"account": account, "destination": destination, "owner": owner},
        )
    if index == 17:  # SyncNative: a wrapped-SOL account's balance follows its lamports
        account = _key(instruction, 0, "account")
        words = f"sync wrapped SOL in {account}"
        return Decoded(program, "syncNative", words, {"account": account})
    return _token_authority(instruction, data, index)


_AUTHORITY_TYPES = {0: "mint tokens", 1: "freeze the account", 2: "own the account",
                    3: "close the account"}  # fmt: skip


def _token_authority(instruction: SolanaInstruction, data: bytes, index: int) -> Decoded:
    """Approve, ApproveChecked, Revoke and SetAuthority: read to be refused by name, since each
    hands (or takes back) control of a token account, which no deposit needs."""
    program = instruction.program_id
    if index in (4, 13):  # Approve { amount }: source, delegate, owner; Checked adds the mint
        amount = _u64(data, 1, "the amount", program)
        checked = index == 13
        account = _key(instruction, 0, "source")
        delegate = _key(instruction, 2 if checked else 1, "delegate")
        owner = _key(instruction, 3 if checked else 2, "owner")
        name = "approveChecked" if checked else "approve"
        return Decoded(
            program, name,
            f"let {delegate} spend up to {amount} units from token account {account} "
            f"(owner {owner})",
            {"account": account, "delegate": delegate, "owner": owner, "amount": amount},
        )  # fmt: skip
    if index == 5:  # Revoke: source, owner
        account = _key(instruction, 0, "source")
        return Decoded(program, "revoke", f"revoke the delegate of token account {account}",
                       {"account": account})  # fmt: skip
    if index == 6:  # SetAuthority { type u8, new COption<Pubkey> }: account, current authority
        if len(data) < 3:
            raise Undecodable(f"{program_name(program)}: setAuthority is cut short")
        what = _AUTHORITY_TYPES.get(data[1], f"authority type {data[1]}")
        new = key_text(data[3:35]) if data[2] == 1 and len(data) >= 35 else None
        account = _key(instruction, 0, "account")
        return Decoded(
            program, "setAuthority",
            f"give {new or 'nobody'} the right to {what} {account}",
            {"account": account, "newAuthority": new, "authorityType": what},
        )  # fmt: skip
    raise Undecodable(
        f"{program_name(program)}: instruction {index} is not one crossdeck reads (transfer, "
        "transferChecked, closeAccount, syncNative)"
    )


def _associated(instruction: SolanaInstruction, data: bytes) -> Decoded:
    # Create (empty data or 0) / CreateIdempotent (1): payer, account, owner, mint, system,
    # token program
    if data not in (b"", b"\x00", b"\x01"):
        raise Undecodable(f"Associated Token Account: instruction {data[:1].hex()} is not a create")
    payer, account = _key(instruction, 0, "payer"), _key(instruction, 1, "account")
    owner, mint = _key(instruction, 2, "owner"), _key(instruction, 3, "mint")
    token_program = _key(instruction, 5, "token program")
    name = "createIdempotent" if data == b"\x01" else "create"
    return Decoded(
        instruction.program_id,
        name,
        f"create {owner}'s token account {account} for mint {mint} (rent paid by {payer})",
        {"payer": payer, "account": account, "owner": owner, "mint": mint,
         "tokenProgram": token_program},
    )  # fmt: skip


def _compute_budget(instruction: SolanaInstruction, data: bytes) -> Decoded:
    program = instruction.program_id
    if not data:
        raise Undecodable("Compute Budget: the instruction has no index")
    index = data[0]
    if index == 2 and len(data) >= 5:
        units = int(struct.unpack_from("<I", data, 1)[0])
        return Decoded(program, "setComputeUnitLimit", f"set a limit of {units} compute units",
                       {"units": units})  # fmt: skip
    if index == 3 and len(data) >= 9:
        price = int(struct.unpack_from("<Q", data, 1)[0])
        return Decoded(
            program,
            "setComputeUnitPrice",
            f"pay a priority fee of {price} micro-lamports per compute unit",
            {"microLamports": price},
        )
    raise Undecodable(f"Compute Budget: instruction {index} is not one crossdeck reads")


_DECODERS = {
    SYSTEM_PROGRAM: _system,
    TOKEN_PROGRAM: _token,
    TOKEN_2022_PROGRAM: _token,
    ASSOCIATED_TOKEN_PROGRAM: _associated,
    COMPUTE_BUDGET_PROGRAM: _compute_budget,
}


def decode(
    instruction: SolanaInstruction, depository: str = DEPOSITORY_PROGRAM, native: str = "SOL"
) -> Decoded:
    """What `instruction` does, in fields and words; `Undecodable` naming its program when
    crossdeck cannot read it. `depository`: the depository program of the chain the item is
    for (an instruction for any other chain's depository is not read: it is refused);
    `native`: the symbol of that chain's native currency, whose smallest unit is a lamport on
    every SVM chain (SOL on Solana, ETH on Eclipse)."""
    program = instruction.program_id
    decoder = _depository if program == depository else _DECODERS.get(program)
    if decoder is None:
        if program == DEPOSITORY_PROGRAM:
            raise Undecodable(
                f"an instruction for Solana's depository {program}, which is not the "
                f"depository of this chain ({depository})"
            )
        raise Undecodable(f"an instruction for program {program}, which crossdeck cannot read")
    try:
        data = instruction.data_bytes()
    except ValueError:
        raise Undecodable(f"{program_name(instruction.program_id)}: its data is not hex") from None
    decoded = decoder(instruction, data)
    if native != "SOL":  # the words are written for Solana: say the chain's own currency
        words = decoded.words.replace("lamports of SOL", f"lamports of {native}")
        decoded = dataclasses.replace(decoded, words=words)
    return decoded


def order_id_bytes(order_id: str) -> bytes | None:
    """A quote's order id (0x + 64 hex) as the 32 bytes an instruction carries, else None."""
    text = order_id.removeprefix("0x")
    if len(text) != 64:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def is_key(text: str) -> bool:
    """Whether `text` is a Solana key (base58 of 32 bytes)."""
    try:
        return len(b58decode(text)) == 32
    except ValueError:
        return False


def key_bytes(text: str) -> bytes:
    return b58decode(text)


def key_text(raw: bytes) -> str:
    return b58encode(raw)
