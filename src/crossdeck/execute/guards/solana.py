"""The guards over a Solana item: every instruction read, every lamport and token counted, and
what they move held to the quote and to the request.

- `solana-programs`: every instruction is for a program crossdeck reads (the service's
  depository, System, SPL Token and Token-2022, Associated Token Account, Compute Budget), in a
  form it reads; any other is refused naming its program (`models.solana.decode`).
- `solana-signers`: the only signers are the wallet and the `depositFeePayer` the request named.
- `solana-chain`: the item is for an SVM chain (/chains' vmType 'svm'), and its depository is
  the program /chains names for that chain (`protocol.v2.depository`; with no /chains answer,
  only Solana's public one is known). Every SVM chain has its own: an instruction for another
  chain's depository is not read, so it is refused.
- `solana-deposit`: exactly one depository deposit, of exactly paymentDetails' amount and
  currency (`deposit_native` for SOL, `deposit_token` of that mint), for the quote's orderId,
  from the wallet and credited to the wallet; and, by the one payment rule
  (`payment_rule.held_to_request`), the currency, chain and amount the user asked to send.
- `solana-ledger` and the guards it names (`solana_ledger`): every lamport leaving the wallet
  is the payment, a fee or rent the dialog shows, to the lamport; derived addresses
  (`solana_addresses`) for every token account and the depository's accounts.
- `solana-fee`: a compute-unit price may not make the priority fee larger than a cap.
- `solana-size`: the transaction fits Solana's 1232-byte packet (`solana_size`).

Lookup tables, whether an account exists (rent) and the simulation need the node:
`execute.solana_runner` checks them right before the user is asked, and its guards say the node
was asked. No refusal rests on the simulation alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from crossdeck.execute.guards.base import GuardResult, _fail, _ok, payment_chain
from crossdeck.execute.guards.payment_rule import held_guard
from crossdeck.execute.guards.solana_ledger import Ledger, count, priority_fee
from crossdeck.execute.guards.solana_size import quote_size_guard
from crossdeck.models import ChainsResponse, Quote, QuoteRequest
from crossdeck.models.addresses import SOLANA_CHAIN_ID, Family
from crossdeck.models.solana import (
    DEPOSIT_NAMES,
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
# the guards the ledger may name, in the order the dialog lists them
LEDGER_GUARDS = ("solana-transfers", "solana-tokens", "solana-rent", "solana-ata",
                 "solana-close", "solana-authority", "solana-nonce", "solana-accounts",
                 "solana-vault")  # fmt: skip


@dataclass(frozen=True)
class SvmChain:
    """The SVM chain an item is for, and the depository program it pays there (None: no
    source names one, and nothing is deposited)."""

    chain_id: int | None
    depository: str | None
    problem: str | None = None  # why the item cannot be for this chain
    native: str = "SOL"  # the symbol of its native currency (/chains')


SOLANA = SvmChain(SOLANA_CHAIN_ID, DEPOSITORY_PROGRAM)  # what is public of Solana alone


def svm_chain(
    quote: Quote, chains: ChainsResponse | None, request: QuoteRequest | None
) -> SvmChain:
    """The chain a quote's SVM items are for: the chain paymentDetails pays on (else the
    request's origin), with its depository as /chains names it."""
    chain_id = payment_chain(quote, chains).chain_id
    if chain_id is None and request is not None:
        chain_id = request.origin_chain_id
    if chain_id is None:
        return SvmChain(None, None, "neither the quote's payment nor the request names a chain")
    if chains is None:
        if chain_id == SOLANA_CHAIN_ID:
            return SOLANA
        return SvmChain(chain_id, None, f"there is no /chains answer to say that chain "
                        f"{chain_id} is an SVM chain, nor which depository it has")  # fmt: skip
    listed = chains.by_id(chain_id)
    if listed is None or chains.family(chain_id) is not Family.SOLANA:
        what = "does not list" if listed is None else f"lists as a {listed.vm_type!r} chain"
        return SvmChain(chain_id, None, f"the item is a Solana-style transaction, but /chains "
                        f"{what} chain {chain_id}, not an SVM one")  # fmt: skip
    if not listed.depository:
        return SvmChain(chain_id, None, f"/chains names no depository (protocol.v2.depository) "
                        f"for SVM chain {chain_id}")  # fmt: skip
    native = listed.currency.symbol if listed.currency and listed.currency.symbol else "SOL"
    return SvmChain(chain_id, listed.depository, native=native)


def decoded_instructions(
    data: SolanaTransactionData, depository: str | None = DEPOSITORY_PROGRAM,
    native: str = "SOL",
) -> list[Decoded | Undecodable]:  # fmt: skip
    """Each instruction read; `depository`: the one program read as the depository (the
    chain's), None when the chain has none known (no instruction is read as a deposit);
    `native`: the chain's native currency's symbol, for the words."""
    out: list[Decoded | Undecodable] = []
    for instruction in data.instructions:
        try:
            out.append(decode(instruction, depository or "", native))
        except Undecodable as exc:
            out.append(exc)
    return out


def fee_payer(wallet: str, request: QuoteRequest | None) -> str:
    return (request.deposit_fee_payer if request else None) or wallet


def solana_ledger(
    data: SolanaTransactionData, wallet: str, request: QuoteRequest | None,
    exists: Mapping[str, bool] | None = None, chain: SvmChain = SOLANA,
) -> Ledger | None:  # fmt: skip
    """The transaction's ledger, or None when an instruction cannot be read."""
    decoded = decoded_instructions(data, chain.depository, chain.native)
    if any(isinstance(d, Undecodable) for d in decoded):
        return None
    read = [d for d in decoded if isinstance(d, Decoded)]
    payer = fee_payer(wallet, request)
    signatures = len({payer, *data.signers()})
    return count(read, wallet=wallet, fee_payer=payer, signatures=signatures, exists=exists)


def rent_accounts(data: SolanaTransactionData, chain: SvmChain = SOLANA) -> list[str]:
    """The accounts whose existence decides whether rent is paid: each associated token account
    the transaction creates, and the depository's token account of a token deposit (derived)."""
    from crossdeck.execute.guards.solana_addresses import vault_token_account

    found: list[str] = []
    for d in decoded_instructions(data, chain.depository):
        if not isinstance(d, Decoded):
            continue
        if d.name in ("create", "createIdempotent"):
            found.append(str(d.fields["account"]))
        elif d.name == "deposit_token":
            vault = vault_token_account(
                str(d.fields["mint"]), str(d.fields["tokenProgram"]), d.program
            )
            if vault is not None:
                found.append(vault)
    return list(dict.fromkeys(found))


def solana_guards(
    quote: Quote,
    data: SolanaTransactionData,
    where: str,
    wallet: str | None,
    request: QuoteRequest | None,
    exists: Mapping[str, bool] | None = None,
    chain: SvmChain = SOLANA,
) -> list[GuardResult]:
    if chain.problem is not None or chain.depository is None or chain.chain_id is None:
        return [_fail("solana-chain", chain.problem or "no depository is known", where)]
    chain_result = _ok("solana-chain", f"for SVM chain {chain.chain_id}, whose depository is "
                       f"{chain.depository}", where)  # fmt: skip
    decoded = decoded_instructions(data, chain.depository, chain.native)
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
    results = [
        chain_result,
        _ok("solana-programs", f"all {len(read)} instructions read", where),
        _signers_guard(data, wallet, request, where),
        _deposit_guard(quote, read, wallet, request, where, chain.chain_id),
    ]
    if wallet is not None:
        payer = fee_payer(wallet, request)
        ledger = count(read, wallet=wallet, fee_payer=payer,
                       signatures=len({payer, *data.signers()}), exists=exists)  # fmt: skip
        results += ledger_guards(ledger, where)
    results += [_fee_guard(read, where), quote_size_guard(data, wallet, request, where)]
    return results


def ledger_guards(ledger: Ledger, where: str) -> list[GuardResult]:
    """One result per guard the ledger names (each failure with every instruction it found),
    then `solana-ledger`: what leaves the wallet against the payment and fees shown."""
    results = []
    for name in LEDGER_GUARDS:
        found = [words for guard, words in ledger.problems if guard == name]
        if found:
            results.append(_fail(name, "; ".join(found), where))
    if not any(r.name == "solana-transfers" for r in results):
        results.append(_ok("solana-transfers", "nothing leaves the wallet but the deposit, its "
                           "fees and the rent shown", where))  # fmt: skip
    node = ("whether each account exists was asked of the node" if ledger.node_asked else
            "rent counted as paid: whether the accounts exist is asked of the node right "
            "before you are asked")  # fmt: skip
    if ledger.leaving != ledger.shown or ledger.problems:
        unshown = ledger.leaving - ledger.shown
        results.append(_fail(
            "solana-ledger",
            f"{ledger.leaving} lamports would leave the wallet, but the payment, fees and rent "
            f"shown add to {ledger.shown} ({unshown} lamports accounted for by nothing shown)"
            if unshown else
            f"{ledger.leaving} lamports leave the wallet as shown, but the transaction is "
            "refused by the guards above", where,
        ))  # fmt: skip
        return results
    parts = ", ".join(f"{c.what} {c.lamports}" for c in ledger.charges if c.payer == ledger.wallet)
    results.append(_ok(
        "solana-ledger",
        f"{ledger.leaving} lamports leave the wallet, to the lamport the payment, fees and rent "
        f"shown ({parts}); {node}", where,
    ))  # fmt: skip
    return results


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
    quote: Quote, read: list[Decoded], wallet: str | None, request: QuoteRequest | None,
    where: str, chain_id: int,
) -> GuardResult:  # fmt: skip
    deposits = [d for d in read if d.name in DEPOSIT_NAMES]  # for this chain's depository
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
    mint = fields.get("mint")
    if currency is not None:
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
    held = held_guard(
        "solana-deposit", quote, request, where, chain_id=chain_id,
        currency=SYSTEM_PROGRAM if mint is None else str(mint),
        amount=int(str(fields["amount"])), what="the deposit",
    )  # fmt: skip
    return held or _ok("solana-deposit", deposit.words, where)


def _fee_guard(read: list[Decoded], where: str) -> GuardResult:
    fee = priority_fee(read)
    if fee > PRIORITY_FEE_CAP_LAMPORTS:
        return _fail(
            "solana-fee",
            f"the compute-unit price would add a priority fee of up to {fee} lamports, more "
            f"than the {PRIORITY_FEE_CAP_LAMPORTS} crossdeck allows",
            where,
        )
    return _ok("solana-fee", f"priority fee of at most {fee} lamports", where)
