"""The quote against the request the user made: the same chains and currencies, the amount the
trade type means, the recipient, where refunds go, and the user.

A quote can be consistent with itself and still not be what was asked for (the amount inflated
in the value, paymentDetails and currencyIn together; the chain changed everywhere); only the
request says what the user wanted. Without one, nothing here can be checked: the executor
refuses such a quote unless the user says `--trust-quote`.
"""

from __future__ import annotations

import re
from typing import Any

from crossdeck.execute.guards.base import (
    GuardResult,
    PaymentChain,
    _fail,
    _ok,
    _same_address,
)
from crossdeck.execute.guards.calls import call_receivers, calls_guard
from crossdeck.execute.guards.payment import amount_words
from crossdeck.execute.guards.payment_rule import payment_request_guard
from crossdeck.models import ChainsResponse, CurrencyAmount, Quote, QuoteRequest
from crossdeck.models.addresses import canonical_address, solana_problem
from crossdeck.models.base58 import b58decode

BPS = 10_000
_BYTES32 = re.compile(r"0x[0-9a-fA-F]{64}")


def no_request_guard(trusted: bool) -> GuardResult:
    """A quote shown without the request it answers (an old journal, a quote file)."""
    if trusted:
        return _ok(
            "request",
            "NOT CHECKED against a request: you chose --trust-quote, so the chains, currencies, "
            "amount and recipient are the quote's own word",
        )
    return _fail(
        "request",
        "there is no request to hold the quote to (chains, currencies, amount, recipient); "
        "ask for a new quote, or pass --trust-quote to execute it on its own word",
    )


def request_guards(
    quote: Quote,
    request: QuoteRequest,
    wallet: str | None,
    paid: PaymentChain,
    chains: ChainsResponse | None = None,
) -> list[GuardResult]:
    details = quote.details
    amount_in = details.currency_in if details else None
    amount_out = details.currency_out if details else None
    return [
        _user_guard(quote, request, wallet),
        _side_guard(
            "request-origin",
            "origin",
            amount_in,
            request.origin_chain_id,
            request.origin_currency,
            paid,
        ),
        _side_guard(
            "request-destination",
            "destination",
            amount_out,
            request.destination_chain_id,
            request.destination_currency,
            None,
        ),
        _amount_guard(quote, request, amount_in, amount_out),
        payment_request_guard(quote, request, paid),
        _recipient_guard(quote, request, call_receivers(request, chains)),
        _refund_guard(quote, request),
        calls_guard(quote, request),
    ]


def _user_guard(quote: Quote, request: QuoteRequest, wallet: str | None) -> GuardResult:
    problems = []
    if wallet is not None and not _same_address(request.user, wallet):
        problems.append(f"the request is for user {request.user}, not this wallet {wallet}")
    sender = quote.details.sender if quote.details else None
    if sender is not None and not _same_address(sender, request.user):
        problems.append(f"the quote's sender is {sender}, not the user {request.user}")
    if problems:
        return _fail("request-user", "; ".join(problems))
    return _ok("request-user", f"made out for you ({request.user})")


def _currency_of(amount: CurrencyAmount | None) -> tuple[int | None, str | None]:
    currency = amount.currency if amount is not None else None
    if currency is None or isinstance(currency, str):
        return None, None
    return currency.chain_id, currency.address


def _side_guard(
    name: str,
    side: str,
    amount: CurrencyAmount | None,
    chain_id: int,
    currency: str,
    paid: PaymentChain | None,
) -> GuardResult:
    quoted_chain, quoted_currency = _currency_of(amount)
    problems = []
    if quoted_chain != chain_id:
        problems.append(f"the quote's {side} chain is {quoted_chain}, you asked for {chain_id}")
    if not _same_address(quoted_currency, currency):
        problems.append(
            f"the quote's {side} currency is {quoted_currency}, you asked for {currency}"
        )
    if paid is not None and paid.chain_id is not None and paid.chain_id != chain_id:
        problems.append(f"the payment is on chain {paid.chain_id}, you asked to pay on {chain_id}")
    if problems:
        return _fail(name, "; ".join(problems))
    symbol = amount.symbol if amount is not None else None
    return _ok(name, f"{side}: {symbol or currency} on chain {chain_id}, as you asked")


def _amount_guard(
    quote: Quote,
    request: QuoteRequest,
    amount_in: CurrencyAmount | None,
    amount_out: CurrencyAmount | None,
) -> GuardResult:
    payment = quote.payment_details
    wanted = request.amount_int
    leaves = payment.amount if payment is not None else None
    if leaves is None:
        leaves = amount_in.amount if amount_in is not None else None
    currency = payment.currency if payment is not None else request.origin_currency
    if leaves is None:
        return _fail("request-amount", "the quote says nothing about what leaves the wallet")
    if not _same_address(currency, request.origin_currency):
        # the same number of units of another currency is not what was asked (payment-request)
        return _fail(
            "request-amount",
            f"{leaves} units of {currency} would leave the wallet, but you asked to send "
            f"{request.origin_currency}: the same number of units of another currency is not "
            "what you asked to send",
        )
    words = amount_words(quote, leaves, currency)
    if request.trade_type == "EXACT_INPUT":
        if leaves != wanted or (amount_in is not None and amount_in.amount != wanted):
            return _fail(
                "request-amount",
                f"{words} would leave the wallet, but you asked to send exactly "
                f"{amount_words(quote, wanted, currency)}",
            )
        return _ok("request-amount", f"sends exactly the {words} you asked to send")
    # EXACT_OUTPUT / EXPECTED_OUTPUT: the amount is what arrives; what leaves is the quoted
    # input, within the slippage the user allowed (none given: none allowed)
    slippage = request.slippage_tolerance or 0
    quoted_in = amount_in.amount if amount_in is not None else None
    if quoted_in is None:
        return _fail("request-amount", "the quote has no currencyIn amount to bound the payment")
    ceiling = quoted_in * (BPS + slippage) // BPS
    problems = []
    if leaves > ceiling:
        problems.append(
            f"{words} would leave the wallet, more than the quoted "
            f"{amount_words(quote, quoted_in, currency)} plus your slippage of {slippage} bps"
        )
    arrives = amount_out.amount if amount_out is not None else None
    floor = wanted * (BPS - slippage) // BPS
    if arrives is None or arrives < floor:
        problems.append(f"the quote delivers {arrives}, less than the {wanted} you asked for")
    if problems:
        return _fail("request-amount", "; ".join(problems))
    return _ok(
        "request-amount",
        f"{words} leaves the wallet for the {wanted} you asked to receive ({slippage} bps "
        "slippage allowed)",
    )


def _order_addresses(quote: Quote, key: str) -> list[str]:
    """Addresses the protocol order names: `output.payments[].recipient` ('recipient') or
    `inputs[].refunds[].recipient` ('refund')."""
    v2 = quote.protocol.v2 if quote.protocol else None
    order: Any = v2.order_data if v2 else None
    if not isinstance(order, dict):
        return []
    found: list[object] = []  # as the order data holds them: kept only if strings, below
    if key == "recipient":
        output = order.get("output")
        payments = output.get("payments") if isinstance(output, dict) else None
        found = [p.get("recipient") for p in payments or [] if isinstance(p, dict)]
    else:
        for entry in order.get("inputs") or []:
            refunds = entry.get("refunds") if isinstance(entry, dict) else None
            found += [r.get("recipient") for r in refunds or [] if isinstance(r, dict)]
    return [a for a in found if isinstance(a, str)]


def _same_recipient(named: str, wanted: str) -> bool:
    """One recipient in its family's terms (`same_address`), or a Solana key written as its
    32 bytes in hex, the form a bytes32 field of the protocol order gives it."""
    if _same_address(named, wanted):
        return True
    if _BYTES32.fullmatch(named) and solana_problem(wanted) is None:
        return bytes.fromhex(named[2:]) == b58decode(wanted)
    return False


def _recipient_guard(quote: Quote, request: QuoteRequest, receivers: dict[str, str]) -> GuardResult:
    """The quote pays out to the recipient asked for. With calls asked for, the order may pay
    the destination's router instead (`receivers`, as /chains names it), which runs them out
    of the output: the public service's calling quotes do; the quote must still name the
    recipient asked for."""
    wanted = request.recipient or request.user
    quoted = quote.details.recipient if quote.details else None
    paid = _order_addresses(quote, "recipient")
    routed = [a for a in paid if not _same_recipient(a, wanted) and a.lower() in receivers]
    named = [quoted, *(a for a in paid if a not in routed)]
    wrong = [a for a in named if a is not None and not _same_recipient(a, wanted)]
    if wrong:
        return _fail(
            "request-recipient",
            f"the quote pays out to {wrong[0]}, but you asked for the funds to go to {wanted}",
        )
    if quoted is None and not named[1:]:
        return _fail("request-recipient", "the quote names no recipient to check")
    if routed:
        return _ok(
            "request-recipient",
            f"pays out to {wanted}, as you asked, through the service's "
            f"{receivers[routed[0].lower()]} {routed[0]}, which makes the calls you asked for",
        )
    return _ok("request-recipient", f"pays out to {wanted}, as you asked")


def _refund_guard(quote: Quote, request: QuoteRequest) -> GuardResult:
    refunds = _order_addresses(quote, "refund")
    if request.refund_to:
        allowed = {canonical_address(request.refund_to)}
        said = f"refundTo {request.refund_to}"
    else:
        # no refundTo given: a refund may go back to the user or to the recipient they named
        allowed = {canonical_address(a) for a in (request.user, request.recipient) if a}
        said = "you or your recipient"
    wrong = [a for a in refunds if canonical_address(a) not in allowed]
    if wrong:
        return _fail("request-refund", f"a refund would go to {wrong[0]}, not {said}")
    return _ok("request-refund", f"refunds go to {said}")
