"""What a portfolio reading is: holdings per chain, the chains that could not be read, prices.

Amounts are integers in the currency's smallest unit; a USD value is an integer of
micro-dollars, the holding's amount times the service's price computed exactly in integers and
rounded half-even, and None where the service gave no price (nothing stands in for a missing
price, a stablecoin's included). Totals add those integers, so the grand total is exactly the
sum of the rows it shows; `Decimal` only carries them to JSON and to the screen. (Decimal
arithmetic would round past 28 digits, and its quantize raises there: a hostile price or an
18-decimal token held by the trillion must not end in a traceback.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from crossdeck.models.display import Unit, amount_text, usd_of
from crossdeck.models.units import format_units, to_decimal

MICRO = 10**6  # micro-dollars, the service's USD scale


def _micro_usd(micro: int) -> Decimal:
    """Integer micro-dollars as an exact Decimal (from text: exact whatever the context)."""
    return Decimal(f"{micro}E-6")


@dataclass(frozen=True)
class Holding:
    """One currency on one chain: `amount` in its smallest unit."""

    chain_id: int
    currency: str  # the address /chains gives it (the zero address for an EVM native currency)
    symbol: str
    decimals: int
    amount: int
    place: str | None = None  # on the venue: 'perps', 'spot' or 'HIP-3 <dex>'
    account_value: Decimal | None = None  # on the venue's perps: the account value, USD
    price_usd: Decimal | None = None
    price_problem: str | None = None  # why there is no price

    @property
    def units(self) -> Decimal:
        return to_decimal(self.amount, self.decimals)

    @property
    def amount_text(self) -> str:
        """Every digit (the JSON's amountFormatted)."""
        return format_units(self.amount, self.decimals)

    @property
    def shown(self) -> str:
        """As a wallet shows it, unit beside: '99.8396 ETH' (the exact value: `amount_text`)."""
        return amount_text(self.amount, Unit(self.symbol, self.decimals))

    @property
    def micro_usd(self) -> int | None:
        """The value in micro-dollars: amount x price, exact, rounded half-even once."""
        if self.price_usd is None:
            return None
        numerator, denominator = self.price_usd.as_integer_ratio()
        return round(Fraction(self.amount * numerator * MICRO, denominator * 10**self.decimals))

    @property
    def amount_usd(self) -> Decimal | None:
        micro = self.micro_usd
        return None if micro is None else _micro_usd(micro)

    @property
    def asset(self) -> str:
        """What rows are grouped by across chains: the symbol, without regard to case."""
        return self.symbol.upper()

    def priced(self, price: Decimal | None, problem: str | None = None) -> Holding:
        return replace(self, price_usd=price, price_problem=None if price is not None else problem)

    def to_json(self, chain_name: str | None = None) -> dict[str, Any]:
        usd = self.amount_usd
        out: dict[str, Any] = {
            "chainId": self.chain_id,
            "chainName": chain_name,
            "currency": self.currency,
            "symbol": self.symbol,
            "decimals": self.decimals,
            "amount": str(self.amount),
            "amountFormatted": self.amount_text,
            "priceUsd": _text(self.price_usd),
            "amountUsd": _text(usd),
        }
        if self.price_problem:
            out["priceProblem"] = self.price_problem
        if self.place is not None:
            out["venue"] = self.place
        if self.account_value is not None:
            out["accountValueUsd"] = _text(self.account_value)
        return out


@dataclass(frozen=True)
class ChainReading:
    """One chain's holdings, or why they could not be read (`error`, at `url`)."""

    chain_id: int
    name: str
    url: str  # where it was read: scheme://host[:port] of the RPC, or the venue's
    via: str  # 'multicall3', 'single calls', 'venue', or '' when not read
    holdings: tuple[Holding, ...] = ()
    error: str | None = None
    notes: tuple[str, ...] = ()  # what was read but left out (a token that did not answer)

    @property
    def reachable(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class AssetTotal:
    asset: str  # the grouping key (the symbol upper-cased), not for display
    units: Decimal
    usd: Decimal | None  # None when no row of it has a price
    unpriced: int  # rows without a price (their value is not in `usd`)
    holdings: tuple[Holding, ...]

    @property
    def symbol(self) -> str:
        """The symbol as the chains write it ('USDe', not the key 'USDE'): its largest row's."""
        return self.holdings[0].symbol if self.holdings else self.asset


@dataclass(frozen=True)
class Portfolio:
    owner: str
    chains: tuple[ChainReading, ...]
    names: dict[int, str] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)  # the address read, per chain family

    @property
    def holdings(self) -> list[Holding]:
        return [h for chain in self.chains for h in chain.holdings]

    @property
    def unreachable(self) -> list[ChainReading]:
        return [chain for chain in self.chains if not chain.reachable]

    @property
    def unpriced(self) -> list[Holding]:
        return [h for h in self.holdings if h.price_usd is None]

    def assets(self) -> list[AssetTotal]:
        """One total per asset across chains, the largest USD value first."""
        groups: dict[str, list[Holding]] = {}
        for holding in self.holdings:
            groups.setdefault(holding.asset, []).append(holding)
        totals = [_asset_total(asset, rows) for asset, rows in groups.items()]
        return sorted(totals, key=lambda t: (-(t.usd or Decimal(0)), t.asset))

    @property
    def total_usd(self) -> Decimal:
        return _micro_usd(sum(h.micro_usd for h in self.holdings if h.micro_usd is not None))

    def to_json(self) -> dict[str, Any]:
        name = self.names.get
        return {
            "address": self.owner,
            "addresses": self.owners,
            "holdings": [h.to_json(name(h.chain_id)) for h in self.holdings],
            "assets": [
                {
                    "symbol": total.symbol,
                    # units, as a holding's amountFormatted: an asset's chains may give it
                    # different decimals (USDC: 6 on EVM chains, 8 on the venue), so it has no
                    # one smallest unit, and `amount` keeps its one meaning (an integer string)
                    "amountFormatted": _text(total.units),
                    "amountUsd": _text(total.usd),
                    "unpriced": total.unpriced,
                    "chainIds": sorted({h.chain_id for h in total.holdings}),
                }
                for total in self.assets()
            ],
            "totalUsd": _text(self.total_usd),
            "unpriced": [
                {
                    "chainId": h.chain_id,
                    "currency": h.currency,
                    "symbol": h.symbol,
                    "reason": h.price_problem,
                }
                for h in self.unpriced
            ],
            "chains": [
                {
                    "chainId": c.chain_id,
                    "chainName": c.name,
                    "url": c.url,
                    "readVia": c.via or None,
                    "state": "ok" if c.reachable else "unreachable",
                    **({"error": c.error} if c.error else {}),
                }
                for c in self.chains
            ],
            "unreachable": [
                {"chainId": c.chain_id, "chainName": c.name, "url": c.url, "error": c.error}
                for c in self.unreachable
            ],
        }


def _asset_total(asset: str, rows: Iterable[Holding]) -> AssetTotal:
    held = tuple(sorted(rows, key=lambda h: (-(h.micro_usd or 0), h.chain_id)))
    values = [h.micro_usd for h in held if h.micro_usd is not None]
    # the chains may give the asset different decimals (USDC: 6, 8 on the venue): add the
    # amounts as integers at the finest of them
    finest = max(h.decimals for h in held)
    smallest = sum(h.amount * 10 ** (finest - h.decimals) for h in held)
    return AssetTotal(
        asset=asset,
        units=to_decimal(smallest, finest),
        usd=_micro_usd(sum(values)) if values else None,
        unpriced=len(held) - len(values),
        holdings=held,
    )


def _text(value: Decimal | None) -> str | None:
    """A decimal as plain text (no exponent), None as None."""
    if value is None:
        return None
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def usd_text(value: Decimal | None) -> str:
    """'$1,234.56' for display (crossdeck's one USD form); 'no price' for no value."""
    return "no price" if value is None else usd_of(value)
