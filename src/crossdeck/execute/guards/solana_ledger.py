"""Every lamport and token a Solana transaction takes from the wallet, counted from the decoded
instructions, and each one classified: the payment, a fee, rent, or a refusal naming it.

Two sums are kept in one walk over the instructions. `debits`/`credits` are every lamport any
instruction (and the fee) takes from or gives back to the wallet's own system account, whatever
it is for. The classified lines are what the confirm dialog shows: the SOL payment, the network
and priority fees, the rent of each account created (the wallet's own associated token account,
or the depository's token account its program creates for the deposit), lamports moved into
the wallet's own temporary account (wrapped SOL), and what a close gives back. Whatever leaves
the wallet and is none of these has no line, so the two sums differ and `solana-ledger` refuses,
beside the guard that names the instruction:

- `solana-transfers`: lamports from the wallet to an account that is not its own;
- `solana-rent`: rent the wallet pays for an account that is not its own;
- `solana-ata`: a token account that is not the associated token account derived from its
  owner, mint and token program (`solana_addresses`);
- `solana-close`: an account closed to anyone but the wallet, or one this transaction did not
  create;
- `solana-tokens`: tokens from the wallet's accounts to an account not its own;
- `solana-authority`: an Approve, ApproveChecked, Revoke or SetAuthority (a delegate or a new
  owner on one of the wallet's token accounts outlives the transaction);
- `solana-nonce`: a durable-nonce instruction (a transaction that never expires can be held
  and sent whenever suits someone else);
- `solana-accounts`: an account created by System CreateAccount (only derived token accounts
  may be created), Assign or Allocate;
- `solana-vault`: the depository's config, vault or vault token account is not the address its
  public program derives.

Whether an account already exists decides whether its rent is paid: the guards over the quote
do not ask the node and count the rent as paid (`exists` None: the line says "at most"); the
runner asks the node right before the user is asked (`exists` given), and the line says that
the node was asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from crossdeck.execute.guards.solana_addresses import (
    TOKEN_ACCOUNT_RENT,
    TOKEN_PROGRAMS,
    associated_token_account,
    depository_config,
    depository_vault,
    vault_token_account,
)
from crossdeck.models.solana import (
    ASSOCIATED_TOKEN_PROGRAM,
    COMPUTE_BUDGET_PROGRAM,
    DEPOSIT_NAMES,
    SYSTEM_PROGRAM,
    Decoded,
)

LAMPORTS_PER_SIGNATURE = 5000
DEFAULT_UNITS_PER_INSTRUCTION = 200_000
MAX_COMPUTE_UNITS = 1_400_000
WRAPPED_SOL_MINT = "So11111111111111111111111111111111111111112"
_NONCE = {"advanceNonceAccount", "withdrawNonceAccount", "initializeNonceAccount",
          "authorizeNonceAccount", "upgradeNonceAccount"}  # fmt: skip
_AUTHORITY = {"approve", "approveChecked", "revoke", "setAuthority"}
_ACCOUNTS = {"createAccount", "createAccountWithSeed", "assign", "allocate",
             "allocateWithSeed", "assignWithSeed"}  # fmt: skip


@dataclass(frozen=True)
class Charge:
    """One line of what leaves (or comes back to) a payer: `kind` is payment, fee, rent, wrap
    (moved into the wallet's own account) or returned (negative `lamports`)."""

    kind: str
    what: str
    lamports: int
    payer: str
    at_most: bool = False  # whether an account exists was not asked of the node


@dataclass
class _Own:
    """A token account of the wallet this transaction touches."""

    mint: str | None
    created: bool
    lamports: int = 0  # what this transaction put into it (rent, wrapped SOL)


@dataclass
class Ledger:
    """Every lamport and token unit a Solana transaction takes from the wallet, counted."""

    wallet: str
    fee_payer: str
    charges: list[Charge] = field(default_factory=list)
    payment_token: tuple[str, int] | None = None  # (mint, units) the deposit takes
    debits: int = 0  # every lamport taken from the wallet's system account
    credits: int = 0  # every lamport given back to it
    problems: list[tuple[str, str]] = field(default_factory=list)
    node_asked: bool = False

    @property
    def leaving(self) -> int:
        return self.debits - self.credits

    @property
    def shown(self) -> int:
        """What the wallet pays by the dialog's lines: the payment and every fee and rent."""
        return sum(c.lamports for c in self.charges if c.payer == self.wallet)

    def charge(
        self, kind: str, what: str, lamports: int, payer: str, at_most: bool = False
    ) -> None:
        self.charges.append(Charge(kind, what, lamports, payer, at_most))
        if payer == self.wallet:
            self.debits += lamports if lamports > 0 else 0
            self.credits += -lamports if lamports < 0 else 0

    def refuse(self, guard: str, words: str) -> None:
        self.problems.append((guard, words))


def count(
    read: list[Decoded], *, wallet: str, fee_payer: str, signatures: int,
    exists: Mapping[str, bool] | None = None,
) -> Ledger:  # fmt: skip
    """Walk the instructions in order and count what each takes from the wallet."""
    ledger = Ledger(wallet, fee_payer, node_asked=exists is not None)
    ledger.charge("fee", f"network fee ({signatures} signature(s) x {LAMPORTS_PER_SIGNATURE})",
                  signatures * LAMPORTS_PER_SIGNATURE, fee_payer)  # fmt: skip
    priority = priority_fee(read)
    if priority:
        ledger.charge("fee", "priority fee (compute-unit limit x price)", priority, fee_payer)
    own: dict[str, _Own] = {}
    for decoded in read:
        _walk(ledger, own, decoded, exists)
    return ledger


def priority_fee(read: list[Decoded]) -> int:
    """The most the compute-unit price adds to the fee, rounded up as the runtime does."""
    budget = [d for d in read if d.program == COMPUTE_BUDGET_PROGRAM]
    limit = next((d.fields["units"] for d in budget if d.name == "setComputeUnitLimit"), None)
    price = next((d.fields["microLamports"] for d in budget if d.name == "setComputeUnitPrice"), 0)
    others = len(read) - len(budget)
    units = (
        int(str(limit))
        if limit is not None
        else min(DEFAULT_UNITS_PER_INSTRUCTION * others, MAX_COMPUTE_UNITS)
    )
    return -(-units * int(str(price)) // 1_000_000)


def _walk(
    ledger: Ledger, own: dict[str, _Own], d: Decoded, exists: Mapping[str, bool] | None
) -> None:
    wallet = ledger.wallet
    f = d.fields
    if d.program == COMPUTE_BUDGET_PROGRAM:
        return
    if d.name in _NONCE:
        ledger.refuse("solana-nonce", f"{d.words}: a durable nonce keeps a signed transaction "
                      "valid until someone chooses to send it; no deposit needs one")  # fmt: skip
        return
    if d.name in _AUTHORITY:
        ledger.refuse("solana-authority", f"{d.words}: a deposit never hands control of a token "
                      "account to anyone (it would outlive this transaction)")  # fmt: skip
        return
    if d.name in _ACCOUNTS:
        if f.get("payer") == wallet:
            ledger.debits += int(str(f.get("lamports", 0)))
        ledger.refuse("solana-accounts", f"{d.words}: only associated token accounts crossdeck "
                      "derives may be created by a deposit")  # fmt: skip
        return
    if d.program == SYSTEM_PROGRAM:  # transfer, transferWithSeed
        _lamports(ledger, own, d)
    elif d.program == ASSOCIATED_TOKEN_PROGRAM:
        _create(ledger, own, d, exists)
    elif d.program in TOKEN_PROGRAMS:
        _token(ledger, own, d)
    elif d.name in DEPOSIT_NAMES:  # read as a deposit: its program is this chain's depository
        _deposit(ledger, own, d, exists)


def _lamports(ledger: Ledger, own: dict[str, _Own], d: Decoded) -> None:
    source, destination = str(d.fields["from"]), str(d.fields["to"])
    lamports = int(str(d.fields["lamports"]))
    if source != ledger.wallet:
        ledger.refuse("solana-transfers", f"{d.words}: lamports may leave only this wallet "
                      f"({ledger.wallet}), for the deposit")  # fmt: skip
        return
    if destination == ledger.wallet:
        return  # to itself: nothing leaves
    ledger.debits += lamports
    account = own.get(destination)
    if account is not None and account.created:
        account.lamports += lamports
        ledger.charges.append(Charge("wrap", f"moved into your own token account {destination}"
                                     " (wrapped SOL)", lamports, ledger.wallet))  # fmt: skip
        return
    ledger.refuse("solana-transfers", f"besides the deposit the transaction would {d.words}, "
                  "an account that is not yours")  # fmt: skip


def _create(
    ledger: Ledger, own: dict[str, _Own], d: Decoded, exists: Mapping[str, bool] | None
) -> None:
    f = d.fields
    payer, account, owner = str(f["payer"]), str(f["account"]), str(f["owner"])
    mint, program = str(f["mint"]), str(f.get("tokenProgram"))
    if program not in TOKEN_PROGRAMS:
        ledger.refuse("solana-ata", f"{d.words}: under token program {program}, which is "
                      "neither SPL Token nor Token-2022")  # fmt: skip
        return
    derived = associated_token_account(owner, mint, program)
    if account != derived:
        ledger.refuse("solana-ata", f"token account {account} is not the associated token "
                      f"account of {owner} for mint {mint} (derived: {derived})")  # fmt: skip
        return
    existed = exists.get(account) if exists is not None else None
    rent = 0 if existed and d.name == "createIdempotent" else TOKEN_ACCOUNT_RENT[program]
    if owner != ledger.wallet:
        if payer == ledger.wallet:
            ledger.debits += rent
        ledger.refuse("solana-rent", f"{payer} would pay the rent ({rent} lamports) of "
                      f"{account}, a token account of {owner}, not of this wallet")  # fmt: skip
        return
    own[account] = _Own(mint, created=not existed, lamports=rent)
    if rent:
        ledger.charge("rent", f"rent of your token account {account} for mint {mint} (yours: "
                      "it comes back when the account is closed)", rent, payer,
                      at_most=existed is None)  # fmt: skip


def _is_own(ledger: Ledger, own: dict[str, _Own], account: str, mint: str | None,
            program: str) -> bool:  # fmt: skip
    if account in own:
        return True
    return mint is not None and account == associated_token_account(ledger.wallet, mint, program)


def _token(ledger: Ledger, own: dict[str, _Own], d: Decoded) -> None:
    f = d.fields
    if d.name in ("transfer", "transferChecked"):
        source, destination = str(f["source"]), str(f["destination"])
        mint = f.get("mint")
        mint = str(mint) if mint is not None else (own[source].mint if source in own else None)
        amount = int(str(f["amount"]))
        if f.get("owner") != ledger.wallet or not _is_own(ledger, own, source, mint, d.program):
            ledger.refuse("solana-tokens", f"{d.words}: from an account that is not this "
                          "wallet's own associated token account")  # fmt: skip
        elif not _is_own(ledger, own, destination, mint, d.program):
            ledger.refuse("solana-tokens", f"besides the deposit the transaction would "
                          f"{d.words}: tokens leave for an account that is not yours")  # fmt: skip
        elif mint == WRAPPED_SOL_MINT and source in own and destination in own:
            own[source].lamports -= amount
            own[destination].lamports += amount
        return
    if d.name == "closeAccount":
        account, destination = str(f["account"]), str(f["destination"])
        if destination != ledger.wallet:
            ledger.refuse("solana-close", f"closes token account {account} and sends its "
                          f"lamports and tokens to {destination}, not this wallet")  # fmt: skip
            return
        held = own.get(account)
        if held is None or not held.created:
            ledger.refuse("solana-close", f"closes token account {account}, which this "
                          "transaction did not create")  # fmt: skip
            return
        del own[account]
        if held.lamports:
            ledger.charge("returned", f"returned to you when {account} is closed",
                          -held.lamports, ledger.wallet)  # fmt: skip
    # syncNative: a wrapped-SOL account's tokens follow its lamports; nothing moves


def _deposit(
    ledger: Ledger, own: dict[str, _Own], d: Decoded, exists: Mapping[str, bool] | None
) -> None:
    f = d.fields
    sender, amount = str(f["sender"]), int(str(f["amount"]))
    wrong = []
    config, vault = depository_config(d.program), depository_vault(d.program)
    if f.get("config") != config:
        wrong.append(f"config {f.get('config')} (derived: {config})")
    if f.get("vault") != vault:
        wrong.append(f"vault {f.get('vault')} (derived: {vault})")
    if d.name == "deposit_native":
        if f.get("programs") != [SYSTEM_PROGRAM]:
            wrong.append(f"system program {f.get('programs')}")
        if wrong:
            ledger.refuse("solana-vault", "the deposit names the depository's " + "; ".join(wrong))
        if sender == ledger.wallet:
            ledger.charge("payment", "the deposit", amount, sender)
        return
    mint, program = str(f["mint"]), str(f["tokenProgram"])
    if program not in TOKEN_PROGRAMS:
        wrong.append(f"token program {program}")
    if f.get("programs") != [ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM]:
        wrong.append(f"programs {f.get('programs')}")
    vault_account = (
        vault_token_account(mint, program, d.program) if program in TOKEN_PROGRAMS else None
    )
    if f.get("vaultTokenAccount") != vault_account:
        wrong.append(f"vault token account {f.get('vaultTokenAccount')} (derived: "
                     f"{vault_account})")  # fmt: skip
    if wrong:
        ledger.refuse("solana-vault", "the deposit names the depository's " + "; ".join(wrong))
        return
    source = str(f["source"])
    derived = associated_token_account(sender, mint, program)
    if source != derived:
        ledger.refuse("solana-ata", f"the deposit takes tokens from {source}, which is not the "
                      f"associated token account of {sender} for mint {mint} (derived: "
                      f"{derived})")  # fmt: skip
        return
    ledger.payment_token = (mint, amount)
    held = own.get(source)
    if held is not None and mint == WRAPPED_SOL_MINT:
        held.lamports -= amount  # the wrapped SOL leaves with the deposit
    assert vault_account is not None
    existed = exists.get(vault_account) if exists is not None else None
    if not existed:
        # the public program creates the vault's token account when it has none, paid by
        # the sender: rent that leaves the wallet for an account it does not own, the one case
        ledger.charge("rent", f"rent of the depository's token account {vault_account} for "
                      "mint " + mint + ", which its program creates for this deposit when "
                      "missing, paid by you", TOKEN_ACCOUNT_RENT[program], sender,
                      at_most=existed is None)  # fmt: skip
