"""Exact conversion between smallest-unit integers and human decimal strings.

Money is an `int` of the smallest unit everywhere; these two functions are the only bridge to
the decimal text a person types or reads. No float is involved at any point.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from crossdeck.base.errors import InputError

_DECIMAL_TEXT = re.compile(r"^(?P<whole>[0-9]*)(?:\.(?P<frac>[0-9]*))?$")


class UnitsError(InputError, ValueError):
    """A human amount cannot be expressed exactly in the currency's smallest unit."""


def _check_decimals(decimals: int) -> None:
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be a non-negative integer, got {decimals!r}")


def format_units(value: int, decimals: int) -> str:
    """1500000, 6 -> '1.5'. Exact; no trailing zeros; no exponent."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"value must be an int of the smallest unit, got {type(value).__name__}")
    _check_decimals(decimals)
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), 10**decimals)
    if frac == 0:
        return f"{sign}{whole}"
    digits = str(frac).rjust(decimals, "0").rstrip("0")
    return f"{sign}{whole}.{digits}"


def to_decimal(value: int, decimals: int) -> Decimal:
    """The smallest-unit integer as an exact Decimal in human units (for display only)."""
    return Decimal(format_units(value, decimals))


def parse_units(text: str | Decimal, decimals: int) -> int:
    """'1.5', 6 -> 1500000. Rejects signs, exponents and more fractional digits than `decimals`."""
    _check_decimals(decimals)
    if isinstance(text, Decimal):
        if not text.is_finite():
            raise UnitsError(f"amount {text} is not a finite number")
        text = format(text, "f")
    if not isinstance(text, str):
        raise TypeError(f"amount must be a decimal string, got {type(text).__name__}")
    cleaned = text.strip()
    match = _DECIMAL_TEXT.fullmatch(cleaned)
    if match is None or cleaned in {"", "."}:
        raise UnitsError(
            f"amount {text!r} is not a plain decimal number",
            hint="use digits with an optional '.', e.g. 1.25",
        )
    whole = match.group("whole") or "0"
    frac = (match.group("frac") or "").rstrip("0")
    if len(frac) > decimals:
        raise UnitsError(
            f"amount {text!r} has {len(frac)} decimal places but the currency has {decimals}",
            hint=f"use at most {decimals} digits after the '.'",
        )
    units: int = int(whole) * 10**decimals + int(frac.ljust(decimals, "0") or "0")
    return units


# the service's dollar fields (topupGasAmount, maxSubsidizationAmount) count millionths of a
# dollar: 1000000 = $1
USD_DECIMALS = 6


def parse_usd(text: str) -> int:
    """Dollars as a person types them ('2', '$0.01') -> the service's 6-decimal USD integer."""
    cleaned = text.strip().removeprefix("$").strip()
    try:
        return parse_units(cleaned, USD_DECIMALS)
    except UnitsError as exc:
        raise UnitsError(
            f"{text!r} is not a dollar amount", hint="dollars as a decimal, e.g. 2 or 0.01"
        ) from exc


def usd_text(units: int) -> str:
    """The service's 6-decimal USD integer as dollars: 2000000 -> '$2', 10000 -> '$0.01'."""
    return "$" + format_units(units, USD_DECIMALS)


def quantity(value: Any) -> int | None:
    """An integer as a quote or a node writes one: a JSON int, decimal text or 0x hex text
    (surrounding space allowed); None for anything else, a bool included (JSON true is no
    amount, though Python calls it 1)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 16) if text[:2].lower() == "0x" else int(text)
        except ValueError:
            return None
    return None


def tx_int(name: str, value: Any) -> int:
    """A transaction field's integer (see `quantity`), or an input error naming the field."""
    number = quantity(value)
    if number is None:
        raise InputError(f"transaction field {name} must be an integer, got {value!r}")
    return number
