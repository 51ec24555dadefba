"""The guards over an EIP-712 signature: a NonceMapping authorization or an EIP-3009 permit."""

from __future__ import annotations

from crossdeck.execute.guards.base import (
    NONCE_MAPPING,
    PERMIT_TYPES,
    GuardResult,
    PaymentChain,
    _fail,
    _int,
    _ok,
    _same_address,
)
from crossdeck.execute.guards.payment import (
    amount_words,
)
from crossdeck.execute.guards.payment_rule import held_guard
from crossdeck.execute.guards.typed import nonce_mapping_fields, typed_kind_guard
from crossdeck.execute.guards.venue_words import (
    authorize_domain_guard,
)
from crossdeck.models import (
    ZERO_ADDRESS,
    ChainsResponse,
    Quote,
    QuoteRequest,
    SignatureData,
)
from crossdeck.models.text import short


def signature_guards(
    quote: Quote,
    data: SignatureData,
    where: str,
    wallet: str | None,
    paid: PaymentChain,
    chains: ChainsResponse | None,
    service_name: str | None,
    request: QuoteRequest | None = None,
) -> list[GuardResult]:
    sign = data.sign
    assert sign is not None  # the kind guard passed
    if sign.signature_kind != "eip712":
        return []
    results: list[GuardResult] = [typed_kind_guard(sign, where)]
    domain = sign.domain or {}
    if sign.primary_type == NONCE_MAPPING:
        body = (data.post.body if data.post else None) or {}
        results.append(nonce_mapping_fields(sign, body, paid, chains, where))
        results.append(authorize_domain_guard(sign, service_name, where))
        contract = domain.get("verifyingContract")
        if _same_address(contract, ZERO_ADDRESS):
            results.append(
                _ok(
                    "verifying-contract",
                    "the authorization names no contract (the all-zero address the venue requires)",
                    where,
                )
            )
        else:
            results.append(
                _fail(
                    "verifying-contract",
                    f"the NonceMapping domain's verifyingContract is {contract}, not the zero "
                    "address",
                    where,
                )
            )
        results.append(_authorize_terms(quote, data, where, wallet))
    elif sign.primary_type in PERMIT_TYPES:
        results.append(_permit_terms(quote, data, where, wallet, paid, request))
    return results


def _authorize_terms(
    quote: Quote, data: SignatureData, where: str, wallet: str | None
) -> GuardResult:
    value = (data.sign.value if data.sign else None) or {}
    body = (data.post.body if data.post else None) or {}
    if "depositor" not in value:
        # the older NonceMapping (domain version 1) maps only the wallet; what the service does
        # with a deposit whose depositor is not named cannot be judged from the quote
        return _fail(
            "authorize-terms",
            "the NonceMapping has no `depositor` field (an older authorize form): it cannot be "
            "checked that the deposit is mapped from this wallet; ask for a new quote",
            where,
        )
    problems = []
    for name in ("wallet", "depositor"):
        if not _same_address(value.get(name), body.get(name)):
            problems.append(f"signed {name} {value.get(name)} but posts {body.get(name)}")
        if wallet is not None and not _same_address(value.get(name), wallet):
            problems.append(f"{name} {value.get(name)} is not this wallet {wallet}")
    if str(value.get("id", "")).lower() != str(body.get("id", "")).lower():
        problems.append(f"signed id {value.get('id')} but posts id {body.get('id')}")
    # The id is the quote's orderId (the protocol-level deposit id); the request id is accepted
    # too, because the two are the same value in some deployments. Anything else ties the
    # transfer to a different deposit.
    mapped = str(value.get("id", "")).lower()
    known = {i.lower() for i in (quote.order_id, quote.request_id) if i}
    if known and mapped not in known:
        problems.append(
            f"maps id {value.get('id')}, which is neither the quote's orderId {quote.order_id} "
            f"nor its requestId {quote.request_id}"
        )
    if problems:
        return _fail("authorize-terms", "; ".join(problems), where)
    return _ok(
        "authorize-terms",
        f"ties your wallet's venue nonce to this order ({short(str(value.get('id')))})",
        where,
    )


def _permit_terms(
    quote: Quote,
    data: SignatureData,
    where: str,
    wallet: str | None,
    paid: PaymentChain,
    request: QuoteRequest | None = None,
) -> GuardResult:
    sign = data.sign
    assert sign is not None
    value = sign.value or {}
    domain = sign.domain or {}
    payment = quote.payment_details
    if payment is None:
        return _fail("permit-terms", "the quote has no paymentDetails to check the permit", where)
    problems = []
    if wallet is not None and not _same_address(value.get("from"), wallet):
        problems.append(f"from {value.get('from')} is not this wallet {wallet}")
    if not _same_address(value.get("to"), payment.depository):
        problems.append(f"pays {value.get('to')}, not the depository {payment.depository}")
    if _int(value.get("value")) != payment.amount:
        problems.append(f"moves {value.get('value')}, not the payment amount {payment.amount}")
    if not _same_address(domain.get("verifyingContract"), payment.currency):
        problems.append(
            f"is for token {domain.get('verifyingContract')}, not the payment currency "
            f"{payment.currency}"
        )
    if paid.problem is not None:
        problems.append(f"cannot be checked against the payment's chain: {paid.problem}")
    elif _int(domain.get("chainId")) != paid.chain_id:
        problems.append(
            f"is on chain {domain.get('chainId')}, not {paid.chain_id} "
            f"(paymentDetails.chainId {paid.name!r})"
        )
    if problems:
        return _fail("permit-terms", "the permit " + "; ".join(problems), where)
    held = held_guard(
        "permit-terms", quote, request, where, chain_id=_int(domain.get("chainId")),
        currency=domain.get("verifyingContract"), amount=_int(value.get("value")),
        what="the permit",
    )  # fmt: skip
    if held is not None:
        return held
    return _ok(
        "permit-terms",
        f"lets the depository {short(payment.depository)} take exactly "
        f"{amount_words(quote, payment.amount, payment.currency)}, once",
        where,
    )
