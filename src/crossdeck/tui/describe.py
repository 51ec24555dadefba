"""Labels the screens put on chains, currencies and ages, and the short forms of the
describer's words (`crossdeck.execute.describe`) that fit a table row. No textual here.

What a quote pays, receives and signs is said once, by the describer; this module only shortens
it for the Execute screen's rows and summary.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from crossdeck.models.constants import NATIVE_ADDRESS, VENUE_CHAIN_ID
from crossdeck.models.display import chain_label
from crossdeck.models.text import short

if TYPE_CHECKING:
    from crossdeck.execute.describe import Headline
    from crossdeck.models import ChainCurrency, ChainInfo, ChainsResponse, Quote, StepItem

# the describer is imported where it is used: `crossdeck.execute` brings the guards and eth-abi,
# which the pickers that use the labels below do not need on the app's start path

__all__ = [
    "age_text",
    "chain_name",
    "currency_label",
    "item_words",
    "short",
    "summarize_quote",
    "venue_kind",
]


def chain_name(chains: ChainsResponse | None, chain_id: int | None) -> str:
    """'Base (8453)', 'chain 8453' when /chains does not name it, '?' for none."""
    return "?" if chain_id is None else chain_label(chains, chain_id)


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


def item_words(item: StepItem, chains: ChainsResponse | None, quote: Quote | None = None) -> str:
    """One step item as the describer says it, on one line with short addresses."""
    from crossdeck.execute.describe import Currencies, item_lines

    lines = item_lines(item, Currencies(quote, chains), full=False)
    return "; ".join(f"{line.label} {line.value}" for line in lines)


def summarize_quote(quote: Quote, chains: ChainsResponse | None) -> Headline:
    """What goes in, what comes out, who gets it, as the describer says them."""
    from crossdeck.execute.describe import Currencies, headline

    return headline(quote, Currencies(quote, chains))


def age_text(fetched_at: datetime, now: datetime) -> str:
    seconds = max(0, int((now - fetched_at).total_seconds()))
    if seconds < 60:
        return f"{seconds}s ago"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m {seconds:02d}s ago"
