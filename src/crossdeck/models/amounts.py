"""The currency amount object (spec 2.1), used throughout quote responses."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from pydantic import Field

from crossdeck.models.base import IntStr, WireModel


class CurrencyMetadata(WireModel):
    logo_uri: str | None = Field(default=None, alias="logoURI")
    verified: bool | None = None
    is_native: bool | None = None


class Currency(WireModel):
    chain_id: int | None = None
    address: str | None = None
    symbol: str | None = None
    name: str | None = None
    decimals: int | None = None
    metadata: CurrencyMetadata | None = None


def _decimal_or_none(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


class CurrencyAmount(WireModel):
    """An amount of a currency. `amount`/`minimum_amount` are smallest-unit ints; the formatted
    and USD values stay the decimal strings the service sent (never float)."""

    # an object in the contract; older public examples give only the symbol ("eth")
    currency: Currency | str | None = Field(default=None, union_mode="left_to_right")
    amount: IntStr | None = None
    amount_formatted: str | None = None
    amount_usd: str | None = None
    minimum_amount: IntStr | None = None

    @property
    def amount_formatted_decimal(self) -> Decimal | None:
        return _decimal_or_none(self.amount_formatted)

    @property
    def amount_usd_decimal(self) -> Decimal | None:
        return _decimal_or_none(self.amount_usd)

    @property
    def symbol(self) -> str | None:
        if isinstance(self.currency, str):
            return self.currency.upper() or None
        return self.currency.symbol if self.currency else None

    @property
    def decimals(self) -> int | None:
        return self.currency.decimals if isinstance(self.currency, Currency) else None

    @property
    def currency_info(self) -> Currency | None:
        """The currency object, or None when absent or given only as a symbol."""
        return self.currency if isinstance(self.currency, Currency) else None
