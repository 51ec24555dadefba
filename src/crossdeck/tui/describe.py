"""Quotes, steps and transactions in words, for the screens (no textual here: plain strings).

Amounts are shown from the service's own `amountFormatted` strings or, for raw integers, with
`format_units` (exact); USD values stay the decimal strings the service sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from crossdeck.models import (
    NATIVE_ADDRESS,
    VENUE_CHAIN_ID,
    ChainCurrency,
    ChainInfo,
    ChainsResponse,
    CurrencyAmount,
    Quote,
    SignatureData,
    Step,
    StepItem,
    TransactionData,
    VenueDepositData,
    format_units,
)
from crossdeck.models.text import short

_SELECTORS = {
    "0x095ea7b3": "approve",
    "0xa9059cbb": "transfer",
}
FEE_LABELS = (
    ("gas", "Origin gas"),
    ("relayer", "Relayer total"),
    ("relayer_gas", "  destination gas"),
    ("relayer_service", "  service fee"),
    ("app", "App fee"),
    ("subsidized", "Sponsored"),
)


def chain_name(chains: ChainsResponse | None, chain_id: int | None) -> str:
    if chain_id is None:
        return "?"
    chain = chains.by_id(chain_id) if chains else None
    name = (chain.display_name or chain.name) if chain else None
    return f"{name} ({chain_id})" if name else f"chain {chain_id}"


def venue_kind(currency: ChainCurrency | str) -> str:
    """Which 2.4 address form a chain-1337 currency has: perps, spot or HIP-3 (+ DEX)."""
    from crossdeck.venue.currencies import PERPS_USDC_ADDRESS, parse_hip3

    address = (currency if isinstance(currency, str) else currency.address or "").lower()
    if address == PERPS_USDC_ADDRESS:
        return "perps"
    hip3 = parse_hip3(address)
    if hip3 is not None:
        return f"HIP-3 dex {hip3[1]}"
    return "spot"


def currency_label(chain: ChainInfo | None, currency: ChainCurrency) -> str:
    symbol = currency.symbol or currency.id or "?"
    address = currency.address or ""
    if chain is not None and chain.id == VENUE_CHAIN_ID:
        return f"{symbol} ({venue_kind(currency)}) {short(address, 8, 4)}"
    if address.lower() == NATIVE_ADDRESS:
        return f"{symbol} (native)"
    return f"{symbol} {short(address)}"


def usd(text: str | None) -> str:
    """'3000.000000' -> '$3,000.00'; keeps the sign; '-' when absent."""
    if text is None:
        return "-"
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(value):,.2f}"


def amount(value: CurrencyAmount | None, *, with_usd: bool = True) -> str:
    if value is None:
        return "-"
    formatted = value.amount_formatted
    if formatted is None and value.amount is not None and value.decimals is not None:
        formatted = format_units(value.amount, value.decimals)
    text = f"{formatted or '?'} {value.symbol or ''}".strip()
    if with_usd and value.amount_usd is not None:
        text += f" ({usd(value.amount_usd)})"
    return text


def currency_amount_line(value: CurrencyAmount | None, chains: ChainsResponse | None) -> str:
    if value is None:
        return "-"
    chain_id = value.currency_info.chain_id if value.currency_info else None
    return f"{amount(value)} on {chain_name(chains, chain_id)}"


def fee_rows(quote: Quote) -> list[tuple[str, str, str]]:
    """(label, amount, USD) for each fee member the quote has."""
    rows: list[tuple[str, str, str]] = []
    fees = quote.fees
    if fees is None:
        return rows
    for attr, label in FEE_LABELS:
        value: CurrencyAmount | None = getattr(fees, attr)
        if value is None:
            continue
        rows.append((label, amount(value, with_usd=False), usd(value.amount_usd)))
    return rows


def sponsorship_lines(quote: Quote) -> list[str]:
    sponsorship = quote.fee_sponsorship
    quoted = sponsorship.quoted if sponsorship else None
    if quoted is None:
        return ["no fee sponsorship"]
    lines = []
    selected = ", ".join(quoted.selected_components or []) or "none"
    cap = quoted.max_subsidization_amount
    cap_text = f", cap {format_units(cap, 6)} USDC" if cap is not None else ""
    hit = " (cap hit: you pay the rest)" if quoted.cap_hit else ""
    lines.append(f"sponsored components: {selected}{cap_text}{hit}")
    for name, component in (quoted.components or {}).items():
        mark = "x" if component.selected else " "
        lines.append(
            f"[{mark}] {name:<10} total {usd(_usd_of(component.total))}, sponsor pays "
            f"{usd(_usd_of(component.sponsored))}, you pay {usd(_usd_of(component.user_pays))}"
        )
    lines.append(
        f"sponsor pays {amount(quoted.sponsored_total)}; you pay {amount(quoted.user_pays_total)}"
    )
    return lines


def _usd_of(value: CurrencyAmount | None) -> str | None:
    return value.amount_usd if value else None


def impact_lines(quote: Quote) -> list[str]:
    details = quote.details
    if details is None:
        return []
    lines = []
    total, swap = details.total_impact, details.swap_impact
    if total is not None:
        lines.append(f"total impact {usd(total.usd)} ({total.percent or '?'}%)")
    if swap is not None:
        lines.append(f"swap impact  {usd(swap.usd)} ({swap.percent or '?'}%)")
    return lines


def rate_line(quote: Quote) -> str:
    details = quote.details
    if details is None or details.rate is None:
        return "rate -"
    cin = details.currency_in.symbol if details.currency_in else "?"
    cout = details.currency_out.symbol if details.currency_out else "?"
    return f"rate 1 {cin} = {details.rate} {cout}"


def slippage_line(quote: Quote) -> str:
    details = quote.details
    tolerance = details.slippage_tolerance if details else None
    if tolerance is None:
        return "slippage -"
    parts = []
    for side in ("origin", "destination"):
        value = getattr(tolerance, side)
        if value is not None:
            parts.append(f"{side} {value.percent or '?'}% ({usd(value.usd)})")
    return "slippage " + (", ".join(parts) or "-")


def time_line(quote: Quote) -> str:
    details = quote.details
    estimate = details.time_estimate if details else None
    return "time estimate -" if estimate is None else f"time estimate ~{estimate}s"


def route_lines(quote: Quote) -> list[str]:
    details = quote.details
    route = details.route if details else None
    if route is None:
        return ["route -"]
    lines = []
    for side in ("origin", "destination"):
        leg = getattr(route, side)
        if leg is None:
            continue
        sources = ", ".join(leg.included_swap_sources or []) or "none"
        lines.append(
            f"{side}: {amount(leg.input_currency, with_usd=False)} -> "
            f"{amount(leg.output_currency, with_usd=False)} via {leg.router or '?'} "
            f"(sources: {sources})"
        )
    return lines or ["route -"]


def tx_words(tx: TransactionData, chains: ChainsResponse | None) -> str:
    """One EVM transaction in words: chain, target, value, what the calldata does."""
    chain = chains.by_id(tx.chain_id) if chains and tx.chain_id is not None else None
    target = short(tx.to)
    if chain is not None and tx.to and (chain.depository or "").lower() == tx.to.lower():
        target += " (the depository)"
    native = chain.currency.symbol if chain and chain.currency else "native"
    value = format_units(tx.value or 0, 18)
    data = tx.data or "0x"
    call = _calldata_words(data)
    return (
        f"transaction on {chain_name(chains, tx.chain_id)} to {target}, "
        f"value {value} {native}, {call}"
    )


def _calldata_words(data: str) -> str:
    if data in ("", "0x"):
        return "no calldata"
    size = (len(data) - 2) // 2
    selector = data[:10].lower()
    name = _SELECTORS.get(selector)
    if name in ("approve", "transfer") and len(data) >= 10 + 128:
        who = "0x" + data[10 + 24 : 10 + 64]
        units = int(data[10 + 64 : 10 + 128], 16)
        verb = "approve spender" if name == "approve" else "transfer to"
        return f"{verb} {short(who)} for {units} units"
    return f"calldata {data[:10]}… ({size} bytes)"


def signature_words(data: SignatureData) -> str:
    sign = data.sign
    post = data.post
    if sign is None:
        return "signature (no sign payload)"
    domain = sign.domain or {}
    what = f"sign {sign.signature_kind or '?'} {sign.primary_type or 'message'}"
    if domain:
        what += f" in domain {domain.get('name', '?')} (chain {domain.get('chainId', '?')})"
    if post is not None and post.endpoint:
        what += f", then {post.method or 'POST'} {post.endpoint}"
    return what


def venue_deposit_words(data: VenueDepositData) -> str:
    action = data.action
    if action is None:
        return "venue action (empty)"
    domain = data.sign_domain_name or "?"
    return (
        f"sign {data.eip712_primary_type or action.type} ({domain}): send {action.amount} "
        f"{action.token} to {short(action.destination)} (nonce {action.nonce}), "
        "then submit it to the venue"
    )


def item_words(item: StepItem, chains: ChainsResponse | None) -> str:
    kind = item.kind_of_data
    if kind == "transaction":
        return tx_words(item.as_transaction(), chains)
    if kind == "signature":
        return signature_words(item.as_signature())
    if kind == "venue_deposit":
        return venue_deposit_words(item.as_venue_deposit())
    return "an item of a kind this app does not know (it will be refused)"


def step_lines(steps: Iterable[Step], chains: ChainsResponse | None) -> list[str]:
    lines = []
    for number, step in enumerate(steps, start=1):
        lines.append(f"{number}. {step.id} ({step.kind}): {step.description or step.action or ''}")
        for item_number, item in enumerate(step.items, start=1):
            lines.append(f"   {number}.{item_number} {item_words(item, chains)}")
    return lines


def age_text(fetched_at: datetime, now: datetime) -> str:
    seconds = max(0, int((now - fetched_at).total_seconds()))
    if seconds < 60:
        return f"{seconds}s ago"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m {seconds:02d}s ago"


@dataclass(frozen=True)
class QuoteSummary:
    """The headline of a quote: what goes in, what comes out, and who gets it."""

    pay: str
    receive: str
    recipient: str
    request_id: str


def summarize_quote(quote: Quote, chains: ChainsResponse | None) -> QuoteSummary:
    details = quote.details
    return QuoteSummary(
        pay=currency_amount_line(details.currency_in if details else None, chains),
        receive=currency_amount_line(details.currency_out if details else None, chains),
        recipient=(details.recipient if details else None) or "-",
        request_id=quote.request_id or "-",
    )
