"""The venue's and the service's words in a withdrawal, held to what the venue and the service
will read: a signature the venue reads otherwise either fails after it was given, or moves the
funds somewhere the user did not ask.

- `send-asset-token`: the sendAsset `token` is exactly the venue's `NAME:tokenId` (as its
  `spotMeta` lists them) of the currency the quote pays: a token with another name, or none,
  before the right id is not the currency the quote prices.
- `send-asset-dex`: `sourceDex` is the book the paid currency lives on (perps '', 'spot', or
  its HIP-3 DEX) and `destinationDex` the book of the payment the protocol order expects on the
  venue (`orderData.inputs[].payment` on the paying chain): the funds land where the order is
  settled from, not on another book of the recipient.
- `send-asset-shape`: the action's parameters are exactly the fields its `eip712Types` sign,
  no more, none renamed, and those are the venue's SendAsset fields in the venue's order and
  types (the one brand-bearing `<venue>Chain` name derived from the primary type).
- `authorize-domain`: the NonceMapping domain's name is the service's name followed by
  `NonceMapping` (spec 4.4), the name from the one setting beside the service's URL
  (`service.name`), and its version is '2'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.execute.guards.base import NONCE_MAPPING, GuardResult, _fail, _ok, _same_address
from crossdeck.models import Quote, SignPayload, VenueDepositData
from crossdeck.venue.currencies import describe_venue_currency, place_label, venue_place
from crossdeck.venue.errors import VenueDataError

if TYPE_CHECKING:
    from crossdeck.models.venue import SpotMeta
    from crossdeck.venue.client import VenueClient

NONCE_MAPPING_VERSION = "2"
# the venue's SendAsset fields after its '<venue>Chain' field, in the venue's order
_SEND_ASSET_TAIL = (
    ("destination", "string"),
    ("sourceDex", "string"),
    ("destinationDex", "string"),
    ("token", "string"),
    ("amount", "string"),
    ("fromSubAccount", "string"),
    ("nonce", "uint64"),
)


async def spot_meta_for(quote: Quote, venue: VenueClient) -> SpotMeta | None:
    """The venue's spotMeta when the quote transfers on the venue (else None, unasked); None
    too when the venue cannot be read, and `send-asset-token` refuses, saying so."""
    if not any(i.kind_of_data == "venue_deposit" for s in quote.steps for i in s.items):
        return None
    try:
        return await venue.spot_meta()
    except CrossdeckError:
        return None


def _book(dex: str) -> str:
    return {"": "perps", "spot": "spot"}.get(dex, f"the {dex} DEX")


def _paid_currency(quote: Quote) -> tuple[str | None, str | None]:
    """(the currency the quote pays on the venue, or None; why not, or None)."""
    details = quote.details
    currency_in = details.currency_in if details else None
    info = currency_in.currency_info if currency_in else None
    address = info.address if info else None
    payment = quote.payment_details
    if address is None:
        return None, "the quote has no currencyIn address"
    if payment is not None and payment.currency and not _same_address(payment.currency, address):
        return None, f"paymentDetails.currency {payment.currency} is not currencyIn {address}"
    return address, None


def send_asset_token_guard(
    quote: Quote, data: VenueDepositData, spot_meta: SpotMeta | None, where: str
) -> GuardResult:
    name = "send-asset-token"
    action = data.action
    assert action is not None  # the kind guard passed
    address, problem = _paid_currency(quote)
    if address is None:
        return _fail(name, str(problem), where)
    if spot_meta is None:
        return _fail(
            name,
            "the venue's spotMeta could not be read, so the sendAsset token "
            f"{action.token!r} cannot be held to the venue's name for {address}",
            where,
        )
    try:
        expected = describe_venue_currency(address, spot_meta)
    except VenueDataError as exc:
        return _fail(name, f"currencyIn {address} is not a venue currency: {exc}", where)
    if action.token != expected.token_string:
        return _fail(
            name,
            f"sendAsset token {action.token!r} is not {expected.token_string!r}, the venue's "
            f"NAME:tokenId (spotMeta) of {address}, the currency the quote pays",
            where,
        )
    return _ok(
        name,
        f"sends {expected.token_string}, the venue's own name (spotMeta) for the currency the "
        "quote pays",
        where,
    )


def _order_venue_currency(quote: Quote) -> tuple[str | None, str | None]:
    """(the currency the protocol order expects paid on the paying chain, or None; why not)."""
    v2 = quote.protocol.v2 if quote.protocol else None
    order: Any = v2.order_data if v2 else None
    payment = quote.payment_details
    chain = payment.chain_id if payment else None
    if not isinstance(order, dict):
        return None, "the quote has no protocol order (orderData) naming the venue payment"
    found = []
    for entry in order.get("inputs") or []:
        paid = entry.get("payment") if isinstance(entry, dict) else None
        if isinstance(paid, dict) and str(paid.get("chainId")) == str(chain):
            found.append(paid.get("currency"))
    currencies = {str(c).lower() for c in found if isinstance(c, str)}
    if len(currencies) != 1:
        return None, (
            f"orderData names {len(currencies)} payment currencies on {chain!r} "
            "(orderData.inputs[].payment), not one"
        )
    return currencies.pop(), None


def send_asset_dex_guard(quote: Quote, data: VenueDepositData, where: str) -> GuardResult:
    name = "send-asset-dex"
    action = data.action
    assert action is not None  # the kind guard passed
    address, problem = _paid_currency(quote)
    order_currency, order_problem = _order_venue_currency(quote)
    if address is None or order_currency is None:
        return _fail(name, str(problem or order_problem), where)
    source, target = venue_place(address), venue_place(order_currency)
    if source is None or target is None:
        odd = address if source is None else order_currency
        return _fail(name, f"{odd} is not a venue currency address", where)
    problems = []
    if action.source_dex != source[1]:
        problems.append(
            f"sourceDex {action.source_dex!r} is not {source[1]!r}, where the paid currency "
            f"{address} lives ({place_label(*source)})"
        )
    if action.destination_dex != target[1]:
        problems.append(
            f"destinationDex {action.destination_dex!r} is not {target[1]!r}, the book of the "
            f"payment the order expects ({order_currency}, {place_label(*target)})"
        )
    if problems:
        return _fail(name, "sendAsset " + "; ".join(problems), where)
    return _ok(
        name,
        f"leaves your {_book(source[1])} balance and lands on {_book(target[1])}, where the "
        "order expects the payment",
        where,
    )


def send_asset_shape_guard(data: VenueDepositData, where: str) -> GuardResult:
    name = "send-asset-shape"
    action, primary, types = data.action, data.eip712_primary_type, data.eip712_types
    assert action is not None and primary and types  # the kind guard passed
    venue = data.venue_name or ""
    chain_field = venue[:1].lower() + venue[1:] + "Chain"
    wanted = [(chain_field, "string"), *_SEND_ASSET_TAIL]
    fields = types.get(primary) or []
    given = [(f.get("name"), f.get("type")) for f in fields if isinstance(f, dict)]
    problems = []
    if given != wanted or len(given) != len(fields):
        shown = ", ".join(f"{n} {t}" for n, t in given)
        problems.append(
            f"eip712Types[{primary!r}] is [{shown}], not the venue's SendAsset fields "
            f"[{', '.join(f'{n} {t}' for n, t in wanted)}]"
        )
    others = sorted(set(types) - {primary, "EIP712Domain"})
    if others:
        problems.append(f"eip712Types defines other types {others} the action does not use")
    signed = {n for n, _ in given}
    extra = [k for k in action.parameters if k not in signed]
    missing = [n for n, _ in given if n not in action.parameters]
    if extra:
        problems.append(f"the action carries field(s) {extra} its eip712Types do not sign")
    if missing:
        problems.append(f"the action lacks the signed field(s) {missing}")
    if problems:
        return _fail(name, "; ".join(problems), where)
    return _ok(
        name,
        f"the action's {len(given)} fields are exactly the venue's SendAsset fields, all signed",
        where,
    )


def authorize_domain_guard(sign: SignPayload, service_name: str | None, where: str) -> GuardResult:
    name = "authorize-domain"
    domain = sign.domain or {}
    given, version = domain.get("name"), domain.get("version")
    if not service_name:
        return _fail(
            name,
            f"the NonceMapping domain name {given!r} cannot be held to the service's name: "
            "service.name is not set (set it beside service.url)",
            where,
        )
    expected = f"{service_name}{NONCE_MAPPING}"
    problems = []
    if given != expected:
        problems.append(
            f"domain name {given!r} is not {expected!r} (service.name {service_name!r} followed "
            f"by {NONCE_MAPPING!r}): the service would not read this signature as its own"
        )
    if str(version) != NONCE_MAPPING_VERSION:
        problems.append(f"domain version {version!r} is not {NONCE_MAPPING_VERSION!r}")
    if problems:
        return _fail(name, "the NonceMapping " + "; ".join(problems), where)
    return _ok(name, f"NonceMapping domain {expected!r} version {version!r}, this service's", where)
