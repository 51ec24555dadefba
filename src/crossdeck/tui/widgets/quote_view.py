"""The quote, rendered: the describer's sections (what is paid and received, fees, sponsorship,
payment, route, every step in words, amounts in units beside their integers), how old the quote
is and whether the form changed since, and whether the wallet holds what it takes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from crossdeck.tui import describe

if TYPE_CHECKING:
    # only annotated here: the guards import eth-abi and httpx, kept off the app's start path
    from crossdeck.execute.describe import Line
    from crossdeck.execute.guards import GuardResult
    from crossdeck.models import ChainsResponse, Details, Quote

# a quote older than this is not executed (the Quote screen refuses ctrl+g): its fees and
# routes may have moved
EXECUTABLE_FOR_SECONDS = 120
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
    from crossdeck.models.display import Unit, units_text

    return units_text(int(balance), Unit(paid.symbol or "?", paid.decimals))


KIND_STYLES = {"address": "cyan", "hash": "cyan", "json": "green", "warning": "yellow"}


def _grid(lines: Sequence[Line]) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for line in lines:
        grid.add_row(line.label.strip(), Text(line.value, style=KIND_STYLES.get(line.kind, "")))
    return grid


def render_quote(
    quote: Quote,
    chains: ChainsResponse | None,
    fetched_at: datetime,
    now: datetime,
    *,
    form_changed: bool = False,
    funds: Sequence[GuardResult] = (),
    extra_fees: Sequence[str] = (),
) -> RenderableType:
    """The describer's sections (`quote_sections`, what `crossdeck quote` prints too) under the
    quote's age. `form_changed`: the form was edited since this quote was asked for (execute
    refuses); `funds`: the `funds` guard's verdict on it (whether the wallet holds what it
    takes)."""
    from crossdeck.execute.describe import quote_sections

    age_seconds = (now - fetched_at).total_seconds()
    age = Text(describe.age_text(fetched_at, now))
    left = int(EXECUTABLE_FOR_SECONDS - age_seconds)
    if left > 0:  # the quote's remaining validity, as wallets count a quote down
        minutes, seconds = divmod(left, 60)
        more = f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"
        age.append(f" · executable for {more} more (ctrl+r refreshes)")
    else:
        age.append(" · too old to execute: ctrl+r refreshes it", style="bold yellow")
    if 0 < left and age_seconds >= STALE_AFTER_SECONDS:
        age.append("  (old: ctrl+r re-quotes)", style="bold yellow")

    head = Table.grid(padding=(0, 1))
    head.add_column(style="bold", no_wrap=True)
    head.add_column()
    if form_changed:
        head.add_row(
            "Out of date",
            Text("form changed — press ctrl+r to re-quote", style="bold yellow"),
        )
    head.add_row("Quoted", age)
    summary, *sections = quote_sections(quote, chains)
    parts: list[RenderableType] = [head, _grid(summary.lines)]
    # fees the quote does not price but the user pays (a venue withdrawal's first-send fee)
    parts += [Text.assemble(("also pays ", "bold"), (words, "bold yellow")) for words in extra_fees]

    # right under the summary: whether the wallet can pay is read before the fees
    details = quote.details
    balance = _user_balance(details) if details is not None else None
    wallet: list[RenderableType] = [Text(f"balance {balance}")] if balance is not None else []
    for result in funds:
        mark, style = ("✓", "green") if result.ok else ("✗", "bold red")
        wallet.append(Text.assemble("funds ", (mark, style), f" {result.message}"))
    if wallet:
        parts += [_section("Wallet"), *wallet]
    for section in sections:
        parts += [_section(section.title), _grid(section.lines)]
    return Group(*parts)
