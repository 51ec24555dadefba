"""The portfolio: what an address holds on every chain the service lists and on the venue,
read in one batched call per chain, all chains at once, priced by the service."""

from crossdeck.portfolio.model import AssetTotal, ChainReading, Holding, Portfolio, usd_text
from crossdeck.portfolio.reader import ChainBalanceReader, chain_family, read_portfolio

__all__ = [
    "AssetTotal",
    "ChainBalanceReader",
    "ChainReading",
    "Holding",
    "Portfolio",
    "chain_family",
    "read_portfolio",
    "usd_text",
]
