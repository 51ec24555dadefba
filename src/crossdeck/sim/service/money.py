"""Exact integer money arithmetic and its display strings.

Amounts are ints in a currency's smallest unit; USD values are ints in micro-dollars
(6 decimals, the service's USDC scale: 1_000_000 = $1). Display strings come from integers
only, so a formatted value always equals its integer exactly (no float ever).
"""

from __future__ import annotations

USD_DECIMALS = 6
MICRO_USD = 10**USD_DECIMALS


def ceil_div(numerator: int, denominator: int) -> int:
    return -((-numerator) // denominator)


def format_units(amount: int, decimals: int) -> str:
    """'1.5', '0.00000001', '12' — the exact decimal value, no exponent, no trailing zeros."""
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), 10**decimals)
    frac_text = str(frac).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}.{frac_text}" if frac_text else f"{sign}{whole}"


def format_amount(amount: int, decimals: int) -> str:
    """``amountFormatted`` as the public service writes it: '10.0', '0.0', '0.0002106'."""
    text = format_units(amount, decimals)
    return text if "." in text else f"{text}.0"


def format_amount_usd(micro_usd: int) -> str:
    """``amountUsd`` as the public service writes it: '0' for zero, else 6 decimals."""
    return "0" if micro_usd == 0 else format_usd(micro_usd)


def format_usd(micro_usd: int) -> str:
    """USD with exactly 6 decimals: '3000.000000', '-0.020000'."""
    sign = "-" if micro_usd < 0 else ""
    whole, frac = divmod(abs(micro_usd), MICRO_USD)
    return f"{sign}{whole}.{frac:06d}"


def usd_value(amount: int, decimals: int, price_micro_usd: int) -> int:
    """Micro-USD value of ``amount`` (rounded toward zero)."""
    value: int = abs(amount) * price_micro_usd // 10**decimals
    return -value if amount < 0 else value


def units_for_usd(micro_usd: int, decimals: int, price_micro_usd: int, *, round_up: bool) -> int:
    """Smallest units of a currency worth ``micro_usd``."""
    numerator: int = micro_usd * 10**decimals
    if round_up:
        return ceil_div(numerator, price_micro_usd)
    return numerator // price_micro_usd


def convert(
    amount: int, *, from_decimals: int, from_price: int, to_decimals: int, to_price: int
) -> int:
    """``amount`` of one currency in units of another at fixed prices, rounded down."""
    converted: int = amount * from_price * 10**to_decimals // (to_price * 10**from_decimals)
    return converted


def bps_of(amount: int, bps: int) -> int:
    """A basis-point share of ``amount``, rounded up (a fee never rounds in the payer's favour)."""
    return ceil_div(amount * bps, 10_000)


def percent_text(part_micro_usd: int, whole_micro_usd: int) -> str:
    """``part / whole`` as a percentage with 2 decimals (toward zero), e.g. '-0.15'."""
    if whole_micro_usd == 0:
        return "0.00"
    hundredths = abs(part_micro_usd) * 10_000 // abs(whole_micro_usd)
    negative = (part_micro_usd < 0) != (whole_micro_usd < 0)
    return format_fixed(-hundredths if negative else hundredths, 2)


def format_fixed(value: int, places: int) -> str:
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), 10**places)
    return f"{sign}{whole}.{frac:0{places}d}"


def ratio_text(numerator: int, denominator: int, digits: int = 18) -> str:
    """A decimal ratio for display (``rate``), truncated to ``digits`` places, no float."""
    if denominator == 0:
        return "0"
    return format_units(numerator * 10**digits // denominator, digits)
