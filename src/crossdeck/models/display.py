"""How figures read wherever crossdeck shows them: an amount in its currency's units beside the
integer the wire carries ('10 USDC (10000000)'), USD to the cent, a Unix time in milliseconds
as local ISO 8601. Money stays integers; `Decimal` only rounds a USD string for display.

The describer (`crossdeck.execute.describe`) and the History detail pane's reading of request
records (`crossdeck.history.units`) both write their figures with these.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from crossdeck.models.constants import NATIVE_DECIMALS
from crossdeck.models.units import format_units

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse


@dataclass(frozen=True)
class Unit:
    """A currency's symbol and decimals."""

    symbol: str
    decimals: int


def units_text(value: int, unit: Unit | None, *, raw_name: str = "") -> str:
    """'10 USDC (10000000)'; with no known unit, the integer and what it is not known as."""
    if unit is None:
        return f"{value} (smallest unit, currency unknown)"
    suffix = f" {raw_name}" if raw_name else ""
    return f"{format_units(value, unit.decimals)} {unit.symbol} ({value}{suffix})"


def native_text(wei: int, unit: Unit | None = None) -> str:
    """'0.01 ETH (10000000000000000 wei)'."""
    return units_text(wei, unit or Unit("native", NATIVE_DECIMALS), raw_name="wei")


def gwei_text(wei: int) -> str:
    return f"{format_units(wei, 9)} gwei"


def usd(text: str | None) -> str:
    """'3000.000000' -> '$3,000.00', to the cent; keeps the sign; '-' when absent."""
    if text is None:
        return "-"
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    if not value.is_finite():
        return text
    return usd_of(value)


def usd_of(value: Decimal) -> str:
    """A finite Decimal as '$1,234.57': to the cent, half up, keeping the sign. Exact at any
    size: the cents are an integer (Decimal's quantize works within 28 digits and raises past
    them, and a service's price or a whale's balance can go past them)."""
    numerator, denominator = abs(value).as_integer_ratio()
    cents, rest = divmod(numerator * 100, denominator)
    cents += 2 * rest >= denominator  # half up
    sign = "-" if value < 0 and cents else ""
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


def local_time(millis: int | None) -> str:
    """A Unix time in milliseconds as local ISO 8601 ('2026-11-23T23:28:35.688+00:00')."""
    if millis is None:
        return "-"
    seconds, rest = divmod(int(millis), 1000)
    moment = datetime.fromtimestamp(seconds, UTC).replace(microsecond=rest * 1000)
    return moment.astimezone().isoformat(timespec="milliseconds")


def chain_label(chains: ChainsResponse | None, chain_id: int) -> str:
    """'Base (8453)', or 'chain 8453' when /chains does not name it."""
    chain = chains.by_id(chain_id) if chains else None
    name = (chain.display_name or chain.name) if chain else None
    return f"{name} ({chain_id})" if name else f"chain {chain_id}"
