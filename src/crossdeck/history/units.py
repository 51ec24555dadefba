"""A request record's leaves in units, by the dotted path the History detail pane names them
with ('data.fees.gas', 'data.fees.quoted.swap.amount'): amounts beside their integers, USD to
the cent (the figures as `models.display` writes them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crossdeck.history.summary import (
    HistoryRecord,
    currency_in,
    currency_out,
    origin_chain_id,
)
from crossdeck.models import ChainInfo, RequestRecord
from crossdeck.models.display import Unit, units_text, usd
from crossdeck.models.units import quantity

# the fees of a GET /requests/v2 record: integers of the request's currency (`data.currency`,
# a symbol: 'usdc' fees of 3807 are $0.0038 in the recorded public answers)
_RECORD_FEES = ("gas", "fixed", "price", "gateway")
_AMOUNT_KEYS = ("amount", "minimumAmount")


class RecordUnits:
    """How the leaves of a request record read in units, by their dotted path as the History
    detail pane names them ('data.fees.gas', 'data.inTxs[0].fee'):

    - an amount beside its currency object ({"currency": {symbol, decimals}, "amount": ...}),
      and the v3 `data.fees` components in `data.fees.currency`, in that currency's units;
    - the v2 `data.fees` in the request's currency (`data.currency`, a symbol whose decimals
      come from the record's own amounts or from /chains through `chain`);
    - every USD value to the cent, beside the value sent."""

    def __init__(self, record: HistoryRecord, chain: Callable[[int], ChainInfo | None]) -> None:
        self.units: dict[str, Unit] = {}
        wire = record.to_wire()
        self._walk("", wire, None)
        self.fee_unit = _v2_fee_unit(record, chain)

    def _walk(self, path: str, node: Any, inherited: Unit | None) -> None:
        if isinstance(node, dict):
            unit = _unit_of(node.get("currency")) or inherited
            for key, inner in node.items():
                inner_path = f"{path}.{key}" if path else key
                if key in _AMOUNT_KEYS and unit is not None:
                    self.units[inner_path] = unit
                # the v3 fee components carry no currency: theirs is data.fees.currency
                passed = unit if path == "data.fees" or inherited is not None else None
                self._walk(inner_path, inner, passed)
        elif isinstance(node, list):
            for at, inner in enumerate(node):
                self._walk(f"{path}[{at}]", inner, inherited)

    def text(self, path: str, value: Any) -> str | None:
        """`value` at `path` in units, or None to show it as sent."""
        key = path.rsplit(".", 1)[-1]
        if path.startswith("data.feesUsd.") or key == "usd" or key.endswith("Usd"):
            return f"{usd(str(value))} ({value})" if isinstance(value, str | int) else None
        amount = quantity(value)
        if amount is None:
            return None
        unit = self.units.get(path)
        if unit is not None:
            return units_text(amount, unit)
        if path.startswith("data.fees.") and key in _RECORD_FEES and "." not in path[10:]:
            if self.fee_unit is None:
                return f"{amount} (smallest unit of the request's currency, decimals unknown)"
            return units_text(amount, self.fee_unit)
        return None


def _unit_of(currency: Any) -> Unit | None:
    if not isinstance(currency, dict):
        return None
    decimals, symbol = currency.get("decimals"), currency.get("symbol")
    if isinstance(decimals, int) and not isinstance(decimals, bool) and isinstance(symbol, str):
        return Unit(symbol, decimals)
    return None


def _v2_fee_unit(record: HistoryRecord, chain: Callable[[int], ChainInfo | None]) -> Unit | None:
    symbol = record.data.currency if isinstance(record, RequestRecord) and record.data else None
    if not symbol:
        return None
    for amount in (currency_in(record), currency_out(record)):
        if amount and (amount.symbol or "").lower() == symbol.lower() and amount.decimals:
            return Unit(amount.symbol or symbol.upper(), amount.decimals)
    origin = origin_chain_id(record)
    info = chain(origin) if origin is not None else None
    for currency in info.currencies if info else ():
        if (currency.symbol or "").lower() == symbol.lower() and currency.decimals is not None:
            return Unit(currency.symbol or symbol.upper(), currency.decimals)
    return None
