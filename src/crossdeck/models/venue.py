"""Answers of the venue's `/info` endpoint (facts.md, "Venue").

The venue reports balances as decimal strings in human units ("12.5"); they are `Decimal` here
(never float) and serialize back to the same text. Like every wire model these keep unknown
fields, so a newer venue answer loses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator, Field, PlainSerializer, field_validator

from crossdeck.models.base import WireModel, new_list
from crossdeck.models.display import Unit

# The venue's USDC, defined here once for the client's every layer (the venue client, its fee
# words, the portfolio's Max, the app and the CLI): weiDecimals 8, perps and spot alike.
USDC_DECIMALS = 8
USDC_UNIT = Unit("USDC", USDC_DECIMALS)


def to_units(value: Decimal, decimals: int) -> int:
    """A venue value in human units (its decimal text) in the smallest unit, rounded down,
    exactly: in integers, as Decimal arithmetic would round a value of more than 28 digits
    before rounding down."""
    numerator, denominator = value.as_integer_ratio()
    return int(numerator * 10**decimals // denominator)


_HEX_64 = re.compile(r"^0x[0-9a-f]{64}$")
T = TypeVar("T")


def _decimal_from_wire(value: object) -> Decimal:
    # A float has already lost the venue's exact text; the venue sends strings.
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(f"expected a decimal string, got {value!r}")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int | str):
        try:
            result = Decimal(str(value).strip())
        except InvalidOperation:
            raise ValueError(f"expected a decimal string, got {value!r}") from None
    else:
        raise ValueError(f"expected a decimal string, got {value!r}")
    if not result.is_finite():
        raise ValueError(f"expected a finite decimal, got {value!r}")
    return result


def same_name(items: Iterable[T], name: str, name_of: Callable[[T], str]) -> list[T]:
    """The items named `name` without regard to case, those spelled exactly so first."""
    wanted = name.casefold()
    found = [item for item in items if name_of(item).casefold() == wanted]
    return sorted(found, key=lambda item: name_of(item) != name)


VenueDecimal = Annotated[
    Decimal,
    BeforeValidator(_decimal_from_wire),
    PlainSerializer(lambda d: format(d, "f"), return_type=str, when_used="always"),
]
"""A decimal string in human units on the wire ("1.50"); an exact `Decimal` in Python."""


class SpotToken(WireModel):
    """One entry of spotMeta `tokens`."""

    name: str
    sz_decimals: int | None = None
    wei_decimals: int | None = None
    index: int
    token_id: str
    is_canonical: bool | None = None
    evm_contract: Any = None
    full_name: str | None = None

    @field_validator("token_id")
    @classmethod
    def _lower_hex(cls, value: str) -> str:
        return value.lower()


class SpotPair(WireModel):
    """One entry of spotMeta `universe`: a spot market of two token indices."""

    tokens: list[int]
    name: str
    index: int
    is_canonical: bool | None = None


class SpotMeta(WireModel):
    """Answer to `{"type": "spotMeta"}`."""

    tokens: list[SpotToken]
    universe: list[SpotPair] = Field(default_factory=new_list)

    def token_by_id(self, token_id: str) -> SpotToken | None:
        wanted = token_id.lower()
        return next((t for t in self.tokens if t.token_id == wanted), None)

    def token_by_name(self, name: str) -> SpotToken | None:
        """By name without regard to case (the venue writes 'USDE' where others write 'USDe');
        the exact spelling wins, then a canonical token over look-alikes of the same name."""
        matches = same_name(self.tokens, name, lambda t: t.name)
        return min(matches, key=lambda t: (t.name != name, not t.is_canonical), default=None)

    def token_by_index(self, index: int) -> SpotToken | None:
        return next((t for t in self.tokens if t.index == index), None)


class MarginSummary(WireModel):
    account_value: VenueDecimal | None = None
    total_margin_used: VenueDecimal | None = None
    total_ntl_pos: VenueDecimal | None = None
    total_raw_usd: VenueDecimal | None = None


class ClearinghouseState(WireModel):
    """Answer to `{"type": "clearinghouseState", "user": ...}`: the perps account."""

    margin_summary: MarginSummary | None = None
    cross_margin_summary: MarginSummary | None = None
    asset_positions: list[dict[str, Any]] = Field(default_factory=new_list)
    withdrawable: VenueDecimal
    time: int | None = None


class SpotBalance(WireModel):
    coin: str
    token: int
    total: VenueDecimal
    hold: VenueDecimal = Decimal(0)
    entry_ntl: VenueDecimal | None = None

    @property
    def available(self) -> Decimal:
        """What is not held by open orders."""
        return self.total - self.hold


class SpotClearinghouseState(WireModel):
    """Answer to `{"type": "spotClearinghouseState", "user": ...}`."""

    balances: list[SpotBalance] = Field(default_factory=new_list)

    def balance_of(self, coin: str) -> SpotBalance | None:
        """By coin name without regard to case, the exact spelling first (see token_by_name)."""
        matches = same_name(self.balances, coin, lambda b: b.coin)
        return matches[0] if matches else None


class VenueSignature(WireModel):
    """The `signature` member of an `/exchange` body: r and s as 0x + 64 hex, v 27 or 28."""

    r: str
    s: str
    v: int

    @field_validator("r", "s")
    @classmethod
    def _hex_32_bytes(cls, value: str) -> str:
        value = value.lower()
        if not _HEX_64.fullmatch(value):
            raise ValueError("must be 0x followed by 64 hex digits")
        return value

    @field_validator("v")
    @classmethod
    def _v_27_28(cls, value: int) -> int:
        if isinstance(value, bool) or value not in (27, 28):
            raise ValueError("must be 27 or 28")
        return value
