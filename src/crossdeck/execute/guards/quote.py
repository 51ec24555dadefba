"""The guards over a quote and its items: what each step asks for, in the quote's own terms
and against /chains. `check_quote` / `check_item` are the entry points (see the package doc)."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal
from typing import Any

from crossdeck.execute.guards.addresses import address_checksum_guard
from crossdeck.execute.guards.base import (
    _EVM_ADDRESS,
    _FOREIGN_ITEM_KEYS,
    NONCE_MAPPING,
    PERMIT_TYPES,
    GuardResult,
    PaymentChain,
    _decimal,
    _fail,
    _int,
    _items,
    _ok,
    _payment_chain_guard,
    _same_address,
    _where,
    payment_chain,
)
from crossdeck.execute.guards.endpoints import endpoint_guards
from crossdeck.execute.guards.messages import message_guards
from crossdeck.execute.guards.order import order_version_guard
from crossdeck.execute.guards.payment import (
    amount_words,
    depository_guard,
    destination_guard,
    payment_guards,
)
from crossdeck.execute.guards.request import request_guards
from crossdeck.execute.guards.solana import solana_guards
from crossdeck.execute.guards.steps import steps_guard
from crossdeck.execute.guards.typed import nonce_mapping_fields, typed_kind_guard, venue_fields
from crossdeck.execute.guards.venue_words import (
    authorize_domain_guard,
    send_asset_dex_guard,
    send_asset_shape_guard,
    send_asset_token_guard,
)
from crossdeck.models import (
    VENUE_CHAIN_ID,
    ZERO_ADDRESS,
    ChainsResponse,
    PaymentDetails,
    Quote,
    QuoteRequest,
    SignatureData,
    Step,
    StepItem,
    TransactionData,
    VenueDepositData,
    WireModel,
    format_units,
)
from crossdeck.models.text import short
from crossdeck.models.venue import SpotMeta

# -- whole-quote guards -------------------------------------------------------------------


_KIND_WORDS = {
    "transaction": "an EVM transaction",
    "signature": "a signature",
    "venue_deposit": "a venue transfer",
    "solana": "a Solana transaction",
}


def _request_id_guard(quote: Quote) -> GuardResult:
    ids = {s.request_id for s in quote.steps if s.request_id}
    if not ids:
        return _fail("request-id", "no step carries a requestId: the request cannot be tracked")
    if len(ids) > 1:
        return _fail("request-id", f"steps carry different request ids: {sorted(ids)}")
    request_id = next(iter(ids))
    return _ok("request-id", f"every step is part of one request, {short(request_id)}")


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


def _venue_nonce_guard(quote: Quote) -> list[GuardResult]:
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


def check_quote(
    quote: Quote,
    *,
    wallet: str | None = None,
    rpc_chain_ids: Collection[int] | None = None,
    chains: ChainsResponse | None = None,
    request: QuoteRequest | None = None,
    service_name: str | None = None,
    spot_meta: SpotMeta | None = None,
) -> list[GuardResult]:
    """Every guard over the whole quote. `rpc_chain_ids`: chains with a configured RPC (None:
    not checked here). `chains`: the /chains answer, which maps the chain names of
    paymentDetails to chain ids (needed whenever the quote names its chain). `service_name`
    (the setting `service.name`) and `spot_meta` (the venue's) hold a venue withdrawal's
    NonceMapping domain and sendAsset token to what the service and the venue read."""
    paid = payment_chain(quote, chains)
    results = [
        _request_id_guard(quote),
        *_payment_chain_guard(paid),
        *depository_guard(quote, chains, paid.chain_id),
        steps_guard(quote),
        address_checksum_guard(quote),
        *_venue_nonce_guard(quote),
        *endpoint_guards(quote),
        *message_guards(quote),
        *order_version_guard(quote),
    ]
    if request is not None:
        results += request_guards(quote, request, wallet, paid, chains)
    for step_index, _step, item_index, _item in _items(quote):
        results += item_guards(
            quote,
            step_index,
            item_index,
            wallet=wallet,
            rpc_chain_ids=rpc_chain_ids,
            chains=chains,
            request=request,
            service_name=service_name,
            spot_meta=spot_meta,
        )
    return results


def check_item(
    quote: Quote,
    step_index: int,
    item_index: int,
    *,
    wallet: str | None = None,
    rpc_chain_ids: Collection[int] | None = None,
    chains: ChainsResponse | None = None,
    request: QuoteRequest | None = None,
    service_name: str | None = None,
    spot_meta: SpotMeta | None = None,
) -> list[GuardResult]:
    """The guards that concern one item, run right before it is signed."""
    paid = payment_chain(quote, chains)
    results = [
        _request_id_guard(quote),
        *_payment_chain_guard(paid),
        *depository_guard(quote, chains, paid.chain_id),
        steps_guard(quote),
        address_checksum_guard(quote),
        *endpoint_guards(quote),
        *message_guards(quote),
        *order_version_guard(quote),
    ]
    if request is not None:  # shown beside each signature, so the dialog lists them too
        results += request_guards(quote, request, wallet, paid, chains)
    kind = quote.steps[step_index].items[item_index].kind_of_data
    if kind in ("venue_deposit", "signature"):
        results += _venue_nonce_guard(quote)
    return results + item_guards(
        quote,
        step_index,
        item_index,
        wallet=wallet,
        rpc_chain_ids=rpc_chain_ids,
        chains=chains,
        request=request,
        service_name=service_name,
        spot_meta=spot_meta,
    )


# -- per-item guards ----------------------------------------------------------------------


def item_guards(
    quote: Quote,
    step_index: int,
    item_index: int,
    *,
    wallet: str | None = None,
    rpc_chain_ids: Collection[int] | None = None,
    chains: ChainsResponse | None = None,
    request: QuoteRequest | None = None,
    service_name: str | None = None,
    spot_meta: SpotMeta | None = None,
) -> list[GuardResult]:
    step = quote.steps[step_index]
    item = step.items[item_index]
    where = _where(step, item_index)
    kind_result = _kind_guard(step, item, where)
    if not kind_result.ok:
        return [kind_result]
    kind = item.kind_of_data
    payment = quote.payment_details
    paid = payment_chain(quote, chains)
    if kind == "transaction":
        return [
            kind_result,
            *_tx_guards(
                quote,
                step,
                item.as_transaction(),
                where,
                wallet,
                rpc_chain_ids,
                paid,
                chains,
                request,
            ),
        ]
    if kind == "signature":
        signature = item.as_signature()
        return [
            kind_result,
            *_signature_guards(quote, signature, where, wallet, paid, chains, service_name),
        ]
    if kind == "solana":
        return [kind_result, *solana_guards(quote, item.as_solana(), where, wallet, request)]
    venue = item.as_venue_deposit()
    return [
        kind_result,
        *_venue_guards(quote, venue, payment, where, paid),
        send_asset_token_guard(quote, venue, spot_meta, where),
        send_asset_dex_guard(quote, venue, where),
        send_asset_shape_guard(venue, where),
        *venue_fields(venue, chains, where),
    ]


_STEP_KIND_FOR = {
    "transaction": "transaction",
    "venue_deposit": "transaction",
    "solana": "transaction",
}


def _kind_guard(step: Step, item: StepItem, where: str) -> GuardResult:
    kind = item.kind_of_data
    if kind == "unknown":
        data = item.data.to_wire() if isinstance(item.data, WireModel) else item.data
        keys = list(data) if isinstance(data, dict) else []
        foreign = next((_FOREIGN_ITEM_KEYS[k] for k in keys if k in _FOREIGN_ITEM_KEYS), None)
        if foreign is not None:
            return _fail(
                "step-kind",
                f"the item's data is {foreign}: crossdeck signs EVM transactions and "
                "signatures, venue actions and Solana transactions, not this; send from one of "
                "those chains instead",
                where,
            )
        shown = ", ".join(keys[:6]) or type(data).__name__
        return _fail(
            "step-kind", f"item data of an unknown shape (keys: {shown}); refusing to guess", where
        )
    if step.kind not in ("transaction", "signature"):
        return _fail("step-kind", f"step kind {step.kind!r} is not transaction or signature", where)
    wanted = _STEP_KIND_FOR.get(kind, "signature")
    if step.kind != wanted:
        return _fail("step-kind", f"{kind} data inside a {step.kind!r} step", where)
    if kind == "signature":
        data = item.as_signature()
        sign = data.sign
        if sign is None or sign.signature_kind not in ("eip712", "eip191"):
            got = sign.signature_kind if sign else None
            return _fail("step-kind", f"signature kind {got!r} is not eip712 or eip191", where)
        if sign.signature_kind == "eip712" and not (
            sign.domain and sign.types and sign.primary_type and isinstance(sign.value, dict)
        ):
            return _fail(
                "step-kind", "eip712 data lacks domain, types, primaryType or value", where
            )
        if sign.signature_kind == "eip191" and not isinstance(sign.message, str):
            return _fail("step-kind", "eip191 data has no message text", where)
        if data.post is None or not data.post.endpoint:
            return _fail("step-kind", "the signature has no post endpoint to deliver it", where)
        if (data.post.method or "POST").upper() != "POST":
            return _fail("step-kind", f"post method {data.post.method!r} is not POST", where)
    if kind == "venue_deposit":
        data = item.as_venue_deposit()
        if data.action is None or data.action.type != "sendAsset":
            got = data.action.type if data.action else None
            return _fail("step-kind", f"venue action {got!r} is not sendAsset", where)
        if data.sign_domain_name is None:
            return _fail(
                "step-kind",
                f"eip712PrimaryType {data.eip712_primary_type!r} is not "
                "'<Venue>Transaction:<Action>'",
                where,
            )
        if not data.eip712_types or data.eip712_primary_type not in data.eip712_types:
            return _fail("step-kind", "eip712Types do not define the primary type", where)
    return _ok("step-kind", f"{_KIND_WORDS.get(kind, kind)}, a kind crossdeck checks", where)


# -- EVM transactions ---------------------------------------------------------------------


def _tx_guards(
    quote: Quote,
    step: Step,
    tx: TransactionData,
    where: str,
    wallet: str | None,
    rpc_chain_ids: Collection[int] | None,
    paid: PaymentChain,
    chains: ChainsResponse | None,
    request: QuoteRequest | None,
) -> list[GuardResult]:
    results: list[GuardResult] = []
    payment = quote.payment_details
    chain_id = tx.chain_id
    if chain_id is None or chain_id <= 0:
        results.append(_fail("tx-chain-id", "the transaction names no chainId", where))
    elif paid.problem is not None:
        results.append(
            _fail(
                "tx-chain-id",
                f"the transaction is on chain {chain_id}, and the payment's chain is unknown: "
                f"{paid.problem}",
                where,
            )
        )
    elif paid.chain_id is not None and chain_id != paid.chain_id:
        results.append(
            _fail(
                "tx-chain-id",
                f"the transaction is on chain {chain_id} but the payment is on chain "
                f"{paid.chain_id} (paymentDetails.chainId {paid.name!r})",
                where,
            )
        )
    else:
        results.append(_ok("tx-chain-id", f"on chain {chain_id}, the chain being paid on", where))
    odd = [
        f"`{name}` {value!r}"
        for name, value in (("from", tx.from_), ("to", tx.to))
        if value and not _EVM_ADDRESS.fullmatch(value)
    ]
    if odd:
        results.append(
            _fail(
                "tx-address",
                f"{' and '.join(odd)} is not an EVM address (0x and 40 hex digits): not a "
                "transaction crossdeck can sign",
                where,
            )
        )
    if rpc_chain_ids is not None and chain_id is not None:
        if chain_id in rpc_chain_ids:
            results.append(
                _ok("rpc-configured", f"an RPC is configured for chain {chain_id}", where)
            )
        else:
            results.append(
                _fail(
                    "rpc-configured",
                    f"no RPC is configured for chain {chain_id} (set rpc.{chain_id})",
                    where,
                )
            )
    if wallet is not None:
        if tx.from_ is None or _same_address(tx.from_, wallet):
            results.append(_ok("tx-from", f"sent from your wallet {short(wallet)}", where))
        else:
            results.append(
                _fail(
                    "tx-from", f"the transaction is from {tx.from_}, not the wallet {wallet}", where
                )
            )
    if not tx.to:
        results.append(
            _fail("tx-payment", "the transaction has no `to` (contract creation)", where)
        )
        return results
    results += payment_guards(quote, step, tx, wallet, chains, where)
    results.append(destination_guard(tx, step, payment, chains, request, where, quote))
    return results


# -- signatures ---------------------------------------------------------------------------


def _signature_guards(
    quote: Quote,
    data: SignatureData,
    where: str,
    wallet: str | None,
    paid: PaymentChain,
    chains: ChainsResponse | None,
    service_name: str | None,
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
        results.append(_permit_terms(quote, data, where, wallet, paid))
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
    quote: Quote, data: SignatureData, where: str, wallet: str | None, paid: PaymentChain
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
    return _ok(
        "permit-terms",
        f"lets the depository {short(payment.depository)} take exactly "
        f"{amount_words(quote, payment.amount, payment.currency)}, once",
        where,
    )


# -- venue transfers ----------------------------------------------------------------------


def _venue_guards(
    quote: Quote,
    data: VenueDepositData,
    payment: PaymentDetails | None,
    where: str,
    paid: PaymentChain,
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
    if problems:
        results.append(_fail("send-asset-amount", "; ".join(problems), where))
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


# -- checks made at execution time --------------------------------------------------------


def rpc_chain_guard(item_chain_id: int, rpc_chain_id: int | None, where: str) -> GuardResult:
    if rpc_chain_id == item_chain_id:
        return _ok("rpc-chain-id", f"the RPC serves chain {item_chain_id}", where)
    return _fail(
        "rpc-chain-id",
        f"the transaction is for chain {item_chain_id} but the RPC serves chain {rpc_chain_id}",
        where,
    )


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
