"""The guards over a Bitcoin item (a PSBT), decoded in full before the user is asked.

- `bitcoin-psbt`: the item's `psbt` is a PSBT crossdeck can read (hex or base64, BIP-174).
- `bitcoin-inputs`: every input spends an output of this wallet (its P2WPKH script), and the
  PSBT says what that output holds (`witness_utxo`): no foreign input, no unknown amount. That
  each is an unspent output of the wallet, of that amount, on chain, is checked against the
  node right before signing (`execute.bitcoin_runner`).
- `bitcoin-sighash`: no input asks for a sighash other than ALL (NONE, SINGLE or
  ANYONECANPAY would let others change what the signature pays).
- `bitcoin-deposit`: exactly one output pays the deposit address (the step's
  `depositAddress`, else paymentDetails' depository), exactly the payment's amount, and that
  amount is the quote's `currencyIn`.
- `bitcoin-outputs`: every other output is change back to this wallet, or the OP_RETURN that
  carries the quote's orderId (no value); any other output is refused by index, address and
  amount.
- `bitcoin-fee`: the fee (inputs - outputs) is known and not negative. Its rate is bounded
  against the node's estimate right before signing (`execute.bitcoin_runner`).
"""

from __future__ import annotations

from crossdeck.execute.guards.base import GuardResult, _fail, _ok
from crossdeck.execute.guards.payment_rule import held_guard
from crossdeck.models import Quote, QuoteRequest, Step
from crossdeck.models.addresses import BITCOIN_CHAIN_ID, NATIVE_CURRENCY, Family
from crossdeck.models.bitcoin import BitcoinPsbtData
from crossdeck.wallet.bitcoin_psbt import DecodedPsbt, PsbtError, decode_psbt

SIGHASH_ALL = 1


def deposit_address(quote: Quote, step: Step) -> str | None:
    """Where the deposit goes: the step's depositAddress, else paymentDetails' depository."""
    if step.deposit_address:
        return step.deposit_address
    payment = quote.payment_details
    return payment.depository if payment is not None and payment.depository else None


def bitcoin_guards(
    quote: Quote,
    step: Step,
    data: BitcoinPsbtData,
    where: str,
    wallet: str | None,
    request: QuoteRequest | None = None,
) -> list[GuardResult]:
    try:
        decoded = decode_psbt(data.psbt)
    except PsbtError as exc:
        return [_fail("bitcoin-psbt", f"refusing what crossdeck cannot read: {exc}", where)]
    return [
        _ok(
            "bitcoin-psbt",
            f"read: {len(decoded.inputs)} inputs, {len(decoded.outputs)} outputs",
            where,
        ),
        inputs_guard(decoded, wallet, where),
        sighash_guard(decoded, where),
        deposit_guard(quote, step, decoded, where, request),
        outputs_guard(quote, step, decoded, wallet, where),
        fee_guard(decoded, where),
    ]


def inputs_guard(decoded: DecodedPsbt, wallet: str | None, where: str) -> GuardResult:
    if not decoded.inputs:
        return _fail("bitcoin-inputs", "the PSBT spends nothing", where)
    for number, spent in enumerate(decoded.inputs):
        if spent.value is None:
            return _fail(
                "bitcoin-inputs",
                f"input {number} ({spent.txid}:{spent.vout}) does not say what it spends "
                "(no witness_utxo): its amount, and so the fee, are unknown",
                where,
            )
        if wallet is None or spent.address != wallet:
            return _fail(
                "bitcoin-inputs",
                f"input {number} spends {spent.txid}:{spent.vout} of {spent.address or 'a script'}"
                f", not of this wallet {wallet}: refused",
                where,
            )
    total = sum(i.value or 0 for i in decoded.inputs)
    return _ok(
        "bitcoin-inputs",
        f"{len(decoded.inputs)} inputs, all this wallet's, {total} sats in all",
        where,
    )


def sighash_guard(decoded: DecodedPsbt, where: str) -> GuardResult:
    for number, spent in enumerate(decoded.inputs):
        if spent.sighash_type not in (None, SIGHASH_ALL):
            return _fail(
                "bitcoin-sighash",
                f"input {number} asks to be signed with sighash {spent.sighash_type:#x}, not ALL: "
                "others could change what the signature pays",
                where,
            )
    return _ok("bitcoin-sighash", "every input is signed with SIGHASH_ALL", where)


def deposit_guard(
    quote: Quote,
    step: Step,
    decoded: DecodedPsbt,
    where: str,
    request: QuoteRequest | None = None,
) -> GuardResult:
    address = deposit_address(quote, step)
    payment = quote.payment_details
    amount = payment.amount if payment is not None else None
    if address is None or amount is None:
        return _fail(
            "bitcoin-deposit",
            "the quote names no deposit address and amount (depositAddress or paymentDetails) "
            "to hold the PSBT to",
            where,
        )
    paying = [o for o in decoded.outputs if o.address == address]
    if len(paying) != 1:
        return _fail(
            "bitcoin-deposit",
            f"{len(paying)} outputs pay the deposit address {address}, not exactly one",
            where,
        )
    problems = []
    if paying[0].value != amount:
        problems.append(f"it pays {paying[0].value} sats, the payment is {amount}")
    details = quote.details
    currency_in = details.currency_in if details is not None else None
    if currency_in is not None and currency_in.amount is not None and currency_in.amount != amount:
        problems.append(f"the payment {amount} is not the quote's input {currency_in.amount}")
    if problems:
        return _fail("bitcoin-deposit", "; ".join(problems), where)
    # the one payment rule: BTC, on Bitcoin, the amount the user asked to send
    held = held_guard(
        "bitcoin-deposit", quote, request, where, chain_id=BITCOIN_CHAIN_ID,
        currency=NATIVE_CURRENCY[Family.BITCOIN], amount=paying[0].value, what="the PSBT",
    )  # fmt: skip
    if held is not None:
        return held
    return _ok(
        "bitcoin-deposit", f"output {paying[0].index} pays {amount} sats to {address}", where
    )


def outputs_guard(
    quote: Quote, step: Step, decoded: DecodedPsbt, wallet: str | None, where: str
) -> GuardResult:
    address = deposit_address(quote, step)
    order = (quote.order_id or "").removeprefix("0x").lower()
    for out in decoded.outputs:
        if out.address is not None and out.address == address:
            continue
        if wallet is not None and out.address == wallet:
            continue  # change
        if out.is_op_return and out.value == 0 and out.op_return is not None and order:
            if out.op_return.hex() == order:
                continue
            return _fail(
                "bitcoin-outputs",
                f"output {out.index} is an OP_RETURN of {out.op_return.hex() or 'no data'}, "
                f"not the quote's order id {quote.order_id}",
                where,
            )
        shown = out.address or ("OP_RETURN" if out.is_op_return else out.script.hex())
        return _fail(
            "bitcoin-outputs",
            f"output {out.index} pays {out.value} sats to {shown}: neither the deposit nor "
            "change back to this wallet; refused",
            where,
        )
    change = sum(o.value for o in decoded.outputs if wallet is not None and o.address == wallet)
    return _ok(
        "bitcoin-outputs", f"besides the deposit: {change} sats of change back to the wallet", where
    )


def fee_guard(decoded: DecodedPsbt, where: str) -> GuardResult:
    fee = decoded.fee
    if fee is None:
        return _fail("bitcoin-fee", "the fee is unknown (an input's amount is not given)", where)
    if fee < 0:
        return _fail("bitcoin-fee", f"the outputs pay {-fee} sats more than the inputs hold", where)
    rate = fee / decoded.vsize
    return _ok("bitcoin-fee", f"fee {fee} sats, {rate:.1f} sat/vB over {decoded.vsize} vB", where)
