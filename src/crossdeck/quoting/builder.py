"""What a person typed for a quote -> the checked `QuoteRequest`: the one builder below the app's
Quote form (`tui/quote_form.py`) and the command line's quote options (`cli/quote_options.py`).

`QuoteInput` holds every field as typed: the amount in human units (or in the smallest unit),
dollars for the gas top-up and the sponsorship cap, addresses, calls as `TO,VALUE,DATA` text (or
already-read `txs`), flags left None when not given. `build_quote_request(input, chains,
wallet_of=...)` applies the rules both fronts share, once:
- the depositor is the typed user, else the profile's wallet of the origin chain's family; a
  route into another family pays the profile's wallet of that family unless a recipient is typed;
- a human amount is converted exactly with the decimals `/chains` gives the currency it is in
  (the origin currency for EXACT_INPUT, the destination's otherwise); nothing is zero;
- dollars are the service's 6-decimal USD integers (1000000 = $1);
- a venue withdrawal asks for protocolVersion v2;
- the model's own rules (`QuoteRequest`) hold the rest, each address to its chain's family.
Every problem is a `QuoteRequestError` naming the wire field, so each front can say it its own
way (the form puts the cursor on the field, the command line names the option).

No textual and no pydantic at import: the form is on the app's first screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from crossdeck.models.constants import (
    NATIVE_ADDRESS,
    NATIVE_DECIMALS,
    TRADE_TYPES,
    VENUE_CHAIN_ID,
    required_protocol_version,
)
from crossdeck.models.field_errors import QuoteRequestError
from crossdeck.models.units import UnitsError, parse_units, parse_usd

if TYPE_CHECKING:
    from crossdeck.models.addresses import Family
    from crossdeck.models.chains import ChainsResponse
    from crossdeck.models.quote_request import QuoteRequest

# the profile's wallet of a chain family (None: it has none)
WalletOf = Callable[["Family"], "str | None"]
# what to do about a human amount in a currency /chains does not list (each front may say it
# in its own words: the command line names its --amount)
UNLISTED_CURRENCY_HINT = (
    "pick one from the list, or give the amount in the currency's smallest unit"
)


@dataclass(frozen=True)
class QuoteInput:
    """Every quote field as typed. Text fields are '' when not given, flags None (the form
    gives a ticked box as True and leaves an unticked one None; the command line's --no-x is
    False, sent as such)."""

    origin_chain_id: int | None = None
    origin_currency: str | None = None
    destination_chain_id: int | None = None
    destination_currency: str | None = None
    amount: str = ""  # human units
    amount_units: str = ""  # the smallest unit (instead of `amount`)
    trade_type: str = "EXACT_INPUT"
    user: str = ""  # '' : the profile's wallet of the origin's family
    recipient: str = ""
    refund_to: str = ""
    slippage_bps: str = ""
    topup_gas: bool | None = None
    topup_gas_usd: str = ""
    subsidize_fees: bool | None = None
    sponsored_components: tuple[str, ...] | None = None  # None: all (the field is omitted)
    sponsor_rent: bool = False  # Solana: 'rent' among the sponsored components
    max_subsidization_usd: str = ""
    use_deposit_address: bool | None = None
    strict: bool | None = None
    use_permit: bool | None = None
    refund_on_origin: bool | None = None
    permit_expiry: int | None = None
    deposit_fee_payer: str = ""
    max_route_length: int | None = None
    use_shared_accounts: bool | None = None
    include_compute_unit_limit: bool | None = None
    protocol_version: str | None = None  # None: automatic ('v2' for venue withdrawals)
    referrer: str = ""
    calls: str = ""  # TO,VALUE,DATA; ... (value in wei)
    txs: tuple[Mapping[str, Any], ...] = ()  # calls already read (a file's), before `calls`
    extra: dict[str, Any] = field(default_factory=dict)  # other body fields by wire name

    def with_changes(self, **changes: Any) -> QuoteInput:
        return replace(self, **changes)


# -- amounts -----------------------------------------------------------------------------------


def amount_currency(values: QuoteInput) -> tuple[str, int | None, str | None]:
    """(wire field of the currency the amount is in, its chain, its address)."""
    if values.trade_type == "EXACT_INPUT":
        return "originCurrency", values.origin_chain_id, values.origin_currency
    return "destinationCurrency", values.destination_chain_id, values.destination_currency


def amount_decimals(values: QuoteInput, chains: ChainsResponse | None) -> tuple[str, int]:
    """(wire field of the currency the amount is in, its decimals): from `/chains`; without it,
    a native EVM currency's 18 (the same everywhere)."""
    field_name, chain_id, address = amount_currency(values)
    if chain_id is None or not address:
        raise QuoteRequestError(field_name, f"{field_name}: pick a chain and a currency first")
    if chains is None:
        if chain_id != VENUE_CHAIN_ID and address.lower() == NATIVE_ADDRESS:
            return field_name, NATIVE_DECIMALS
        raise QuoteRequestError(
            field_name, f"{field_name}: the decimals of {address} need the service's /chains"
        )
    chain = chains.by_id(chain_id)
    currency = chain.find_currency(address) if chain else None
    if currency is None or currency.decimals is None:
        raise QuoteRequestError(
            field_name,
            f"{field_name}: {address} is not a currency /chains lists for chain {chain_id}, "
            "so the amount's decimals are unknown",
            hint=UNLISTED_CURRENCY_HINT,
        )
    return field_name, currency.decimals


def amount_units(values: QuoteInput, chains: ChainsResponse | None) -> int:
    """The amount in the smallest unit, exactly: the typed smallest unit, or the human amount
    converted with its currency's decimals (QuoteRequestError naming `amount`)."""
    human, units_text = values.amount.strip(), values.amount_units.strip()
    if human and units_text:
        raise QuoteRequestError("amount", "amount: give it in human units or in the smallest unit")
    _refuse_zero(human or units_text)  # before the decimals: nothing to move needs no /chains
    if units_text:
        if not (units_text.isascii() and units_text.isdigit()):
            raise QuoteRequestError(
                "amount", f"amount: {units_text!r} is not a whole number of the smallest unit"
            )
        return int(units_text)
    _, decimals = amount_decimals(values, chains)
    if not human:
        raise QuoteRequestError("amount", "amount: type how much, in human units (e.g. 1.5)")
    try:
        return parse_units(human, decimals)
    except UnitsError as exc:
        raise QuoteRequestError("amount", exc.message, hint=exc.hint) from None


def _refuse_zero(text: str) -> None:
    """An amount that is a number and zero ('0', '0.00') moves nothing: refused as such."""
    from decimal import Decimal, InvalidOperation

    try:
        zero = bool(text) and Decimal(text) == 0
    except InvalidOperation:
        return  # not a number: the amount's own reading says so
    if zero:
        raise QuoteRequestError(
            "amount", f"amount: {text} moves nothing", hint="give an amount above 0"
        )


def usd_units(text: str, wire: str) -> int | None:
    """Dollars as typed ('2', '$0.01') -> the wire's 6-decimal USD integer; None for ''."""
    if not text.strip():
        return None
    try:
        return parse_usd(text)
    except UnitsError as exc:
        raise QuoteRequestError(wire, f"{wire}: {exc.message}", hint=exc.hint) from None


# -- whose wallets ---------------------------------------------------------------------------


def _family(chains: ChainsResponse | None, chain_id: int | None) -> Family | None:
    from crossdeck.models.addresses import UnknownFamily, family_of

    if chain_id is None:
        return None
    try:
        return chains.family(chain_id) if chains is not None else family_of(chain_id)
    except UnknownFamily:
        return None


def sender(values: QuoteInput, chains: ChainsResponse | None, wallet_of: WalletOf) -> str:
    """The depositor: the typed user, else the profile's wallet of the origin's family."""
    from crossdeck.models.addresses import Family

    if values.user.strip():
        return values.user.strip()
    origin = _family(chains, values.origin_chain_id) or Family.EVM
    wallet = wallet_of(origin)
    if wallet:
        return wallet
    if origin is Family.EVM:
        raise QuoteRequestError(
            "user",
            "user: no wallet address for this profile",
            hint="run `crossdeck wallet import` (or open the demo with `crossdeck demo`)",
        )
    name = {Family.SOLANA: "Solana", Family.BITCOIN: "Bitcoin"}[origin]
    command = f"import-{name.lower()}"
    raise QuoteRequestError(
        "user",
        f"user: this profile has no {name} wallet to send from",
        hint=f"run `crossdeck wallet {command}`",
    )


def default_recipient(
    values: QuoteInput, chains: ChainsResponse | None, wallet_of: WalletOf
) -> str | None:
    """With no recipient typed, a route into another chain family pays the profile's own
    wallet of that family when it has one (never a Bitcoin one: a Bitcoin payout is typed);
    None: the user, which the request then holds to the destination's family."""
    from crossdeck.models.addresses import Family

    origin = _family(chains, values.origin_chain_id)
    destination = _family(chains, values.destination_chain_id)
    if origin is None or destination is None or destination is origin:
        return None
    if destination is Family.BITCOIN:
        return None
    return wallet_of(destination)


# -- the request -------------------------------------------------------------------------------


def _flag(body: dict[str, Any], wire: str, value: bool | None) -> None:
    if value is not None:
        body[wire] = value


def quote_body(
    values: QuoteInput, chains: ChainsResponse | None, wallet_of: WalletOf
) -> dict[str, Any]:
    """The request body of `values` before the model checks it (see the module docstring)."""
    if values.origin_chain_id is None:
        raise QuoteRequestError("originChainId", "originChainId: pick the chain to send from")
    if values.destination_chain_id is None:
        raise QuoteRequestError(
            "destinationChainId", "destinationChainId: pick the chain to receive on"
        )
    if not values.origin_currency:
        raise QuoteRequestError("originCurrency", "originCurrency: pick the currency to send")
    if not values.destination_currency:
        raise QuoteRequestError(
            "destinationCurrency", "destinationCurrency: pick the currency to receive"
        )
    if values.trade_type not in TRADE_TYPES:
        raise QuoteRequestError("tradeType", f"tradeType: one of {', '.join(TRADE_TYPES)}")
    body: dict[str, Any] = {
        "user": sender(values, chains, wallet_of),
        "originChainId": values.origin_chain_id,
        "destinationChainId": values.destination_chain_id,
        "originCurrency": values.origin_currency,
        "destinationCurrency": values.destination_currency,
        "amount": str(amount_units(values, chains)),
        "tradeType": values.trade_type,
    }
    recipient = values.recipient.strip() or default_recipient(values, chains, wallet_of)
    if recipient:
        body["recipient"] = recipient
    if values.refund_to.strip():
        body["refundTo"] = values.refund_to.strip()
    version = values.protocol_version or required_protocol_version(values.origin_chain_id)
    if version:
        body["protocolVersion"] = version
    _flag(body, "topupGas", values.topup_gas)
    _flag(body, "subsidizeFees", values.subsidize_fees)
    _flag(body, "useDepositAddress", values.use_deposit_address)
    _flag(body, "strict", values.strict)
    _flag(body, "usePermit", values.use_permit)
    _flag(body, "refundOnOrigin", values.refund_on_origin)
    topup = usd_units(values.topup_gas_usd, "topupGasAmount")
    if topup is not None:
        body["topupGasAmount"] = str(topup)
    components = list(values.sponsored_components or ())
    if values.sponsor_rent:
        components.append("rent")
    if values.sponsored_components is not None or components:
        body["sponsoredFeeComponents"] = components
    cap = usd_units(values.max_subsidization_usd, "maxSubsidizationAmount")
    if cap is not None:
        body["maxSubsidizationAmount"] = str(cap)
    if values.permit_expiry is not None:
        body["permitExpiry"] = values.permit_expiry
    if values.deposit_fee_payer.strip():
        body["depositFeePayer"] = values.deposit_fee_payer.strip()
    if values.max_route_length is not None:
        body["maxRouteLength"] = values.max_route_length
    _flag(body, "useSharedAccounts", values.use_shared_accounts)
    _flag(body, "includeComputeUnitLimit", values.include_compute_unit_limit)
    if values.slippage_bps.strip():
        body["slippageTolerance"] = values.slippage_bps.strip()
    if values.referrer.strip():
        body["referrer"] = values.referrer.strip()
    txs = [dict(tx) for tx in values.txs] + _calls(values.calls)
    if txs:
        body["txs"] = txs
    # the model reads a field by its wire name or its snake_case one: either is the field
    clash = sorted(key for key in values.extra if key in body or _camel(key) in body)
    if clash:
        raise QuoteRequestError(
            clash[0],
            f"{', '.join(clash)}: an extra field sets what a field already sets; give it once",
        )
    body.update(values.extra)
    return body


def _camel(name: str) -> str:
    """'max_route_length' -> 'maxRouteLength', as the request model aliases its fields."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _calls(text: str) -> list[dict[str, str]]:
    if not text.strip():
        return []
    from crossdeck.models.calls import parse_calls

    try:
        return parse_calls(text)
    except ValueError as exc:
        raise QuoteRequestError(
            "txs",
            f"txs: {exc}",
            hint="TO,VALUE,DATA with the value in wei; several separated by ';'",
        ) from None


def needs_chains(values: QuoteInput) -> bool:
    """Whether building `values` needs the service's /chains: a human amount in any currency
    but a native EVM one (its decimals), or a chain or an address that is not plainly EVM
    (/chains' vmType says which family each chain's addresses are of)."""
    from crossdeck.models.addresses import WELL_KNOWN_FAMILIES

    if values.amount.strip() and not values.amount_units.strip():
        _, chain_id, address = amount_currency(values)
        if chain_id == VENUE_CHAIN_ID or (address or "").lower() != NATIVE_ADDRESS:
            return True
    if {values.origin_chain_id, values.destination_chain_id} & set(WELL_KNOWN_FAMILIES):
        return True
    typed = (values.user, values.recipient, values.refund_to)
    return any(text.strip() and not text.strip().startswith("0x") for text in typed)


def check_before_chains(values: QuoteInput, *, wallet_of: WalletOf) -> QuoteRequest:
    """Every rule that needs no /chains, so that bad input is refused before any request: the
    request of `values` with the publicly known chain families and a human amount standing in
    as one smallest unit (a zero one still refused; its decimals are /chains')."""
    if values.amount.strip() and not values.amount_units.strip():
        _refuse_zero(values.amount.strip())
        values = values.with_changes(amount="", amount_units="1")
    return build_quote_request(values, None, wallet_of=wallet_of)


def build_quote_request(
    values: QuoteInput, chains: ChainsResponse | None, *, wallet_of: WalletOf
) -> QuoteRequest:
    """The checked request of `values`; QuoteRequestError names the wire field. `chains` (the
    service's /chains) gives the currencies' decimals and the chains' families; without it
    only a native EVM amount converts, and the publicly known families hold."""
    body = quote_body(values, chains, wallet_of)
    from crossdeck.models.quote_request import QuoteRequest

    return QuoteRequest.from_body(body, vm_types=chains.vm_types() if chains else None)
