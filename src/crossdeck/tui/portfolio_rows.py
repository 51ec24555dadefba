"""The Portfolio screen's rows (no textual here): one row per asset with its total, opened to one
row per chain, then each chain's notes (the venue account's mode, a balance left out) and one row
per chain that could not be read. Each row knows what it stands for, so a key on it can act (open
or close an asset, move a holding).

A note is a sentence, drawn in the amount column: `fit_notes` folds it on two lines of the
figures' width there, cut where more follows, so that it never widens the column and pushes USD
off the screen; the line under the table says it whole. (An unreachable chain's words stay
whole: its URL is scheme://host:port only.)"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, replace
from typing import Literal

from rich.cells import cell_len, set_cell_size

from crossdeck.models.text import ELLIPSIS, short
from crossdeck.portfolio import Holding, Portfolio, usd_text
from crossdeck.portfolio.text import asset_amount, holding_where

RowKind = Literal["asset", "holding", "unreachable", "note"]
HEADERS = ("asset / chain", "amount", "USD")
NOTE_LINES = 2  # a note row's height: the account mode reads whole even at 80 columns


@dataclass(frozen=True)
class Row:
    key: str  # the DataTable row key: stable across refreshes, so the cursor stays put
    kind: RowKind
    label: str
    amount: str
    usd: str
    asset: str | None = None
    holding: Holding | None = None
    detail: str = ""  # what the line under the table says when the cursor is on this row


def asset_key(asset: str) -> str:
    return f"asset:{asset}"


def holding_key(holding: Holding) -> str:
    return f"holding:{holding.chain_id}:{holding.currency.lower()}"


def portfolio_rows(portfolio: Portfolio, expanded: set[str], *, wide: bool) -> list[Row]:
    """`expanded`: the assets whose chains are shown. `wide`: amounts carry their exact integer
    (at 80 columns the line under the table shows it for the row under the cursor)."""
    names = portfolio.names
    rows: list[Row] = []
    for total in portfolio.assets():
        opened = total.asset in expanded
        chains = len(total.holdings)
        marker = "▾" if opened else "▸"
        where = f"{chains} chain{'s' if chains != 1 else ''}"
        unpriced = f", {total.unpriced} without a price" if total.unpriced else ""
        rows.append(
            Row(
                key=asset_key(total.asset),
                kind="asset",
                label=f"{marker} {total.symbol}",
                amount=asset_amount(total),
                usd=usd_text(total.usd),
                asset=total.asset,
                detail=f"{total.symbol} on {where}{unpriced}: enter "
                f"{'hides' if opened else 'shows'} its row per chain",
            )
        )
        if not opened:
            continue
        for holding in total.holdings:
            amount = holding.shown
            if wide:
                amount += f" ({holding.amount})"
            place = holding_where(holding, names.get(holding.chain_id, "?"))
            price = (
                f"at ${holding.price_usd} each"
                if holding.price_usd is not None
                else f"no price: {holding.price_problem or 'the service gave none'}"
            )
            account = (
                f"; account value {usd_text(holding.account_value)}"
                if holding.account_value is not None
                else ""
            )
            rows.append(
                Row(
                    key=holding_key(holding),
                    kind="holding",
                    label=f"   {place}",
                    amount=amount,
                    usd=usd_text(holding.amount_usd),
                    asset=total.asset,
                    holding=holding,
                    detail=f"{holding.amount_text} {holding.symbol} exactly ({holding.amount}) "
                    f"of {holding.currency} on {place}, "
                    f"{price}{account}; m moves it",
                )
            )
    for chain in portfolio.chains:
        for index, note in enumerate(chain.notes):  # read but left out: said, as balances does
            rows.append(
                Row(
                    key=f"note:{chain.chain_id}:{index}",
                    kind="note",
                    label=f"note: {chain.name} ({chain.chain_id})",
                    amount=note,
                    usd="",
                    detail=f"{chain.name} ({chain.chain_id}): {note}",
                )
            )
        if not chain.reachable:
            rows.append(
                Row(
                    key=f"unreachable:{chain.chain_id}",
                    kind="unreachable",
                    label=f"⚠ {chain.name} ({chain.chain_id})",
                    amount=f"unreachable at {chain.url or '(no URL)'}",
                    usd="?",
                    detail=f"{chain.name} ({chain.chain_id}) at {chain.url or '(no URL)'}: "
                    f"{chain.error}; ctrl+r tries again",
                )
            )
    return rows


def fit_notes(rows: list[Row]) -> list[Row]:
    """A note's sentence wrapped to the width the other rows give the amount column, on at most
    NOTE_LINES lines, the last cut with '…' where more follows: a note never widens the column (a
    DataTable cell cannot span columns), so the figures and the USD column stay where they are at
    any screen width; the line under the table says the note whole."""
    width = max([cell_len(HEADERS[1]), *(cell_len(r.amount) for r in rows if r.kind != "note")])
    return [replace(r, amount=fold(r.amount, width)) if r.kind == "note" else r for r in rows]


def fold(text: str, width: int, lines: int = NOTE_LINES) -> str:
    """`text` in at most `lines` lines of `width` cells (broken between words), the last one
    ending in '…' where it is cut."""
    # textwrap counts characters: each line is held to `width` cells as well (a wide character)
    wrapped = [cut(line, width) for line in textwrap.wrap(text, width)] or [""]
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 1], cut(" ".join(wrapped[lines - 1 :]), width)]
    return "\n".join(wrapped)


def cut(text: str, width: int) -> str:
    """`text` in at most `width` cells, its end an ellipsis where it is cut."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + ELLIPSIS if width > 0 else ""


def age_text(seconds: float) -> str:
    """'read just now', 'read 40 s ago', 'read 3 min ago'."""
    if seconds < 10:
        return "read just now"
    if seconds < 120:
        return f"read {int(seconds) // 10 * 10} s ago"
    return f"read {int(seconds) // 60} min ago"


def total_line(portfolio: Portfolio, age_seconds: float | None = None) -> str:
    """The line on top: whose numbers, the grand total, what it leaves out, and the reading's
    age."""
    read = sum(1 for c in portfolio.chains if c.reachable)
    parts = [
        short(portfolio.owner, 6, 4),
        f"Total {usd_text(portfolio.total_usd)}",
        f"{read} of {len(portfolio.chains)} chains read",
    ]
    if portfolio.unreachable:
        parts.append(f"{len(portfolio.unreachable)} unreachable")
    if portfolio.unpriced:
        parts.append(f"{len(portfolio.unpriced)} without a price (not in the total)")
    if age_seconds is not None:
        parts.append(age_text(age_seconds))
    return " · ".join(parts)
