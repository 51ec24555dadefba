"""A portfolio in plain text lines (`crossdeck balances`): one block per asset, largest first,
with a row per chain; the grand total; then what could not be read or priced."""

from __future__ import annotations

from crossdeck.models.display import decimal_amount_text
from crossdeck.portfolio.model import AssetTotal, Holding, Portfolio, usd_text


def holding_where(holding: Holding, chain_name: str) -> str:
    """'Base (8453)', 'Venue (1337) perps'."""
    where = f"{chain_name} ({holding.chain_id})"
    return f"{where} {holding.place}" if holding.place else where


def asset_amount(total: AssetTotal) -> str:
    """As a wallet shows it: '1,234.57 USDC'."""
    return decimal_amount_text(total.units, total.symbol)


def portfolio_lines(portfolio: Portfolio) -> list[str]:
    others = sorted({a for a in portfolio.owners.values() if a != portfolio.owner})
    lines = [f"Portfolio of {' and '.join([portfolio.owner, *others])}"]
    read = [c for c in portfolio.chains if c.reachable]
    if read:
        lines.append("read: " + ", ".join(f"{c.name} ({c.chain_id}) via {c.via}" for c in read))
    lines.append("")
    assets = portfolio.assets()
    if not assets:
        lines.append("nothing held on the chains read")
    for total in assets:
        extra = f" (+{total.unpriced} without a price)" if total.unpriced and total.usd else ""
        lines.append(f"{asset_amount(total):<44} {usd_text(total.usd):>18}{extra}")
        for holding in total.holdings:
            where = holding_where(holding, portfolio.names.get(holding.chain_id, "?"))
            amount = f"{holding.shown} ({holding.amount})"
            value = usd_text(holding.amount_usd)
            lines.append(f"  {where:<26} {amount:<40} {value:>16}")
            if holding.account_value is not None:
                lines.append(f"  {'':<26} account value {usd_text(holding.account_value)}")
    lines.append("")
    lines.append(f"{'Total':<44} {usd_text(portfolio.total_usd):>18}")
    # the total counts only what was read: say so beside it, not only in the lines below
    for chain in portfolio.unreachable:
        lines.append(f"  not in the total: what {chain.name} ({chain.chain_id}) holds (not read)")
    unpriced = portfolio.unpriced
    if unpriced:
        lines.append(
            f"  not in the total: {len(unpriced)} holding(s) without a price from the service"
        )
        for holding in unpriced:
            lines.append(
                f"    {holding.symbol} on {holding.chain_id}: {holding.price_problem or 'no price'}"
            )
    for chain in portfolio.chains:
        if not chain.reachable:
            lines.append(
                f"UNREACHABLE {chain.name} ({chain.chain_id}) at {chain.url or '(no URL)'}: "
                f"{chain.error}"
            )
        for note in chain.notes:
            lines.append(f"note: {chain.name} ({chain.chain_id}): {note}")
    return lines
