"""How figures read wherever crossdeck shows them: an amount in its currency's units as a wallet
shows it (six significant digits, thousands separated, the unit beside it: '11.9696 HYPE',
'365,148 USDC'), beside the exact integer the wire carries where exactness matters
('11.9696 HYPE (11969599999999999920)'), USD to the cent, a rate with the same digits, a Unix
time in milliseconds as local ISO 8601. Money stays integers; `Decimal` only rounds for display.
`shown_number` is the one rounding every screen and command uses; the exact value stays one key
(the app's `x`/detail line) or `--json` away.

The describer (`crossdeck.execute.describe`) and the History detail pane's reading of request
records (`crossdeck.history.units`) both write their figures with these.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import TYPE_CHECKING

from crossdeck.models.constants import NATIVE_DECIMALS
from crossdeck.models.units import format_units, to_decimal

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse


@dataclass(frozen=True)
class Unit:
    """A currency's symbol and decimals."""

    symbol: str
    decimals: int


SHOWN_DIGITS = 6
"""Significant digits an amount is shown with, as wallets show balances (the whole part is
never rounded away: 1,234,567.8 shows as 1,234,568)."""


def shown_number(value: Decimal, digits: int = SHOWN_DIGITS) -> str:
    """`value` rounded (half up) to `digits` significant digits, never into its whole part,
    thousands separated, no trailing zeros, no exponent: 11.96959999999999992 -> '11.9696',
    365148.123 -> '365,148', 0.000123456789 -> '0.000123457', 0 -> '0'. Exact at any size (the
    rounding context is as wide as the number)."""
    if not value.is_finite():
        return str(value)
    if value == 0:
        return "0"
    whole_digits = value.adjusted() + 1  # digits before the point (<= 0 below 1)
    places = max(digits - whole_digits, 0)
    context = Context(prec=max(whole_digits, 0) + places + 2, rounding=ROUND_HALF_UP)
    rounded = value.quantize(Decimal(1).scaleb(-places), context=context)
    sign = "-" if rounded < 0 else ""
    whole, _, fraction = format(rounded.copy_abs(), "f").partition(".")
    fraction = fraction.rstrip("0")
    text = f"{int(whole):,}" + (f".{fraction}" if fraction else "")
    return sign + text if text != "0" else "0"


def amount_text(value: int, unit: Unit) -> str:
    """A smallest-unit integer as a wallet shows it, unit beside: '11.9696 HYPE'."""
    return f"{shown_number(to_decimal(value, unit.decimals))} {unit.symbol}"


def decimal_amount_text(value: Decimal, symbol: str) -> str:
    """An amount already in units (a total, a service's formatted figure): '1,234.5 USDC'."""
    return f"{shown_number(value)} {symbol}"


def rate_text(rate: str | Decimal | None, base: str | None, quote: str | None) -> str:
    """'1 ETH = 119.696 HYPE': the rate with the digits an amount has."""
    try:
        value = Decimal(rate) if rate is not None else None
    except InvalidOperation:
        value = None
    shown = shown_number(value) if value is not None and value.is_finite() else (rate or "?")
    return f"1 {base or '?'} = {shown} {quote or '?'}"


def units_text(value: int, unit: Unit | None, *, raw_name: str = "") -> str:
    """'10 USDC (10000000)': as a wallet shows it, and the exact integer; with no known unit,
    the integer and what it is not known as."""
    if unit is None:
        return f"{value} (smallest unit, currency unknown)"
    suffix = f" {raw_name}" if raw_name else ""
    return f"{amount_text(value, unit)} ({value}{suffix})"


def exact_units_text(value: int, unit: Unit) -> str:
    """Every digit, for where the exact value is asked for: '11.96959999999999992 HYPE'."""
    return f"{format_units(value, unit.decimals)} {unit.symbol}"


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
