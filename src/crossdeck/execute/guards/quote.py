"""The guards over a quote and its items: what each step asks for, in the quote's own terms
and against /chains. `check_quote` / `check_item` are the entry points (see the package doc)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from crossdeck.execute.guards.addresses import address_checksum_guard
from crossdeck.execute.guards.base import (
    GuardResult,
    PaymentChain,
    _fail,
    _items,
    _ok,
    _payment_chain_guard,
    _where,
    payment_chain,
)
from crossdeck.execute.guards.endpoints import endpoint_guards
from crossdeck.execute.guards.kinds import kind_guard
from crossdeck.execute.guards.messages import message_guards
from crossdeck.execute.guards.order import order_version_guard
from crossdeck.execute.guards.payment import (
    depository_guard,
)
from crossdeck.execute.guards.request import request_guards
from crossdeck.execute.guards.signatures import signature_guards
from crossdeck.execute.guards.steps import steps_guard
from crossdeck.execute.guards.transaction import transaction_guards
from crossdeck.execute.guards.typed import venue_fields
from crossdeck.execute.guards.venue import (
    venue_nonce_guard,
    venue_transfer_guards,
)
from crossdeck.execute.guards.venue_words import (
    send_asset_dex_guard,
    send_asset_shape_guard,
    send_asset_token_guard,
)
from crossdeck.models import (
    ChainsResponse,
    Quote,
    QuoteRequest,
)
from crossdeck.models.text import short

if TYPE_CHECKING:
    from crossdeck.models.venue import SpotMeta

# -- whole-quote guards -------------------------------------------------------------------


def _request_id_guard(quote: Quote) -> GuardResult:
    ids = {s.request_id for s in quote.steps if s.request_id}
    if not ids:
        return _fail("request-id", "no step carries a requestId: the request cannot be tracked")
    if len(ids) > 1:
        return _fail("request-id", f"steps carry different request ids: {sorted(ids)}")
    request_id = next(iter(ids))
    return _ok("request-id", f"every step is part of one request, {short(request_id)}")


def _whole_quote_guards(
    quote: Quote, paid: PaymentChain, chains: ChainsResponse | None, *, venue_nonce: bool
) -> list[GuardResult]:
    """The guards over the quote as a whole, for `check_quote` and again before each item
    (`check_item`). `venue_nonce`: the venue nonce's guard in its place among them (an item
    adds it at its end, and only for the items the venue reads)."""
    return [
        _request_id_guard(quote),
        *_payment_chain_guard(paid),
        *depository_guard(quote, chains, paid.chain_id),
        steps_guard(quote),
        address_checksum_guard(quote),
        *(venue_nonce_guard(quote) if venue_nonce else []),
        *endpoint_guards(quote),
        *message_guards(quote),
        *order_version_guard(quote),
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
    results = _whole_quote_guards(quote, paid, chains, venue_nonce=True)
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
    results = _whole_quote_guards(quote, paid, chains, venue_nonce=False)
    if request is not None:  # shown beside each signature, so the dialog lists them too
        results += request_guards(quote, request, wallet, paid, chains)
    kind = quote.steps[step_index].items[item_index].kind_of_data
    if kind in ("venue_deposit", "signature"):
        results += venue_nonce_guard(quote)
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
    kind_result = kind_guard(step, item, where)
    if not kind_result.ok:
        return [kind_result]
    kind = item.kind_of_data
    payment = quote.payment_details
    paid = payment_chain(quote, chains)
    if kind == "transaction":
        return [
            kind_result,
            *transaction_guards(
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
            *signature_guards(quote, signature, where, wallet, paid, chains, service_name, request),
        ]
    if kind == "solana":
        # (each family's guards load with its first item: an EVM quote loads neither)
        from crossdeck.execute.guards.solana import solana_guards, svm_chain

        chain = svm_chain(quote, chains, request)
        return [
            kind_result,
            *solana_guards(quote, item.as_solana(), where, wallet, request, chain=chain),
        ]
    if kind == "bitcoin":
        from crossdeck.execute.guards.bitcoin import bitcoin_guards

        bitcoin = item.as_bitcoin()
        return [kind_result, *bitcoin_guards(quote, step, bitcoin, where, wallet, request)]
    venue = item.as_venue_deposit()
    return [
        kind_result,
        *venue_transfer_guards(quote, venue, payment, where, paid, request),
        send_asset_token_guard(quote, venue, spot_meta, where),
        send_asset_dex_guard(quote, venue, where),
        send_asset_shape_guard(venue, where),
        *venue_fields(venue, chains, where),
    ]
