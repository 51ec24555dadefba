"""The one payment rule, for every chain family: what leaves the wallet is the currency the user
asked to send, on the chain they asked, in the amount they asked (EXACT_INPUT) or at most the
quoted amount plus their slippage (the output trade types).

A quote can agree with itself and still pay something else: paymentDetails, the deposit and
currencyIn all naming another currency with the same number of units. So paymentDetails is held
to the REQUEST (`payment-request`), and each family's deposit is held to the request as well as
to paymentDetails, through `held_to_request` (EVM `tx-payment`, Solana `solana-deposit`, the
venue's `send-asset-amount`, an EIP-3009 `permit-terms`). Without a request (`--trust-quote`)
there is nothing to hold a payment to but the quote itself, and the dialog says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from crossdeck.execute.guards.base import GuardResult, PaymentChain, _fail, _ok
from crossdeck.models import Quote, QuoteRequest, format_units
from crossdeck.models.addresses import same_address

BPS = 10_000


@dataclass(frozen=True)
class AskedPayment:
    """What the request lets leave the wallet: `amount` exactly (`exact`), or at most."""

    chain_id: int
    currency: str
    amount: int
    exact: bool
    symbol: str | None = None
    decimals: int | None = None

    def units(self, amount: int) -> str:
        """`amount` of the asked currency in words: '0.1 SOL (100000000)'."""
        if self.decimals is None:
            return f"{amount} units of {self.currency}"
        human = format_units(amount, self.decimals)
        return f"{human} {self.symbol or self.currency} ({amount})"

    @property
    def words(self) -> str:
        bound = "exactly" if self.exact else "at most"
        return f"{bound} {self.units(self.amount)} on chain {self.chain_id}"


def asked_payment(quote: Quote, request: QuoteRequest) -> AskedPayment | str:
    """The payment the request allows, or why the quote gives nothing to bound it with."""
    details = quote.details
    amount_in = details.currency_in if details else None
    # the asked currency's symbol and decimals, from whichever of the quote's amounts is in it
    # (currencyIn, or the gas fee for a native currency), never from one in another currency
    named = [a.currency_info for a in (amount_in, quote.fees.gas if quote.fees else None) if a]
    info = next(
        (i for i in named if i is not None and same_address(i.address, request.origin_currency)),
        None,
    )
    symbol = info.symbol if info is not None else None
    decimals = info.decimals if info is not None else None
    if request.trade_type == "EXACT_INPUT":
        return AskedPayment(
            request.origin_chain_id, request.origin_currency, request.amount_int, True,
            symbol, decimals,
        )  # fmt: skip
    # the output trade types: the amount is what arrives; what leaves is the quoted input
    # (currencyIn, itself held to the request's currency by `request-origin`) within slippage
    quoted = amount_in.amount if amount_in is not None else None
    if quoted is None:
        return "the quote has no currencyIn amount to bound what leaves the wallet"
    slippage = request.slippage_tolerance or 0
    ceiling = quoted * (BPS + slippage) // BPS
    return AskedPayment(
        request.origin_chain_id, request.origin_currency, ceiling, False, symbol, decimals
    )


def held_to_request(
    asked: AskedPayment, *, chain_id: int | None, currency: str | None, amount: int | None,
    what: str,
) -> list[str]:  # fmt: skip
    """Why `what` (paying `amount` of `currency` on `chain_id`) is not the asked payment; []
    when it is. The currency is compared in its family's terms (EVM without case, base58
    exactly), never by its number of units alone."""
    problems = []
    if chain_id != asked.chain_id:
        problems.append(f"{what} pays on chain {chain_id}, you asked to pay on {asked.chain_id}")
    if currency is None or not same_address(currency, asked.currency):
        problems.append(
            f"{what} pays in {currency}, not the {asked.symbol or asked.currency} you asked to "
            f"send ({asked.currency})"
        )
    if amount is None:
        problems.append(f"{what} names no amount")
    elif asked.exact and amount != asked.amount:
        problems.append(
            f"{what} pays {amount} units, you asked to send exactly {asked.units(asked.amount)}"
        )
    elif not asked.exact and amount > asked.amount:
        problems.append(
            f"{what} pays {amount} units, more than the {asked.units(asked.amount)} the quote "
            "and your slippage allow"
        )
    return problems


def payment_request_guard(quote: Quote, request: QuoteRequest, paid: PaymentChain) -> GuardResult:
    """`payment-request`: paymentDetails is the payment the request asked for."""
    payment = quote.payment_details
    asked = asked_payment(quote, request)
    if isinstance(asked, str):
        return _fail("payment-request", asked)
    if payment is None:
        # no paymentDetails: each item is held to the request itself (a venue withdrawal's
        # sendAsset, a same-chain swap's simulation), or refused by its own guard
        return _ok("payment-request", f"you asked to send {asked.words}")
    if paid.problem is not None:
        return _fail("payment-request", paid.problem)
    problems = held_to_request(
        asked,
        chain_id=paid.chain_id,
        currency=payment.currency,
        amount=payment.amount,
        what="paymentDetails",
    )
    if problems:
        return _fail("payment-request", "; ".join(problems))
    return _ok("payment-request", f"pays {asked.words}, the currency and amount you asked")


def held_guard(
    name: str, quote: Quote, request: QuoteRequest | None, where: str, *,
    chain_id: int | None, currency: str | None, amount: int | None, what: str,
) -> GuardResult | None:  # fmt: skip
    """A family's deposit held to the request: a failure of `name`, or None when it holds (or
    when there is no request to hold it to)."""
    if request is None:
        return None
    asked = asked_payment(quote, request)
    if isinstance(asked, str):
        return _fail(name, asked, where)
    problems = held_to_request(
        asked, chain_id=chain_id, currency=currency, amount=amount, what=what
    )
    return _fail(name, "; ".join(problems), where) if problems else None
