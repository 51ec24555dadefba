"""The Quote form's values -> a checked `QuoteRequest` (no textual here).

Amounts are typed in human units and converted exactly with the decimals `/chains` gives the
currency the amount is in (the origin currency for EXACT_INPUT, the destination currency
otherwise). USD amounts (gas top-up, sponsorship cap) use the service's 6-decimal USD scale
(1000000 = $1). Every problem is a `QuoteRequestError` naming the wire field, so the form can
put the cursor on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

# pydantic-free: the form is on the app's first screen, which draws before any wire model loads
from crossdeck.models.constants import VENUE_CHAIN_ID, required_protocol_version
from crossdeck.models.field_errors import QuoteRequestError
from crossdeck.models.units import UnitsError, parse_units, parse_usd

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse
    from crossdeck.models.quote_request import QuoteRequest

TRADE_TYPES = ("EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT")
BASE_FEE_COMPONENTS = ("execution", "swap", "app")


@dataclass(frozen=True)
class QuoteFormValues:
    origin_chain_id: int | None = None
    origin_currency: str | None = None
    destination_chain_id: int | None = None
    destination_currency: str | None = None
    amount: str = ""
    trade_type: str = "EXACT_INPUT"
    recipient: str = ""
    refund_to: str = ""
    slippage_bps: str = ""
    topup_gas: bool = False
    topup_gas_usd: str = ""
    subsidize_fees: bool = False
    sponsored_components: tuple[str, ...] | None = None  # None: all (the field is omitted)
    max_subsidization_usd: str = ""
    use_deposit_address: bool = False
    strict: bool = False
    use_permit: bool = False
    protocol_version: str | None = None  # None: automatic ('v2' for venue withdrawals)
    referrer: str = ""
    calls: str = ""  # TO,VALUE,DATA; ... as --call takes them (value in wei)
    extra: dict[str, Any] = field(default_factory=dict)

    def with_changes(self, **changes: Any) -> QuoteFormValues:
        return replace(self, **changes)


def amount_decimals(values: QuoteFormValues, chains: ChainsResponse) -> tuple[str, int]:
    """(wire field of the currency the amount is in, its decimals)."""
    if values.trade_type == "EXACT_INPUT":
        field_name = "originCurrency"
        chain_id, address = values.origin_chain_id, values.origin_currency
    else:
        field_name = "destinationCurrency"
        chain_id, address = values.destination_chain_id, values.destination_currency
    if chain_id is None or not address:
        raise QuoteRequestError(field_name, f"{field_name}: pick a chain and a currency first")
    chain = chains.by_id(chain_id)
    currency = chain.find_currency(address) if chain else None
    if currency is None or currency.decimals is None:
        raise QuoteRequestError(
            field_name,
            f"{field_name}: {address} is not a currency /chains lists for chain {chain_id}",
            hint="pick one from the list",
        )
    return field_name, currency.decimals


def amount_units(values: QuoteFormValues, chains: ChainsResponse) -> int:
    """The typed amount in the smallest unit, exactly (QuoteRequestError naming `amount`)."""
    _, decimals = amount_decimals(values, chains)
    text = values.amount.strip()
    if not text:
        raise QuoteRequestError("amount", "amount: type how much, in human units (e.g. 1.5)")
    try:
        units = parse_units(text, decimals)
    except UnitsError as exc:
        raise QuoteRequestError("amount", exc.message, hint=exc.hint) from None
    if units == 0:
        raise QuoteRequestError("amount", "amount: must be more than zero")
    return units


def _usd_units(text: str, wire: str) -> int | None:
    if not text.strip():
        return None
    try:
        return parse_usd(text)
    except UnitsError as exc:
        raise QuoteRequestError(wire, f"{wire}: {exc.message}", hint=exc.hint) from None


def _family_wallets(
    values: QuoteFormValues,
    user: str | None,
    solana_wallet: str | None,
    chains: ChainsResponse,
    bitcoin_wallet: str | None = None,
) -> tuple[str | None, str | None]:
    """(user, default recipient): a Solana origin deposits from the Solana wallet, a Bitcoin
    one from the Bitcoin wallet; a route into another family pays the profile's own wallet of
    that family (None: the user; Bitcoin recipients are always typed)."""
    from crossdeck.models.addresses import Family, UnknownFamily

    try:
        origin = chains.family(values.origin_chain_id) if values.origin_chain_id else None
        destination = (
            chains.family(values.destination_chain_id) if values.destination_chain_id else None
        )
    except UnknownFamily:
        return user, None
    wallets = {Family.EVM: user, Family.SOLANA: solana_wallet, Family.BITCOIN: bitcoin_wallet}
    if origin is Family.SOLANA and not solana_wallet:
        raise QuoteRequestError(
            "user",
            "user: this profile has no Solana wallet to send from",
            hint="run `crossdeck wallet import-solana`",
        )
    if origin is Family.BITCOIN and not bitcoin_wallet:
        raise QuoteRequestError(
            "user",
            "user: this profile has no Bitcoin wallet to send from",
            hint="run `crossdeck wallet import-bitcoin`",
        )
    sender = wallets.get(origin, user) if origin is not None else user
    recipient = None
    if destination is not None and destination is not origin and destination is not Family.BITCOIN:
        recipient = wallets.get(destination)
    return sender, recipient


def build_quote_request(
    values: QuoteFormValues,
    user: str | None,
    chains: ChainsResponse,
    *,
    solana_wallet: str | None = None,
    bitcoin_wallet: str | None = None,
) -> QuoteRequest:
    user, own_recipient = _family_wallets(values, user, solana_wallet, chains, bitcoin_wallet)
    if not user:
        raise QuoteRequestError(
            "user",
            "user: no wallet address for this profile",
            hint="run `crossdeck wallet import` (or open the demo with `crossdeck demo`)",
        )
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
        "user": user,
        "originChainId": values.origin_chain_id,
        "destinationChainId": values.destination_chain_id,
        "originCurrency": values.origin_currency,
        "destinationCurrency": values.destination_currency,
        "amount": str(amount_units(values, chains)),
        "tradeType": values.trade_type,
    }
    if values.recipient.strip():
        body["recipient"] = values.recipient.strip()
    elif own_recipient:
        body["recipient"] = own_recipient
    if values.refund_to.strip():
        body["refundTo"] = values.refund_to.strip()
    if values.slippage_bps.strip():
        body["slippageTolerance"] = values.slippage_bps.strip()
    if values.topup_gas:
        body["topupGas"] = True
        topup = _usd_units(values.topup_gas_usd, "topupGasAmount")
        if topup is not None:
            body["topupGasAmount"] = str(topup)
    elif values.topup_gas_usd.strip():
        raise QuoteRequestError("topupGasAmount", "topupGasAmount: tick 'top up gas' to use it")
    if values.subsidize_fees:
        body["subsidizeFees"] = True
        if values.sponsored_components is not None:
            body["sponsoredFeeComponents"] = list(values.sponsored_components)
        cap = _usd_units(values.max_subsidization_usd, "maxSubsidizationAmount")
        if cap is not None:
            body["maxSubsidizationAmount"] = str(cap)
    elif values.max_subsidization_usd.strip():
        raise QuoteRequestError(
            "maxSubsidizationAmount", "maxSubsidizationAmount: tick 'subsidize fees' to use it"
        )
    if values.use_deposit_address:
        body["useDepositAddress"] = True
        if values.strict:
            body["strict"] = True
    elif values.strict:
        raise QuoteRequestError("strict", "strict: applies only with 'use deposit address'")
    if values.use_permit:
        body["usePermit"] = True
    if values.referrer.strip():
        body["referrer"] = values.referrer.strip()
    if values.calls.strip():
        from crossdeck.models.calls import parse_calls

        try:
            body["txs"] = parse_calls(values.calls)
        except ValueError as exc:
            raise QuoteRequestError(
                "txs",
                f"txs: {exc}",
                hint="TO,VALUE,DATA with the value in wei; several separated by ';'",
            ) from None
    version = values.protocol_version or required_protocol_version(values.origin_chain_id)
    if version:
        body["protocolVersion"] = version
    body.update(values.extra)
    from crossdeck.models.quote_request import QuoteRequest

    return QuoteRequest.from_body(body, vm_types=chains.vm_types())


def venue_deposit_values(
    *,
    origin_chain_id: int,
    origin_currency: str,
    venue_currency: str,
    amount: str,
    recipient: str = "",
) -> QuoteFormValues:
    """A deposit into the venue: destination chain 1337 and a venue recipient (spec 4.4)."""
    return QuoteFormValues(
        origin_chain_id=origin_chain_id,
        origin_currency=origin_currency,
        destination_chain_id=VENUE_CHAIN_ID,
        destination_currency=venue_currency,
        amount=amount,
        recipient=recipient,
    )


def venue_withdrawal_values(
    *,
    venue_currency: str,
    destination_chain_id: int,
    destination_currency: str,
    amount: str,
    recipient: str = "",
) -> QuoteFormValues:
    """A withdrawal from the venue: origin chain 1337 and protocolVersion 'v2' (spec 4.4)."""
    return QuoteFormValues(
        origin_chain_id=VENUE_CHAIN_ID,
        origin_currency=venue_currency,
        destination_chain_id=destination_chain_id,
        destination_currency=destination_currency,
        amount=amount,
        recipient=recipient,
        protocol_version=required_protocol_version(VENUE_CHAIN_ID),
    )


def _short(address: str) -> str:
    return address if len(address) <= 14 else f"{address[:6]}…{address[-4:]}"


def options_summary(values: QuoteFormValues) -> list[str]:
    """The options set beyond the defaults, in a trader's words (the closed options line)."""
    said: list[str] = []
    if values.trade_type == "EXACT_OUTPUT":
        said.append("amount is what arrives")
    elif values.trade_type == "EXPECTED_OUTPUT":
        said.append("amount is about what arrives")
    if values.recipient.strip():
        said.append(f"send to {_short(values.recipient.strip())}")
    if values.refund_to.strip():
        said.append(f"refund to {_short(values.refund_to.strip())}")
    if values.slippage_bps.strip():
        said.append(f"slippage {values.slippage_bps.strip()} bps")
    if values.topup_gas:
        said.append(f"gas on arrival ${values.topup_gas_usd.strip() or '2'}")
    if values.subsidize_fees:
        cap = values.max_subsidization_usd.strip()
        said.append(f"sponsored up to ${cap}" if cap else "sponsored")
    if values.use_deposit_address:
        said.append("strict deposit address" if values.strict else "deposit address")
    if values.use_permit:
        said.append("permit")
    if values.referrer.strip():
        said.append(f"referrer {values.referrer.strip()}")
    if values.protocol_version:
        said.append(f"protocol {values.protocol_version}")
    if values.calls.strip():
        count = len([c for c in values.calls.replace("\n", ";").split(";") if c.strip()])
        said.append(f"{count} call(s) after the fill")
    said.extend(f"{key} set" for key in values.extra)
    return said


def demo_referrer_warning(values: QuoteFormValues) -> str | None:
    """The demo world's triggers (`demo:fail`, ...) ride on the referrer: say so, loudly."""
    referrer = values.referrer.strip()
    if not referrer.lower().startswith("demo:"):
        return None
    if referrer.lower().startswith("demo:fail"):
        return f"referrer {referrer}: the demo world will fail this transfer and refund it"
    return f"referrer {referrer}: a demo world trigger, not a real referrer"
