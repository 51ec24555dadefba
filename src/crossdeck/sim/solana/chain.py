"""The world's Solana: LiteSVM with slots, blockhashes, a transaction history and the depository.

LiteSVM (bundled in `solders`) runs the real System, SPL Token, Token-2022, ATA and lookup-table
programs but has no clock, no blockhash expiry and no history an RPC could serve, so this class
adds them: a slot every `slot_seconds` of wall time, a blockhash per slot valid for 150 blocks
(as on mainnet), the record of every transaction (slot, time, fee, balances before and after,
logs) and its status. Signatures are verified here (LiteSVM runs with sigverify off) because a
transaction that calls the service's depository is executed in a rewritten form (see
`depository.py`) whose message the user never signed; the user's signature remains its id.

Calls are synchronous and NOT thread-safe: the JSON-RPC server runs them one at a time.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solders.account import Account
from solders.address_lookup_table_account import (
    ID as LOOKUP_TABLE_PROGRAM,
)
from solders.address_lookup_table_account import (
    AddressLookupTable,
    AddressLookupTableAccount,
)
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.litesvm import LiteSVM
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata, TransactionMetadata

from crossdeck.sim.solana import depository
from crossdeck.sim.solana.spl import (
    SYSTEM_PROGRAM,
    TOKEN_PROGRAM,
    TOKEN_PROGRAMS,
    ata,
    pack_mint,
    pack_token_account,
    read_mint,
    read_token_account,
    ui_amount,
)

PACKET_DATA_SIZE = 1232
BLOCKHASH_VALID_BLOCKS = 150
LAMPORTS_PER_SIGNATURE = 5000
SLOT_SECONDS = 0.4
FIRST_SLOT = 300_000_000
MAX_HISTORY = 100_000  # transactions kept for getTransaction / getSignatureStatuses
_KEPT_OWNERS = (SYSTEM_PROGRAM, *TOKEN_PROGRAMS, LOOKUP_TABLE_PROGRAM)


class TxRejected(Exception):
    """The transaction cannot be executed at all (as a node refuses it before execution):
    `err` is the TransactionError in RPC JSON, `logs` what simulation logged."""

    def __init__(self, err: Any, message: str, logs: list[str] | None = None) -> None:
        super().__init__(message)
        self.err = err
        self.message = message
        self.logs = logs or []


class BadTransaction(Exception):
    """The bytes are no transaction (the RPC's invalid params)."""


@dataclass(frozen=True)
class DepositSeen:
    """A depository deposit that executed: where, and what the program logged."""

    signature: str
    slot: int
    deposit: depository.Deposit


@dataclass
class _Prepared:
    tx: VersionedTransaction  # as signed by the user
    executable: VersionedTransaction  # what LiteSVM runs
    keys: list[Pubkey]  # static + loaded writable + loaded readonly
    loaded: dict[str, list[str]]
    deposits: dict[int, depository.Deposit]  # top-level instruction index -> deposit


def _err_json(result: FailedTransactionMetadata) -> Any:
    return json.loads(result.to_json())["err"]


def _instruction_error(index: int, code: int) -> dict[str, Any]:
    return {"InstructionError": [index, {"Custom": code}]}


class SolanaChain:
    def __init__(
        self,
        *,
        state_file: Path | None = None,
        slot_seconds: float = SLOT_SECONDS,
        clock: Callable[[], float] = time.time,
        program: depository.Program = depository.SOLANA,
    ) -> None:
        self.program = program  # the depository as deployed on this chain
        self.svm = LiteSVM()
        self.svm.with_sigverify(False)  # verified here, over what the user signed
        self.svm.with_blockhash_check(False)  # blockhashes expire by slot here
        self.slot_seconds = slot_seconds
        self._clock = clock
        self.genesis_time = clock()
        self.records: dict[str, dict[str, Any]] = {}  # signature -> record
        self.deposits: list[DepositSeen] = []
        self._blockhashes: dict[str, int] = {}  # blockhash -> slot it was issued for
        self._touched: set[Pubkey] = set()
        self.state_file = state_file
        self.restored = state_file is not None and state_file.exists()
        if self.restored:
            assert state_file is not None
            self._restore(state_file)
        self._dirty = False

    # ---- time -------------------------------------------------------------------------

    def slot(self) -> int:
        elapsed = max(0.0, self._clock() - self.genesis_time)
        slot = FIRST_SLOT + int(elapsed / self.slot_seconds) if self.slot_seconds else FIRST_SLOT
        if slot > self.svm.get_clock().slot:
            self.svm.warp_to_slot(slot)
        return slot

    def block_height(self) -> int:
        return self.slot() - FIRST_SLOT

    def block_time(self) -> int:
        return int(self._clock())

    def latest_blockhash(self) -> tuple[str, int]:
        """The current slot's blockhash and the last block height it is valid at."""
        slot = self.slot()
        digest = hashlib.sha256(b"crossdeck-sim solana " + str(slot).encode()).digest()
        blockhash = str(Hash(digest))
        if blockhash not in self._blockhashes:
            self._blockhashes[blockhash] = slot
            if len(self._blockhashes) > 4 * BLOCKHASH_VALID_BLOCKS:
                oldest = sorted(self._blockhashes.items(), key=lambda item: item[1])
                for stale, _ in oldest[: len(oldest) // 2]:
                    del self._blockhashes[stale]
        return blockhash, slot - FIRST_SLOT + BLOCKHASH_VALID_BLOCKS

    def blockhash_valid(self, blockhash: str) -> bool:
        issued = self._blockhashes.get(blockhash)
        return issued is not None and self.slot() - issued <= BLOCKHASH_VALID_BLOCKS

    # ---- accounts ---------------------------------------------------------------------

    def account(self, key: Pubkey) -> Account | None:
        account = self.svm.get_account(key)
        if account is None or (account.lamports == 0 and not account.data):
            return None
        return account

    def set_account(self, key: Pubkey, account: Account) -> None:
        self.svm.set_account(key, account)
        self._touched.add(key)
        self._dirty = True

    def rent_exempt(self, size: int) -> int:
        return int(self.svm.minimum_balance_for_rent_exemption(size))

    def airdrop(self, key: Pubkey, lamports: int) -> None:
        have = self.account(key)
        base = have.lamports if have is not None else 0
        data = bytes(have.data) if have is not None else b""
        owner = have.owner if have is not None else SYSTEM_PROGRAM
        self.set_account(key, Account(base + lamports, data, owner))

    def create_mint(self, mint: Pubkey, authority: Pubkey, decimals: int, supply: int = 0) -> None:
        data = pack_mint(authority, supply, decimals)
        self.set_account(mint, Account(self.rent_exempt(len(data)), data, TOKEN_PROGRAM))

    def decimals(self, mint: Pubkey) -> int | None:
        account = self.account(mint)
        if account is None or account.owner not in TOKEN_PROGRAMS:
            return None
        parsed = read_mint(bytes(account.data))
        return None if parsed is None else parsed.decimals

    def credit_token(self, owner: Pubkey, mint: Pubkey, amount: int) -> Pubkey:
        """Mint `amount` into `owner`'s associated token account (created if missing)."""
        address = ata(owner, mint)
        current = self.account(address)
        held = 0
        if current is not None:
            parsed = read_token_account(bytes(current.data))
            held = parsed.amount if parsed is not None else 0
        data = pack_token_account(mint, owner, held + amount)
        self.set_account(address, Account(self.rent_exempt(len(data)), data, TOKEN_PROGRAM))
        mint_account = self.account(mint)
        parsed_mint = read_mint(bytes(mint_account.data)) if mint_account else None
        if parsed_mint is not None and parsed_mint.mint_authority is not None:
            data = pack_mint(
                parsed_mint.mint_authority, parsed_mint.supply + amount, parsed_mint.decimals
            )
            assert mint_account is not None
            self.set_account(mint, Account(mint_account.lamports, data, TOKEN_PROGRAM))
        return address

    def create_lookup_table(
        self, table: Pubkey, authority: Pubkey, addresses: list[Pubkey]
    ) -> None:
        """An active address lookup table (extended long enough ago to be usable)."""
        lookup_table_state = 1
        meta = (
            lookup_table_state.to_bytes(4, "little")
            + (2**64 - 1).to_bytes(8, "little")  # deactivation slot: never
            + (0).to_bytes(8, "little")  # last extended slot
            + b"\x00"  # its start index
            + b"\x01"
            + bytes(authority)
            + b"\x00\x00"  # padding to the 56-byte meta
        )
        data = meta + b"".join(bytes(a) for a in addresses)
        self.set_account(table, Account(self.rent_exempt(len(data)), data, LOOKUP_TABLE_PROGRAM))

    def token_accounts(self, owner: Pubkey) -> list[tuple[Pubkey, Account]]:
        found = []
        for program in TOKEN_PROGRAMS:
            for key, account in self.svm.get_program_accounts(program):
                parsed = read_token_account(bytes(account.data))
                if parsed is not None and len(account.data) >= 165 and parsed.owner == owner:
                    found.append((key, account))
        return found

    def token_balance(self, key: Pubkey) -> tuple[int, Pubkey] | None:
        account = self.account(key)
        if account is None or account.owner not in TOKEN_PROGRAMS:
            return None
        parsed = read_token_account(bytes(account.data))
        return None if parsed is None else (parsed.amount, parsed.mint)

    # ---- transactions -----------------------------------------------------------------

    def decode(self, raw: bytes) -> VersionedTransaction:
        if len(raw) > PACKET_DATA_SIZE:
            raise BadTransaction(
                f"base64 encoded solana_transaction::versioned::VersionedTransaction too large: "
                f"{len(raw)} bytes (max: encoded/raw {4 * ((PACKET_DATA_SIZE + 2) // 3)}/"
                f"{PACKET_DATA_SIZE})"
            )
        try:
            tx = VersionedTransaction.from_bytes(raw)
            tx.sanitize()
        except Exception as exc:
            raise BadTransaction(f"failed to deserialize transaction: {exc}") from None
        return tx

    def _lookup(self, table_key: Pubkey) -> AddressLookupTable:
        account = self.account(table_key)
        if account is None or account.owner != LOOKUP_TABLE_PROGRAM:
            raise TxRejected(
                "AddressLookupTableNotFound",
                "Transaction loads an address table account that doesn't exist",
            )
        try:
            return AddressLookupTable.deserialize(bytes(account.data))
        except Exception:
            raise TxRejected(
                "InvalidAddressLookupTableData",
                "Transaction loads an address table account with invalid data",
            ) from None

    def prepare(self, tx: VersionedTransaction) -> _Prepared:
        """Resolve the lookup tables and rewrite depository instructions into what the program
        would invoke (the transaction fails as the program would when one breaks a rule)."""
        message = tx.message
        static = list(message.account_keys)
        header = message.header
        lookups = list(message.address_table_lookups) if isinstance(message, MessageV0) else []
        tables: list[AddressLookupTableAccount] = []
        writable_loaded: list[Pubkey] = []
        readonly_loaded: list[Pubkey] = []
        for lookup in lookups:
            table = self._lookup(lookup.account_key)
            addresses = list(table.addresses)
            tables.append(AddressLookupTableAccount(lookup.account_key, addresses))
            try:
                writable_loaded += [addresses[i] for i in bytes(lookup.writable_indexes)]
                readonly_loaded += [addresses[i] for i in bytes(lookup.readonly_indexes)]
            except IndexError:
                raise TxRejected(
                    "InvalidAddressLookupTableIndex",
                    "Transaction address table lookup uses an invalid index",
                ) from None
        keys = static + writable_loaded + readonly_loaded
        signers = header.num_required_signatures
        writable_signed = signers - header.num_readonly_signed_accounts
        writable_unsigned = len(static) - header.num_readonly_unsigned_accounts

        def meta(index: int) -> tuple[Pubkey, bool, bool]:
            if index < len(static):
                writable = index < writable_signed or signers <= index < writable_unsigned
                return static[index], index < signers, writable
            return keys[index], False, index < len(static) + len(writable_loaded)

        deposits: dict[int, depository.Deposit] = {}
        instructions: list[Instruction] = []
        for position, compiled in enumerate(message.instructions):
            program = keys[compiled.program_id_index]
            metas = [meta(i) for i in bytes(compiled.accounts)]
            data = bytes(compiled.data)
            if program != self.program.program_id:
                instructions.append(
                    Instruction(program, data, [AccountMeta(k, s, w) for k, s, w in metas])
                )
                continue
            try:
                deposit = depository.parse_deposit(metas, data, self.program)
                if deposit.mint is not None:
                    self._ensure_vault_token_account(deposit.mint)
                replaced = depository.replacement(
                    deposit, self.decimals(deposit.mint) if deposit.mint else None, self.program
                )
            except depository.DepositRefused as refused:
                logs = [
                    f"Program {self.program.program_id} invoke [1]",
                    f"Program log: AnchorError occurred. Error Code: {refused.code}. "
                    f"Error Message: {refused.message}.",
                    f"Program {self.program.program_id} failed: custom program error: "
                    f"{hex(refused.code)}",
                ]
                raise TxRejected(
                    _instruction_error(position, refused.code), refused.message, logs
                ) from None
            deposits[position] = deposit
            instructions += replaced
        loaded = {
            "writable": [str(k) for k in writable_loaded],
            "readonly": [str(k) for k in readonly_loaded],
        }
        if not deposits:
            return _Prepared(tx, tx, keys, loaded, deposits)
        payer = static[0]
        blockhash = message.recent_blockhash
        rebuilt: MessageV0 | Message
        if isinstance(message, MessageV0):
            rebuilt = MessageV0.try_compile(payer, instructions, tables, blockhash)
        else:
            rebuilt = Message.new_with_blockhash(instructions, payer, blockhash)
        by_signer = dict(zip(static[:signers], tx.signatures, strict=False))
        needed = list(rebuilt.account_keys)[: rebuilt.header.num_required_signatures]
        signatures = [by_signer.get(key, Signature.default()) for key in needed]
        executable = VersionedTransaction.populate(rebuilt, signatures)
        return _Prepared(tx, executable, keys, loaded, deposits)

    def _logs(self, logs: Any, prepared: _Prepared) -> list[str]:
        return _splice_logs(list(logs), prepared.deposits, self.program.program_id)

    def _ensure_vault_token_account(self, mint: Pubkey) -> None:
        # The program creates the vault's token account when missing (paid by the sender);
        # here the world opens it itself, so the rewritten transaction stays one-for-one.
        vault = self.program.vault
        if self.account(ata(vault, mint)) is None and self.decimals(mint) is not None:
            self.credit_token(vault, mint, 0)

    def verify(self, tx: VersionedTransaction) -> bool:
        return all(tx.verify_with_results())

    def simulate(self, raw: bytes, *, sig_verify: bool, replace_blockhash: bool) -> dict[str, Any]:
        tx = self.decode(raw)
        if sig_verify and not self.verify(tx):
            raise BadTransaction("Transaction signature verification failure")
        result: dict[str, Any] = {
            "err": None,
            "logs": [],
            "accounts": None,
            "unitsConsumed": 0,
            "returnData": None,
            "innerInstructions": None,
        }
        if replace_blockhash:
            blockhash, valid = self.latest_blockhash()
            result["replacementBlockhash"] = {"blockhash": blockhash, "lastValidBlockHeight": valid}
        elif not self.blockhash_valid(str(tx.message.recent_blockhash)):
            result["err"] = "BlockhashNotFound"
            return result
        try:
            prepared = self.prepare(tx)
        except TxRejected as rejected:
            result.update(err=rejected.err, logs=rejected.logs)
            return result
        outcome = self.svm.simulate_transaction(prepared.executable)
        if isinstance(outcome, FailedTransactionMetadata):
            meta = outcome.meta()
            result["err"] = _err_json(outcome)
        else:
            meta = outcome.meta()
        result["logs"] = self._logs(meta.logs(), prepared)
        result["unitsConsumed"] = meta.compute_units_consumed()
        return result

    def send(self, raw: bytes, *, preflight: bool) -> str:
        """Execute a signed transaction and record it; its signature (base58)."""
        tx = self.decode(raw)
        if not self.verify(tx):
            raise BadTransaction("Transaction signature verification failure")
        signature = str(tx.signatures[0])
        if signature in self.records:
            raise TxRejected("AlreadyProcessed", "This transaction has already been processed")
        if not self.blockhash_valid(str(tx.message.recent_blockhash)):
            raise TxRejected("BlockhashNotFound", "Blockhash not found")
        try:
            prepared = self.prepare(tx)
        except TxRejected as rejected:
            if preflight or isinstance(rejected.err, str):
                raise
            self._record_failed(tx, raw, rejected)
            return signature
        if preflight:
            trial = self.svm.simulate_transaction(prepared.executable)
            if isinstance(trial, FailedTransactionMetadata):
                logs = self._logs(trial.meta().logs(), prepared)
                raise TxRejected(_err_json(trial), _describe(_err_json(trial)), logs)
        before = self._balances(prepared.keys)
        outcome = self.svm.send_transaction(prepared.executable)
        after = self._balances(prepared.keys)
        slot = self.slot()
        failed = isinstance(outcome, FailedTransactionMetadata)
        meta: TransactionMetadata = outcome.meta() if failed else outcome  # type: ignore[union-attr,assignment]
        self._touched.update(prepared.keys)
        self._dirty = True
        self.records[signature] = {
            "slot": slot,
            "blockTime": self.block_time(),
            "raw": base64.b64encode(raw).decode(),
            "version": 0 if isinstance(tx.message, MessageV0) else "legacy",
            "meta": {
                "err": _err_json(outcome) if failed else None,  # type: ignore[arg-type]
                "fee": meta.fee(),
                "preBalances": before[0],
                "postBalances": after[0],
                "preTokenBalances": before[1],
                "postTokenBalances": after[1],
                "logMessages": self._logs(meta.logs(), prepared),
                "computeUnitsConsumed": meta.compute_units_consumed(),
                "loadedAddresses": prepared.loaded,
                "innerInstructions": [],
                "rewards": [],
                "status": {"Err": _err_json(outcome)} if failed else {"Ok": None},  # type: ignore[arg-type]
            },
        }
        if not failed:
            for position in sorted(prepared.deposits):
                self.deposits.append(DepositSeen(signature, slot, prepared.deposits[position]))
        self._trim_history()
        # on disk before the solver can act on it: the venue's ledger and the service's
        # records commit at once, so a world cut off right after a deposit or a fill must not
        # come back with the Solana side of it undone
        self.save_state()
        return signature

    def _record_failed(self, tx: VersionedTransaction, raw: bytes, rejected: TxRejected) -> None:
        """A transaction the depository fails without preflight: the fee is still paid."""
        payer = tx.message.account_keys[0]
        keys = list(tx.message.account_keys)
        before = self._balances(keys)
        fee = LAMPORTS_PER_SIGNATURE * len(tx.signatures)
        account = self.account(payer)
        if account is not None and account.lamports >= fee:
            self.set_account(
                payer, Account(account.lamports - fee, bytes(account.data), account.owner)
            )
        after = self._balances(keys)
        self.records[str(tx.signatures[0])] = {
            "slot": self.slot(),
            "blockTime": self.block_time(),
            "raw": base64.b64encode(raw).decode(),
            "version": 0 if isinstance(tx.message, MessageV0) else "legacy",
            "meta": {
                "err": rejected.err,
                "fee": fee,
                "preBalances": before[0],
                "postBalances": after[0],
                "preTokenBalances": before[1],
                "postTokenBalances": after[1],
                "logMessages": rejected.logs,
                "computeUnitsConsumed": 0,
                "loadedAddresses": {"writable": [], "readonly": []},
                "innerInstructions": [],
                "rewards": [],
                "status": {"Err": rejected.err},
            },
        }
        self._dirty = True

    def _trim_history(self) -> None:
        while len(self.records) > MAX_HISTORY:
            del self.records[next(iter(self.records))]

    def _balances(self, keys: list[Pubkey]) -> tuple[list[int], list[dict[str, Any]]]:
        lamports = []
        tokens = []
        for index, key in enumerate(keys):
            account = self.svm.get_account(key)
            lamports.append(account.lamports if account is not None else 0)
            if account is None or account.owner not in TOKEN_PROGRAMS or len(account.data) < 165:
                continue
            parsed = read_token_account(bytes(account.data))
            if parsed is None:
                continue
            decimals = self.decimals(parsed.mint) or 0
            tokens.append(
                {
                    "accountIndex": index,
                    "mint": str(parsed.mint),
                    "owner": str(parsed.owner),
                    "programId": str(account.owner),
                    "uiTokenAmount": ui_amount(parsed.amount, decimals),
                }
            )
        return lamports, tokens

    # ---- persistence ------------------------------------------------------------------

    def save_state(self) -> None:
        """Keep the chain's accounts (every wallet, token account, mint and lookup table) and
        its history; LiteSVM has no snapshot of its own, and its programs and sysvars are
        rebuilt at start."""
        if self.state_file is None or not self._dirty:
            return
        accounts: dict[str, list[Any]] = {}
        keys = set(self._touched)
        for owner in _KEPT_OWNERS:
            keys.update(key for key, _ in self.svm.get_program_accounts(owner))
        for key in keys:
            account = self.svm.get_account(key)
            if account is None or account.executable:
                continue
            accounts[str(key)] = [
                account.lamports,
                str(account.owner),
                base64.b64encode(bytes(account.data)).decode(),
            ]
        body = {
            "genesis_time": self.genesis_time,
            "accounts": accounts,
            "records": self.records,
            "deposits": [
                {
                    "signature": seen.signature,
                    "slot": seen.slot,
                    "data": _deposit_json(seen.deposit),
                }
                for seen in self.deposits
            ],
        }
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(body))
        os.replace(temporary, self.state_file)
        self._dirty = False

    def _restore(self, state_file: Path) -> None:
        body = json.loads(state_file.read_text())
        self.genesis_time = float(body["genesis_time"])
        for key, (lamports, owner, data) in body["accounts"].items():
            pubkey = Pubkey.from_string(key)
            self.svm.set_account(
                pubkey, Account(int(lamports), base64.b64decode(data), Pubkey.from_string(owner))
            )
            self._touched.add(pubkey)
        self.records = dict(body["records"])
        self.deposits = [
            DepositSeen(item["signature"], int(item["slot"]), _deposit_from_json(item["data"]))
            for item in body["deposits"]
        ]


def _deposit_json(deposit: depository.Deposit) -> dict[str, Any]:
    def key(value: Pubkey | None) -> str | None:
        return None if value is None else str(value)

    return {
        "amount": deposit.amount,
        "order_id": deposit.order_id.hex(),
        "sender": str(deposit.sender),
        "depositor": str(deposit.depositor),
        "mint": key(deposit.mint),
        "sender_token_account": key(deposit.sender_token_account),
        "vault_token_account": key(deposit.vault_token_account),
        "token_program": key(deposit.token_program),
    }


def _deposit_from_json(data: dict[str, Any]) -> depository.Deposit:
    def key(value: str | None) -> Pubkey | None:
        return None if value is None else Pubkey.from_string(value)

    return depository.Deposit(
        amount=int(data["amount"]),
        order_id=bytes.fromhex(data["order_id"]),
        sender=Pubkey.from_string(data["sender"]),
        depositor=Pubkey.from_string(data["depositor"]),
        mint=key(data["mint"]),
        sender_token_account=key(data["sender_token_account"]),
        vault_token_account=key(data["vault_token_account"]),
        token_program=key(data["token_program"]),
    )


def _describe(err: Any) -> str:
    if isinstance(err, dict) and "InstructionError" in err:
        index, inner = err["InstructionError"]
        if isinstance(inner, dict) and "Custom" in inner:
            code = hex(inner["Custom"])
            return f"Error processing Instruction {index}: custom program error: {code}"
        return f"Error processing Instruction {index}: {inner}"
    return str(err)


def _splice_logs(
    logs: list[str], deposits: dict[int, depository.Deposit], program_id: Pubkey
) -> list[str]:
    """LiteSVM's logs of the executed form, with each rewritten instruction's logs put back
    under the depository program (one level deeper, as its CPI) with its event."""
    if not deposits:
        return logs
    groups: list[list[str]] = []
    for line in logs:
        if line.endswith(" invoke [1]") or not groups:
            groups.append([])
        groups[-1].append(line)
    program = str(program_id)
    for position, deposit in deposits.items():
        if position >= len(groups):
            continue
        inner = [_deeper(line) for line in groups[position]]
        failed = any(" failed: " in line for line in inner)
        name = "DepositNative" if deposit.mint is None else "DepositToken"
        group = [f"Program {program} invoke [1]", f"Program log: Instruction: {name}", *inner]
        if failed:
            group.append(f"Program {program} failed: Cross-program invocation failed")
        else:
            group += [deposit.event_log(), f"Program {program} success"]
        groups[position] = group
    return [line for group in groups for line in group]


def _deeper(line: str) -> str:
    for depth in range(4, 0, -1):
        marker = f" invoke [{depth}]"
        if line.endswith(marker):
            return line[: -len(marker)] + f" invoke [{depth + 1}]"
    return line
