"""Where an EVM transaction goes and what it pays, against paymentDetails and /chains.

A transaction may go only to: the depository `/chains` names for its chain, another contract
`/chains` names for that chain (`contracts`), the payment token, the deposit address of the
quote's own step, or a contract the user named in the request's `txs`. What it does there is
read from its calldata by ABI (`calldata.decode_call`): a deposit pays exactly the payment, with
this order id, from this wallet; an approve allows exactly the payment to the depository (or a
contract /chains names). A quote without paymentDetails gives nothing to hold a transaction to,
so it is refused rather than checked less, except in the self-executed form of a same-chain
swap (`guards.self_executed`). Calldata the decoders cannot read, to a contract /chains names,
is simulated before signing (`guards.simulation`).
"""

from __future__ import annotations

from decimal import Decimal

from crossdeck.execute.guards.base import (
    GuardResult,
    _fail,
    _ok,
    _same_address,
)
from crossdeck.execute.guards.calldata import Call, CalldataError, decode_call
from crossdeck.execute.guards.payment_rule import held_guard
from crossdeck.execute.guards.self_executed import (
    input_token,
    is_self_executed,
    self_executed_payment,
)
from crossdeck.models import (
    NATIVE_ADDRESS,
    NATIVE_DECIMALS,
    ChainsResponse,
    PaymentDetails,
    Quote,
    QuoteRequest,
    Step,
    TransactionData,
    format_units,
)
from crossdeck.models.text import short


def amount_words(quote: Quote, amount: int | None, currency: str | None) -> str:
    """'10 USDC' for an amount of the quote's currencyIn (its symbol and decimals), else the
    smallest-unit figure with the token's address."""
    if amount is None:
        return "an unknown amount"
    details = quote.details
    amount_in = details.currency_in if details else None
    info = amount_in.currency if amount_in and not isinstance(amount_in.currency, str) else None
    if info is not None and info.decimals is not None and _same_address(info.address, currency):
        return f"{Decimal(format_units(amount, info.decimals)).normalize():f} {info.symbol or ''}"
    if currency is None or _same_address(currency, NATIVE_ADDRESS):
        symbol = _native_symbol(quote) or "of the chain's gas currency"
        return f"{Decimal(format_units(amount, NATIVE_DECIMALS)).normalize():f} {symbol}"
    return f"{amount} units of token {short(currency)}"


def _native_symbol(quote: Quote) -> str | None:
    """The origin chain's native symbol (ETH, HYPE), as the quote's gas fee names it: the same
    word the confirm dialog uses, never "native"."""
    gas = quote.fees.gas if quote.fees is not None else None
    info = gas.currency_info if gas is not None else None
    if info is not None and info.symbol and _same_address(info.address, NATIVE_ADDRESS):
        return info.symbol
    return None


def allowed_destinations(
    chain_id: int | None,
    step: Step,
    payment: PaymentDetails | None,
    chains: ChainsResponse | None,
    request: QuoteRequest | None,
) -> dict[str, str]:
    """Each address a transaction on `chain_id` may go to (lower-cased), with why."""
    allowed: dict[str, str] = {}
    chain = chains.by_id(chain_id) if chains is not None and chain_id is not None else None
    if chain is not None:
        for address, role in chain.contract_addresses().items():
            allowed.setdefault(address, f"the {role} contract /chains names")
        if chain.depository:
            allowed[chain.depository.lower()] = "the depository named by /chains"
    if (
        payment is not None
        and payment.currency
        and not _same_address(payment.currency, NATIVE_ADDRESS)
    ):
        allowed.setdefault(payment.currency.lower(), "the payment token")
    if step.deposit_address:
        allowed.setdefault(step.deposit_address.lower(), "the deposit address of this quote")
    for call in (request.txs if request is not None else None) or []:
        allowed.setdefault(call.to.lower(), "a contract you named in txs")
    return allowed


def destination_guard(
    tx: TransactionData,
    step: Step,
    payment: PaymentDetails | None,
    chains: ChainsResponse | None,
    request: QuoteRequest | None,
    where: str,
    quote: Quote | None = None,
) -> GuardResult:
    if chains is None:
        return _fail(
            "tx-destination",
            "there is no /chains answer to say which depository and contracts chain "
            f"{tx.chain_id} has; nothing is sent to an address it cannot name",
            where,
        )
    allowed = allowed_destinations(tx.chain_id, step, payment, chains, request)
    token = input_token(quote) if quote is not None and is_self_executed(quote) else None
    if token is not None:  # a self-executed swap's approve
        allowed.setdefault(token.lower(), "the swap's input token")
    why = allowed.get((tx.to or "").lower())
    if why is not None:
        return _ok("tx-destination", f"goes to {why} {short(tx.to)}", where)
    return _fail(
        "tx-destination",
        f"goes to {tx.to}, which is not the depository /chains names for chain {tx.chain_id}, "
        "a contract /chains names there, the payment token, the quote's deposit address or a "
        "contract you named",
        where,
    )


def payment_guards(
    quote: Quote,
    step: Step,
    tx: TransactionData,
    wallet: str | None,
    chains: ChainsResponse | None,
    where: str,
    request: QuoteRequest | None = None,
) -> list[GuardResult]:
    """What the transaction does with the payment (the destination is checked apart), held to
    paymentDetails and, through the one payment rule, to the request."""
    results = _payment_guards(quote, step, tx, wallet, chains, where)
    payment = quote.payment_details
    if is_self_executed(quote) or payment is None or any(not r.ok for r in results):
        return results  # a refusal already names what is wrong with this payment
    # what pays: a call to the depository, the payment token or the deposit address (a call
    # to another contract /chains names, or one the user named, may move no payment at all)
    payees = (payment.depository, payment.currency, step.deposit_address)
    if not any(p and _same_address(tx.to, p) for p in payees):
        return results
    try:
        call = decode_call(tx.data)
    except CalldataError:
        return results  # refused, or simulated and held to the quote (balance-changes)
    moved = _what_moves(tx, call)
    if moved is None:
        return results
    currency, amount = moved
    held = held_guard(
        "tx-payment", quote, request, where, chain_id=tx.chain_id, currency=currency,
        amount=amount, what=f"the transaction to {short(tx.to)}",
    )  # fmt: skip
    return results if held is None else [*results, held]


def _what_moves(tx: TransactionData, call: Call | None) -> tuple[str, int] | None:
    """(currency, amount) a transaction pays or lets be taken; None when it moves nothing."""
    value = tx.value or 0
    if call is None or call.name == "depositNative":
        return (NATIVE_ADDRESS, value) if value or call is not None else None
    if call.name == "depositErc20":
        return str(call.args["token"]), int(call.args["amount"])
    if call.name in ("transfer", "approve") and tx.to:
        return tx.to, int(call.args["amount"])
    return None


def _payment_guards(
    quote: Quote,
    step: Step,
    tx: TransactionData,
    wallet: str | None,
    chains: ChainsResponse | None,
    where: str,
) -> list[GuardResult]:
    payment = quote.payment_details
    try:
        call, undecoded = decode_call(tx.data), None
    except CalldataError as exc:
        call, undecoded = None, str(exc)
    if is_self_executed(quote):
        return [self_executed_payment(quote, tx, call, undecoded, chains, where)]
    if payment is None or not payment.depository or payment.amount is None:
        return [
            _fail(
                "tx-payment",
                "the quote has no protocol.v2.paymentDetails (depository, currency, amount): "
                "what this transaction pays cannot be held to anything; ask for a new quote",
                where,
            )
        ]
    if undecoded is not None:
        if _same_address(tx.to, payment.depository) or _same_address(tx.to, payment.currency):
            return [
                _fail(
                    "tx-payment",
                    f"calls {short(tx.to)} with data crossdeck cannot read: {undecoded}",
                    where,
                )
            ]
        # a contract /chains names (the destination guard holds it to that): what the call
        # does is simulated before signing and held to the quote
        return [
            _ok(
                "tx-payment",
                f"calls {short(tx.to)} with data crossdeck does not decode ({undecoded}); it is "
                "simulated before signing and held to the quote (balance-changes)",
                where,
            )
        ]
    if step.deposit_address:
        return [_deposit_address_payment(quote, tx, call, step.deposit_address, payment, where)]
    native = payment.currency is None or _same_address(payment.currency, NATIVE_ADDRESS)
    value = tx.value or 0
    paid = amount_words(quote, payment.amount, payment.currency)
    if _same_address(tx.to, payment.depository):
        return _deposit_call(quote, call, value, native, payment, wallet, paid, where)
    if not native and _same_address(tx.to, payment.currency):
        return [_approve(call, value, tx, payment, chains, paid, where)]
    # another contract /chains names, or one the user named: it may not move the payment
    if value != 0:
        return [
            _fail(
                "tx-payment",
                f"sends {format_units(value, NATIVE_DECIMALS)} native to {short(tx.to)}, "
                "which is not the depository",
                where,
            )
        ]
    return [_ok("tx-payment", f"calls {short(tx.to)} without sending value", where)]


def _deposit_call(
    quote: Quote,
    call: Call | None,
    value: int,
    native: bool,
    payment: PaymentDetails,
    wallet: str | None,
    paid: str,
    where: str,
) -> list[GuardResult]:
    wanted = "depositNative" if native else "depositErc20"
    if call is None or call.name != wanted:
        got = "no calldata" if call is None else call.name
        return [
            _fail(
                "tx-payment",
                f"calls the depository with {got}; paying {paid} is a {wanted}",
                where,
            )
        ]
    problems = []
    args = call.args
    if native and value != payment.amount:
        problems.append(f"sends {amount_words(quote, value, None)} but the payment is {paid}")
    if not native:
        if value != 0:
            problems.append(f"carries native value {value} beside a token deposit")
        if not _same_address(args["token"], payment.currency):
            problems.append(f"deposits token {args['token']}, not {payment.currency}")
        if args["amount"] != payment.amount:
            problems.append(
                f"deposits {amount_words(quote, args['amount'], payment.currency)}, but the "
                f"payment is {paid}"
            )
    if wallet is not None and not _same_address(args["depositor"], wallet):
        problems.append(f"credits depositor {args['depositor']}, not this wallet {wallet}")
    results = []
    if problems:
        results.append(_fail("tx-payment", "the deposit " + "; ".join(problems), where))
    else:
        results.append(
            _ok(
                "tx-payment",
                f"deposit {paid} into the depository {short(payment.depository)} named "
                "by /chains, credited to this wallet",
                where,
            )
        )
    order_id = quote.order_id
    if not order_id:
        results.append(
            _fail("order-id", "the quote has no protocol.v2.orderId to tag the deposit", where)
        )
    elif args["id"].lower() != order_id.lower():
        results.append(
            _fail(
                "order-id",
                f"the depository call does not carry orderId {order_id} (it carries {args['id']})",
                where,
            )
        )
    else:
        results.append(_ok("order-id", f"the deposit is tagged with orderId {order_id}", where))
    return results


def _approve(
    call: Call | None,
    value: int,
    tx: TransactionData,
    payment: PaymentDetails,
    chains: ChainsResponse | None,
    paid: str,
    where: str,
) -> GuardResult:
    if call is None or call.name != "approve":
        got = "no calldata" if call is None else call.name
        return _fail("tx-payment", f"calls the payment token with {got}, not approve", where)
    if value != 0:
        return _fail("tx-payment", f"an approve must carry no value, this one has {value}", where)
    spender = call.args["spender"]
    chain = chains.by_id(tx.chain_id) if chains is not None and tx.chain_id else None
    named = chain.contract_addresses() if chain is not None else {}
    if _same_address(spender, payment.depository):
        whom = f"the depository {short(spender)} named by /chains"
    elif spender.lower() in named:
        whom = f"the {named[spender.lower()]} contract {short(spender)} /chains names"
    else:
        return _fail(
            "tx-payment",
            f"approves {spender.lower()}, not the depository {payment.depository} nor a contract "
            "/chains names",
            where,
        )
    # more than the payment is an allowance kept after this transfer (an "unlimited" approval
    # is the classic case); less makes the deposit revert
    if call.args["amount"] != payment.amount:
        return _fail(
            "tx-payment",
            f"approves {call.args['amount']} of {tx.to}, but the payment is {payment.amount} "
            f"({paid})",
            where,
        )
    return _ok("tx-payment", f"approve {paid} to {whom}", where)


def _deposit_address_payment(
    quote: Quote,
    tx: TransactionData,
    call: Call | None,
    deposit_address: str,
    payment: PaymentDetails,
    where: str,
) -> GuardResult:
    """A deposit-address quote: the transfer goes to the step's `depositAddress`, a plain
    native transfer or the token's `transfer`, of the payment's amount."""
    value = tx.value or 0
    native = payment.currency is None or _same_address(payment.currency, NATIVE_ADDRESS)
    paid = amount_words(quote, payment.amount, payment.currency)
    if _same_address(tx.to, deposit_address):
        if call is not None:
            return _fail(
                "tx-payment",
                f"calls {call.name} on the deposit address {deposit_address}; a deposit there is "
                "a plain transfer",
                where,
            )
        if not native:
            return _fail(
                "tx-payment",
                f"sends native value to the deposit address, but the payment is in token "
                f"{payment.currency}",
                where,
            )
        if value != payment.amount:
            return _fail(
                "tx-payment",
                f"sends {value} to the deposit address but the payment is {payment.amount}",
                where,
            )
        return _ok("tx-payment", f"send {paid} to the deposit address {short(tx.to)}", where)
    if not native and _same_address(tx.to, payment.currency):
        if call is None or call.name != "transfer" or value != 0:
            got = "no calldata" if call is None else call.name
            return _fail(
                "tx-payment",
                f"calls the token {tx.to} with {got} (value {value}), not a plain transfer",
                where,
            )
        if not _same_address(call.args["to"], deposit_address):
            return _fail(
                "tx-payment",
                f"transfers to {call.args['to']}, not the deposit address {deposit_address}",
                where,
            )
        if call.args["amount"] != payment.amount:
            return _fail(
                "tx-payment",
                f"transfers {call.args['amount']} but the payment is {payment.amount}",
                where,
            )
        return _ok(
            "tx-payment",
            f"transfer {paid} to the deposit address {short(deposit_address)}",
            where,
        )
    return _fail(
        "tx-payment",
        f"goes to {tx.to}, which is neither the step's depositAddress {deposit_address} nor "
        f"the payment token {payment.currency}",
        where,
    )


def depository_guard(
    quote: Quote, chains: ChainsResponse | None, chain_id: int | None
) -> list[GuardResult]:
    """paymentDetails.depository is the depository /chains names for the paid chain: a quote
    cannot name its own depository."""
    payment = quote.payment_details
    if payment is None or chain_id is None:
        return []  # no payment: the items are refused; an unknown chain: payment-chain says so
    if chains is None:
        return [
            _fail(
                "depository",
                "there is no /chains answer to confirm the depository "
                f"{payment.depository}; nothing is paid to a depository /chains does not name",
            )
        ]
    chain = chains.by_id(chain_id)
    named = chain.depository if chain is not None else None
    if not named:
        return [_fail("depository", f"/chains names no depository for chain {chain_id}")]
    if not _same_address(payment.depository, named):
        return [
            _fail(
                "depository",
                f"the quote pays depository {payment.depository}, but /chains names {named} for "
                f"chain {chain_id}",
            )
        ]
    return [
        _ok(
            "depository",
            f"pays the depository {short(named)} named by /chains for chain {chain_id}",
        )
    ]
