"""The quote, rendered: what is paid and received, fees, sponsorship, impact, rate, slippage, time,
route, every step in words, how old the quote is and whether the form changed since."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from crossdeck.execute.guards import GuardResult
from crossdeck.models import ChainsResponse, Details, Quote, format_units
from crossdeck.tui import describe

STALE_AFTER_SECONDS = 30


def _section(title: str) -> Rule:
    return Rule(Text(title, style="bold"), align="left", style="dim")


def _user_balance(details: Details) -> str | None:
    """The wallet's balance of what it pays (smallest units on the wire), in human units."""
    balance = details.user_balance
    if balance is None:
        return None
    paid = details.currency_in
    if paid is None or paid.decimals is None or not balance.strip().lstrip("-").isdigit():
        return balance
    return f"{format_units(int(balance), paid.decimals)} {paid.symbol or ''}".strip()


def render_quote(
    quote: Quote,
    chains: ChainsResponse | None,
    fetched_at: datetime,
    now: datetime,
    *,
    form_changed: bool = False,
    funds: Sequence[GuardResult] = (),
) -> RenderableType:
    """`form_changed`: the form was edited since this quote was asked for (execute refuses);
    `funds`: the `funds` guard's verdict on it (whether the wallet holds what it takes)."""
    summary = describe.summarize_quote(quote, chains)
    age_seconds = (now - fetched_at).total_seconds()
    age = Text(f"quoted {describe.age_text(fetched_at, now)}")
    if age_seconds >= STALE_AFTER_SECONDS:
        age.append("  (old: ctrl+r re-quotes)", style="bold yellow")

    head = Table.grid(padding=(0, 1))
    head.add_column(style="bold", no_wrap=True)
    head.add_column()
    if form_changed:
        head.add_row(
            "Out of date",
            Text("form changed — press ctrl+r to re-quote", style="bold yellow"),
        )
    head.add_row("Request", Text(summary.request_id, overflow="fold"))
    head.add_row("Age", age)
    head.add_row("Pay", summary.pay)
    head.add_row("Receive", summary.receive)
    details = quote.details
    if details is not None and details.currency_out is not None:
        minimum = details.currency_out.minimum_amount
        decimals = details.currency_out.decimals
        if minimum is not None and decimals is not None:
            head.add_row(
                "At least",
                f"{format_units(minimum, decimals)} {details.currency_out.symbol or ''}",
            )
    if details is not None:
        topup = details.currency_gas_topup
        if topup is not None and topup.amount != 0:  # the service sends 0 without a top-up
            head.add_row("Gas top-up", describe.currency_amount_line(topup, chains))
    head.add_row("Recipient", summary.recipient)
    if details is not None and details.operation:
        head.add_row("Operation", details.operation)

    fees = Table(box=None, padding=(0, 1), show_header=True, header_style="bold")
    fees.add_column("fee")
    fees.add_column("amount", overflow="fold")
    fees.add_column("USD", justify="right")
    for label, amount, usd in describe.fee_rows(quote):
        fees.add_row(label, amount, usd)

    prices = Table.grid(padding=(0, 1))
    prices.add_column()
    for line in [
        *describe.impact_lines(quote),
        describe.rate_line(quote),
        describe.slippage_line(quote),
        describe.time_line(quote),
    ]:
        prices.add_row(line)

    # last, so that the sections above stay where they were
    balance = _user_balance(details) if details is not None else None
    wallet: list[RenderableType] = [Text(f"balance {balance}")] if balance is not None else []
    for result in funds:
        mark, style = ("✓", "green") if result.ok else ("✗", "bold red")
        wallet.append(Text.assemble("funds ", (mark, style), f" {result.message}"))
    if wallet:
        wallet.insert(0, _section("Wallet"))

    steps = Text("\n".join(describe.step_lines(quote.steps, chains)) or "no steps")
    return Group(
        head,
        _section("Fees"),
        fees,
        _section("Sponsorship"),
        Text("\n".join(describe.sponsorship_lines(quote))),
        _section("Price"),
        prices,
        _section("Route"),
        Text("\n".join(describe.route_lines(quote))),
        _section(f"Steps ({len(quote.steps)})"),
        steps,
        *wallet,
    )
