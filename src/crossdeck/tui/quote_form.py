"""The Quote form's values, and the request they ask for (no textual here).

The form only collects: `quote_input` hands what it holds to the one quote-request builder
(`crossdeck.quoting.builder`, which `crossdeck quote` uses too), whose `QuoteRequestError` names
the wire field so the form can put the cursor on it. Amounts are typed in human units, dollars
for the gas top-up and the sponsorship cap. The options line's words are here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

# pydantic-free: the form is on the app's first screen, which draws before any wire model loads
from crossdeck.models.constants import TRADE_TYPES, VENUE_CHAIN_ID, required_protocol_version

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse
    from crossdeck.models.quote_request import QuoteRequest
    from crossdeck.quoting.builder import QuoteInput

__all__ = ["TRADE_TYPES", "QuoteFormValues", "build_quote_request", "quote_input"]

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


def quote_input(values: QuoteFormValues) -> QuoteInput:
    """What the form holds, as the builder takes it: an unticked box is not given, and the
    sponsored components count only while 'subsidize fees' is ticked."""
    # the builder is read when the form is first checked, after the first frame
    from crossdeck.quoting.builder import QuoteInput

    return QuoteInput(
        origin_chain_id=values.origin_chain_id,
        origin_currency=values.origin_currency,
        destination_chain_id=values.destination_chain_id,
        destination_currency=values.destination_currency,
        amount=values.amount,
        trade_type=values.trade_type,
        recipient=values.recipient,
        refund_to=values.refund_to,
        slippage_bps=values.slippage_bps,
        topup_gas=values.topup_gas or None,
        topup_gas_usd=values.topup_gas_usd,
        subsidize_fees=values.subsidize_fees or None,
        sponsored_components=values.sponsored_components if values.subsidize_fees else None,
        max_subsidization_usd=values.max_subsidization_usd,
        use_deposit_address=values.use_deposit_address or None,
        strict=values.strict or None,
        use_permit=values.use_permit or None,
        protocol_version=values.protocol_version,
        referrer=values.referrer,
        calls=values.calls,
        extra=dict(values.extra),
    )


def amount_decimals(values: QuoteFormValues, chains: ChainsResponse) -> tuple[str, int]:
    """(wire field of the currency the amount is in, its decimals)."""
    from crossdeck.quoting import builder

    return builder.amount_decimals(quote_input(values), chains)


def amount_units(values: QuoteFormValues, chains: ChainsResponse) -> int:
    """The typed amount in the smallest unit, exactly (QuoteRequestError naming `amount`)."""
    from crossdeck.quoting import builder

    return builder.amount_units(quote_input(values), chains)


def build_quote_request(
    values: QuoteFormValues,
    user: str | None,
    chains: ChainsResponse,
    *,
    solana_wallet: str | None = None,
    bitcoin_wallet: str | None = None,
) -> QuoteRequest:
    """The form's request, by the one builder the command line uses too: the depositor of a
    Solana or Bitcoin origin is the profile's wallet of that family, a route into another
    family pays the profile's own wallet of that family (a Bitcoin payout is typed)."""
    from crossdeck.models.addresses import Family
    from crossdeck.quoting import builder

    wallets = {Family.EVM: user, Family.SOLANA: solana_wallet, Family.BITCOIN: bitcoin_wallet}
    return builder.build_quote_request(quote_input(values), chains, wallet_of=wallets.get)


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
