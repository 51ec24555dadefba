"""The guards over a Solana item: every instruction read, and what they move held to the quote.

- `solana-programs`: every instruction is for a program crossdeck reads (the service's
  depository, System, SPL Token and Token-2022, Associated Token Account, Compute Budget), in a
  form it reads; any other is refused naming its program (`models.solana.decode`).
- `solana-signers`: the only signers are the wallet and the `depositFeePayer` the request named.
- `solana-deposit`: exactly one depository deposit, of exactly paymentDetails' amount and
  currency (`deposit_native` for SOL, `deposit_token` of that mint), for the quote's orderId,
  from the wallet and credited to the wallet.
- `solana-transfers`: nothing else moves value out of the wallet's accounts except to the wallet
  itself (e.g. wrapping SOL into its own token account); an extra transfer to another key is
  refused.
- `solana-fee`: a compute-unit price may not make the priority fee larger than a cap.

Lookup tables and the simulation need the chain: `execute.solana_runner` checks them right
before signing (every account the message resolves through a table is the instruction's own,
and `simulateTransaction` succeeds).
"""

from __future__ import annotations

from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.models import Quote, QuoteRequest
from crossdeck.models.solana import (
    COMPUTE_BUDGET_PROGRAM,
    DEPOSITORY_PROGRAM,
    SYSTEM_PROGRAM,
    Decoded,
    SolanaTransactionData,
    Undecodable,
    decode,
    order_id_bytes,
)

# the most a compute-unit price may add to a transaction's fee: 0.01 SOL
PRIORITY_FEE_CAP_LAMPORTS = 10_000_000
DEFAULT_UNITS_PER_INSTRUCTION = 200_000


def decoded_instructions(data: SolanaTransactionData) -> list[Decoded | Undecodable]:
    out: list[Decoded | Undecodable] = []
    for instruction in data.instructions:
        try:
            out.append(decode(instruction))
        except Undecodable as exc:
            out.append(exc)
    return out


def solana_guards(
    quote: Quote,
    data: SolanaTransactionData,
    where: str,
    wallet: str | None,
    request: QuoteRequest | None,
) -> list[GuardResult]:
    decoded = decoded_instructions(data)
    unread = [str(d) for d in decoded if isinstance(d, Undecodable)]
    if not data.instructions:
        return [_fail("solana-programs", "the Solana item has no instructions", where)]
    if unread:
        return [
            _fail(
                "solana-programs",
                "refusing what crossdeck cannot read: " + "; ".join(unread),
                where,
            )
        ]
    read = [d for d in decoded if isinstance(d, Decoded)]
    return [
        _ok("solana-programs", f"all {len(read)} instructions read", where),
        _signers_guard(data, wallet, request, where),
        _deposit_guard(quote, read, wallet, where),
        _transfers_guard(read, wallet, where),
        _fee_guard(read, where),
    ]


def _signers_guard(
    data: SolanaTransactionData, wallet: str | None, request: QuoteRequest | None, where: str
) -> GuardResult:
    allowed = {a for a in (wallet, request.deposit_fee_payer if request else None) if a}
    others = [key for key in data.signers() if key not in allowed]
    if wallet is None:
        return _fail("solana-signers", "no Solana wallet to sign with", where)
    if others:
        return _fail(
            "solana-signers",
            f"the transaction needs the signature of {others[0]}, which is neither this wallet "
            f"({wallet}) nor the depositFeePayer you named",
            where,
        )
    payer = request.deposit_fee_payer if request else None
    if payer and payer != wallet:
        # the runner makes it the message's fee payer: it signs whether or not an
        # instruction names it
        return _ok("solana-signers",
                   f"signed by this wallet {wallet} and the depositFeePayer you named {payer} "
                   "(it pays the fee)", where)  # fmt: skip
    return _ok("solana-signers", f"signed by this wallet {wallet} only", where)


def _deposit_guard(
    quote: Quote, read: list[Decoded], wallet: str | None, where: str
) -> GuardResult:
    deposits = [d for d in read if d.program == DEPOSITORY_PROGRAM]
    if len(deposits) != 1:
        return _fail(
            "solana-deposit",
            f"the transaction holds {len(deposits)} depository deposits, not exactly one",
            where,
        )
    deposit = deposits[0]
    fields = deposit.fields
    payment = quote.payment_details
    problems = []
    if payment is None or payment.amount is None:
        problems.append("the quote has no paymentDetails amount to hold the deposit to")
    elif fields["amount"] != payment.amount:
        problems.append(f"it deposits {fields['amount']}, the payment is {payment.amount}")
    currency = payment.currency if payment is not None else None
    if currency is not None:
        mint = fields.get("mint")
        if currency == SYSTEM_PROGRAM and mint is not None:
            problems.append(f"it deposits mint {mint}, the payment is SOL")
        elif currency != SYSTEM_PROGRAM and mint != currency:
            got = "SOL" if mint is None else f"mint {mint}"
            problems.append(f"it deposits {got}, the payment is mint {currency}")
    wanted_order = order_id_bytes(quote.order_id or "")
    if wanted_order is None:
        problems.append("the quote has no orderId to hold the deposit to")
    elif fields["orderId"] != "0x" + wanted_order.hex():
        problems.append(f"its order id is {fields['orderId']}, the quote's is {quote.order_id}")
    for role in ("sender", "depositor"):
        if fields[role] != wallet:
            problems.append(f"its {role} is {fields[role]}, not this wallet {wallet}")
    if problems:
        return _fail("solana-deposit", "; ".join(problems), where)
    return _ok("solana-deposit", deposit.words, where)


def _transfers_guard(read: list[Decoded], wallet: str | None, where: str) -> GuardResult:
    # the wallet itself, and token accounts this transaction creates for it (wrapping SOL)
    own = {wallet} | _own_token_accounts(read, wallet)
    extra = [
        d
        for d in read
        if d.program != DEPOSITORY_PROGRAM
        for m in d.moves
        if m.destination not in own
    ]
    if extra:
        return _fail(
            "solana-transfers",
            f"besides the deposit the transaction would {extra[0].words}: refused",
            where,
        )
    return _ok("solana-transfers", "nothing leaves the wallet but the deposit", where)


def _own_token_accounts(read: list[Decoded], wallet: str | None) -> set[str]:
    """Token accounts the transaction creates for the wallet itself (ATA create)."""
    return {
        str(d.fields["account"])
        for d in read
        if d.name in ("create", "createIdempotent") and d.fields.get("owner") == wallet
    }


def _fee_guard(read: list[Decoded], where: str) -> GuardResult:
    budget = [d for d in read if d.program == COMPUTE_BUDGET_PROGRAM]
    limit = next((d.fields["units"] for d in budget if d.name == "setComputeUnitLimit"), None)
    price = next((d.fields["microLamports"] for d in budget if d.name == "setComputeUnitPrice"), 0)
    units = int(str(limit)) if limit is not None else DEFAULT_UNITS_PER_INSTRUCTION * len(read)
    fee = units * int(str(price)) // 1_000_000
    if fee > PRIORITY_FEE_CAP_LAMPORTS:
        return _fail(
            "solana-fee",
            f"the compute-unit price would add a priority fee of up to {fee} lamports, more "
            f"than the {PRIORITY_FEE_CAP_LAMPORTS} crossdeck allows",
            where,
        )
    return _ok("solana-fee", f"priority fee of at most {fee} lamports", where)
