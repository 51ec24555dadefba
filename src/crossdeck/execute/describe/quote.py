"""The quote in words: its summary (what goes in and out, the rate, who gets it and where refunds
go), fees, sponsorship, payment, route, the destination calls and every step; and the headline
the Execute screen shows. `crossdeck quote` prints these sections, the app's Quote view draws
them."""

from __future__ import annotations

from dataclasses import dataclass

from crossdeck.execute.describe.currencies import FEE_LABELS, Currencies, amount_line, money
from crossdeck.execute.describe.items import step_section
from crossdeck.execute.describe.lines import Line, Section
from crossdeck.models import NATIVE_ADDRESS, ChainsResponse, Quote, QuoteRequest
from crossdeck.models.display import Unit, rate_text, units_text, usd
from crossdeck.models.text import short
from crossdeck.models.units import usd_text


@dataclass(frozen=True)
class Headline:
    """What goes in, what comes out, who gets it (the Execute screen's summary)."""

    pay: str
    receive: str
    recipient: str
    request_id: str


def headline(quote: Quote, currencies: Currencies) -> Headline:
    details = quote.details
    return Headline(
        pay=money(details.currency_in if details else None, currencies),
        receive=money(details.currency_out if details else None, currencies),
        recipient=(details.recipient if details else None) or "-",
        request_id=quote.request_id or "-",
    )


def quote_sections(
    quote: Quote,
    chains: ChainsResponse | None = None,
    request: QuoteRequest | None = None,
) -> list[Section]:
    """The whole quote: summary, fees, sponsorship, payment, route and every step."""
    currencies = Currencies(quote, chains)
    sections = [_summary(quote, request, currencies)]
    fees = quote.fees
    fee_lines = [
        amount_line(label, value, currencies)
        for name, label in FEE_LABELS.items()
        if fees is not None and (value := getattr(fees, name)) is not None
    ]
    if fee_lines:
        sections.append(Section("Fees", tuple(fee_lines)))
    sponsorship = _sponsorship(quote, currencies)
    if sponsorship:
        sections.append(Section("Sponsorship", tuple(sponsorship)))
    payment = _payment(quote, currencies)
    if payment is not None:
        sections.append(Section("Payment", (payment,)))
    route = _route(quote, currencies)
    if route:
        sections.append(Section("Route", tuple(route)))
    calls = _calls(quote, currencies)
    if calls:
        sections.append(Section("Calls", tuple(calls)))
    sections.append(step_section(quote.steps, currencies))
    return sections


def _calls(quote: Quote, currencies: Currencies) -> list[Line]:
    """The calls the order makes on the destination after the fill (`orderData.output.calls`),
    decoded: each contract, the value it gets out of the output, its calldata."""
    from crossdeck.execute.guards.calls import decode_call, order_calls

    given = order_calls(quote) or []
    details = quote.details
    out = details.currency_out if details is not None else None
    currency = out.currency if out is not None else None
    chain_id = currency.chain_id if currency is not None and not isinstance(currency, str) else None
    unit = currencies.native(chain_id)
    lines = []
    for i, encoded in enumerate(given, start=1):
        call = decode_call(encoded)
        if call is None:
            lines.append(Line(f"{i}.", f"cannot be read: {short(str(encoded), 18, 8)}"))
            continue
        lines.append(Line(f"{i}. to", call.to, raw=call.to, kind="address"))
        value = f"{units_text(call.value, unit)} out of what arrives"
        lines.append(Line("   value", value, raw=str(call.value), kind="amount"))
        lines.append(Line("   data", call.data, raw=call.data, kind="calldata"))
    return lines


def _summary(quote: Quote, request: QuoteRequest | None, currencies: Currencies) -> Section:
    details = quote.details
    lines = [Line("request", quote.request_id or "-", raw=quote.request_id, kind="hash")]
    if details is not None:
        if details.operation:
            lines.append(Line("operation", details.operation))
        if details.currency_in is not None:
            lines.append(amount_line("you pay", details.currency_in, currencies))
        if details.currency_out is not None:
            out = details.currency_out
            lines.append(amount_line("you get", out, currencies))
            if out.minimum_amount is not None and out.decimals is not None:
                unit = Unit(out.symbol or "?", out.decimals)
                lines.append(
                    Line(
                        "at least",
                        units_text(out.minimum_amount, unit),
                        raw=str(out.minimum_amount),
                        kind="amount",
                    )
                )
        topup = details.currency_gas_topup
        if topup is not None and topup.amount:  # the service sends 0 without a top-up
            lines.append(amount_line("gas topup", topup, currencies))
        lines += _price_lines(quote)
    if request is not None:
        lines += _dollar_asks(request)
    if request is not None:
        lines.append(Line("user", request.user, raw=request.user, kind="address"))
    recipient = (details.recipient if details else None) or (
        request.effective_recipient() if request else None
    )
    if recipient:
        lines.append(Line("recipient", recipient, raw=recipient, kind="address"))
    if request is not None:
        refund = request.effective_refund_to()
        lines.append(Line("refund to", refund, raw=refund, kind="address"))
    return Section(f"Quote for request {quote.request_id or '-'}", tuple(lines))


def _dollar_asks(request: QuoteRequest) -> list[Line]:
    """The request's dollar fields said back in dollars, as they were asked for (the wire
    counts millionths of a dollar: an option read as the wrong unit shows here)."""
    lines: list[Line] = []
    if request.topup_gas:
        asked = request.topup_gas_amount
        text = f"{usd_text(int(asked))} asked" if asked is not None else "$2 asked (the default)"
        lines.append(Line("gas on arrival", text, raw=None if asked is None else str(asked)))
    if request.subsidize_fees and request.max_subsidization_amount is not None:
        cap = request.max_subsidization_amount
        lines.append(Line("sponsor cap", f"{usd_text(int(cap))} asked", raw=str(cap)))
    return lines


def _price_lines(quote: Quote) -> list[Line]:
    details = quote.details
    if details is None:
        return []
    lines: list[Line] = []
    if details.rate is not None:
        cin = details.currency_in.symbol if details.currency_in else None
        cout = details.currency_out.symbol if details.currency_out else None
        lines.append(Line("rate", rate_text(details.rate, cin, cout), raw=details.rate))
    for label, impact in (("impact", details.total_impact), ("swap impact", details.swap_impact)):
        if impact is not None:
            lines.append(Line(label, f"{usd(impact.usd)} ({impact.percent or '?'}%)"))
    tolerance = details.slippage_tolerance
    if tolerance is not None:
        parts = [
            f"{side} {value.percent or '?'}% ({usd(value.usd)})"
            for side in ("origin", "destination")
            if (value := getattr(tolerance, side)) is not None
        ]
        if parts:
            lines.append(Line("slippage", ", ".join(parts)))
    if details.time_estimate is not None:
        lines.append(Line("time", f"about {details.time_estimate} s"))
    return lines


def _sponsorship(quote: Quote, currencies: Currencies) -> list[Line]:
    sponsorship = quote.fee_sponsorship
    quoted = sponsorship.quoted if sponsorship else None
    if quoted is None:
        return []
    selected = ", ".join(quoted.selected_components or []) or "none"
    cap = quoted.max_subsidization_amount
    cap_text = f", cap {units_text(cap, Unit('USDC', 6))}" if cap is not None else ""
    hit = " (cap hit: you pay the rest)" if quoted.cap_hit else ""
    lines = [Line("components", f"{selected}{cap_text}{hit}")]
    for name, component in (quoted.components or {}).items():
        mark = "x" if component.selected else " "
        total, sponsored, user = component.total, component.sponsored, component.user_pays
        lines.append(
            Line(
                f"[{mark}] {name}",
                f"total {usd(total.amount_usd if total else None)}, sponsor pays "
                f"{usd(sponsored.amount_usd if sponsored else None)}, you pay "
                f"{usd(user.amount_usd if user else None)}",
            )
        )
    if quoted.sponsored_total is not None:
        lines.append(amount_line("sponsored", quoted.sponsored_total, currencies))
    if quoted.user_pays_total is not None:
        lines.append(amount_line("you pay", quoted.user_pays_total, currencies))
    return lines


def _payment(quote: Quote, currencies: Currencies) -> Line | None:
    payment = quote.payment_details
    if payment is None:
        return None
    details = quote.details
    amount_in = details.currency_in if details else None
    info = amount_in.currency_info if amount_in else None
    chain_id = info.chain_id if info else None
    if payment.currency and payment.currency.lower() == NATIVE_ADDRESS:
        unit: Unit | None = currencies.native(chain_id)
    else:
        unit = currencies.token(chain_id, payment.currency)
    amount = units_text(payment.amount, unit) if payment.amount is not None else "?"
    return Line(
        "payment",
        f"{amount} of {payment.currency} to the depository {payment.depository} on chain "
        f"{payment.chain_id}",
        raw=str(payment.amount) if payment.amount is not None else None,
        kind="amount",
    )


def _route(quote: Quote, currencies: Currencies) -> list[Line]:
    details = quote.details
    route = details.route if details else None
    if route is None:
        return []
    lines = []
    for side in ("origin", "destination"):
        leg = getattr(route, side)
        if leg is None:
            continue
        sources = ", ".join(leg.included_swap_sources or []) or "none"
        lines.append(
            Line(
                side,
                f"{money(leg.input_currency, currencies)} -> "
                f"{money(leg.output_currency, currencies)} via {leg.router or '?'} "
                f"(sources: {sources})",
            )
        )
    return lines
