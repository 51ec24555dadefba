"""The guards over a venue transfer (sendAsset) and the authorization that ties it to the
request (`venue-nonce`), and the built SendAsset domain."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from crossdeck.execute.guards.base import (
    NONCE_MAPPING,
    GuardResult,
    PaymentChain,
    _decimal,
    _fail,
    _int,
    _items,
    _ok,
    _same_address,
    _where,
)
from crossdeck.execute.guards.payment_rule import held_guard
from crossdeck.models import (
    VENUE_CHAIN_ID,
    ZERO_ADDRESS,
    PaymentDetails,
    Quote,
    QuoteRequest,
    SendAssetAction,
    SignatureData,
    Step,
    VenueDepositData,
    format_units,
)
from crossdeck.models.text import short
from crossdeck.venue.currencies import expected_token_id


def _authorize_items(quote: Quote) -> list[tuple[Step, int, SignatureData]]:
    found = []
    for _, step, index, item in _items(quote):
        if item.kind_of_data != "signature":
            continue
        data = item.as_signature()
        if data.sign is not None and data.sign.primary_type == NONCE_MAPPING:
            found.append((step, index, data))
    return found


def _venue_items(quote: Quote) -> list[tuple[Step, int, VenueDepositData]]:
    return [
        (step, index, item.as_venue_deposit())
        for _, step, index, item in _items(quote)
        if item.kind_of_data == "venue_deposit"
    ]


def venue_nonce_guard(quote: Quote) -> list[GuardResult]:
    venue = _venue_items(quote)
    authorizations = _authorize_items(quote)
    if not venue and not authorizations:
        return []
    mapped: set[int | None] = set()
    problems: list[str] = []
    for step, index, data in authorizations:
        signed = _int((data.sign.value or {}).get("nonce")) if data.sign else None
        posted = _int(((data.post.body if data.post else None) or {}).get("nonce"))
        if signed is None:
            problems.append(f"{_where(step, index)}: the NonceMapping has no nonce")
        if signed != posted:
            problems.append(
                f"{_where(step, index)}: signed nonce {signed} but the body posts nonce {posted}"
            )
        mapped.add(signed)
    for step, index, deposit in venue:
        action_nonce = deposit.action.nonce if deposit.action else None
        if deposit.nonce is None or deposit.nonce != action_nonce:
            problems.append(
                f"{_where(step, index)}: deposit nonce {deposit.nonce} != "
                f"action.parameters.nonce {action_nonce}"
            )
        if not authorizations:
            problems.append(
                f"{_where(step, index)}: a venue transfer without an authorize step cannot be "
                "tied to the request"
            )
        elif deposit.nonce not in mapped:
            problems.append(
                f"{_where(step, index)}: deposit nonce {deposit.nonce} != authorize nonce "
                f"{', '.join(str(n) for n in sorted(mapped, key=str))}"
            )
    if problems:
        return [_fail("venue-nonce", "; ".join(problems))]
    nonces = ", ".join(str(n) for n in sorted(mapped, key=str))
    return [
        _ok(
            "venue-nonce",
            f"the authorization and the venue transfer share nonce {nonces}, which ties the "
            "transfer to this request",
        )
    ]


def venue_transfer_guards(
    quote: Quote,
    data: VenueDepositData,
    payment: PaymentDetails | None,
    where: str,
    paid: PaymentChain,
    request: QuoteRequest | None = None,
) -> list[GuardResult]:
    action = data.action
    assert action is not None  # the kind guard passed
    details = quote.details
    currency_in = details.currency_in if details else None
    results: list[GuardResult] = []
    if paid.chain_id is not None and paid.chain_id != VENUE_CHAIN_ID:
        results.append(
            _fail(
                "send-asset-destination",
                f"a venue transfer, but the payment is on chain {paid.chain_id} "
                f"(paymentDetails.chainId {paid.name!r}), not the venue {VENUE_CHAIN_ID}",
                where,
            )
        )

    if payment is None or not payment.depository:
        results.append(
            _fail("send-asset-destination", "the quote has no paymentDetails.depository", where)
        )
    elif _same_address(action.destination, payment.depository):
        results.append(
            _ok(
                "send-asset-destination",
                f"pays the depository {short(payment.depository)} the quote names",
                where,
            )
        )
    else:
        results.append(
            _fail(
                "send-asset-destination",
                f"sendAsset destination {action.destination} is not the quote's depository "
                f"{payment.depository}",
                where,
            )
        )

    currency = currency_in.currency_info if currency_in else None

    amount = _decimal(action.amount)
    quoted = currency_in.amount_formatted_decimal if currency_in else None
    problems = []
    if amount is None:
        problems.append(f"sendAsset amount {action.amount!r} is not a decimal number")
    elif quoted is None:
        problems.append("the quote has no currencyIn.amountFormatted to compare with")
    elif amount != quoted:
        problems.append(
            f"sendAsset amount {action.amount} != the quote's currencyIn "
            f"{currency_in.amount_formatted if currency_in else None}"
        )
    decimals = currency.decimals if currency else None
    if amount is not None and payment is not None and payment.amount is not None:
        if decimals is None:
            problems.append("the quote's currencyIn has no decimals")
        elif Decimal(format_units(payment.amount, decimals)) != amount:
            problems.append(
                f"sendAsset amount {action.amount} != paymentDetails.amount "
                f"{format_units(payment.amount, decimals)}"
            )
    held = _held_to_request(quote, request, action, amount, decimals, where)
    if problems:
        results.append(_fail("send-asset-amount", "; ".join(problems), where))
    elif held is not None:
        results.append(held)
    else:
        symbol = (currency.symbol if currency else None) or ""
        results.append(
            _ok(
                "send-asset-amount",
                f"sends exactly {action.amount} {symbol}, the quoted amount".replace("  ", " "),
                where,
            )
        )
    return results


def _held_to_request(
    quote: Quote,
    request: QuoteRequest | None,
    action: SendAssetAction,
    amount: Decimal | None,
    decimals: int | None,
    where: str,
) -> GuardResult | None:
    """The sendAsset held to the request by the one payment rule: its token and book are the
    ones the asked currency stands for on the venue, its amount the asked one."""
    if request is None:
        return None
    asked = expected_token_id(request.origin_currency)
    token = (action.token or "").rpartition(":")[2].lower()
    source_dex = str(action.parameters.get("sourceDex", ""))
    same = asked is not None and asked[0].lower() == token and asked[1] == source_dex
    currency = request.origin_currency if same else f"{action.token} (book {source_dex!r})"
    units = None
    if amount is not None and decimals is not None:
        scaled = amount.scaleb(decimals)
        units = int(scaled) if scaled == scaled.to_integral_value() else None
    return held_guard(
        "send-asset-amount", quote, request, where, chain_id=VENUE_CHAIN_ID,
        currency=currency, amount=units, what="the venue transfer",
    )  # fmt: skip


def built_domain_guard(typed_data: dict[str, Any], expected_name: str, where: str) -> GuardResult:
    """The SendAsset typed data about to be signed has the spec's domain."""
    domain = typed_data.get("domain", {})
    if not _same_address(domain.get("verifyingContract"), ZERO_ADDRESS):
        return _fail(
            "verifying-contract",
            f"SendAsset domain verifyingContract {domain.get('verifyingContract')} is not zero",
            where,
        )
    if domain.get("name") != expected_name:
        return _fail(
            "verifying-contract",
            f"SendAsset domain name {domain.get('name')!r} is not {expected_name!r}",
            where,
        )
    return _ok(
        "verifying-contract",
        f"the venue transfer is signed for {expected_name} and names no contract, as the venue "
        "requires",
        where,
    )
