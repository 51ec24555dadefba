"""A v3 error's `errorData` in words (spec quote-v3.md 5.4): `chainId`, `currency`,
`required`, `available`, `spender` (more may come), the amounts in the currency's units as
/chains lists it (symbol and decimals), the exact integer beside; a currency /chains does not
list keeps its amounts as integers and says so. Anything else in `errorData` is kept as given."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdeck.models.display import Unit, units_text

if TYPE_CHECKING:
    from crossdeck.models.chains import ChainsResponse

_AMOUNTS = ("required", "available")
_KNOWN = ("chainId", "currency", *_AMOUNTS, "spender")


def amounts_of(data: object) -> bool:
    """Whether `data` is the v3 object with amounts to put in units."""
    return isinstance(data, dict) and any(key in data for key in _AMOUNTS)


def _integer(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit() and len(value) <= 80:
        return int(value)
    return None


def error_data_words(data: dict[str, Any], chains: ChainsResponse | None) -> str:
    """'required 12 USDC (12000000), available 3.5 USDC (3500000) of USDC on Base (8453),
    spender 0x…': `data` in words."""
    chain_id = _integer(data.get("chainId"))
    currency = data.get("currency")
    chain = chains.by_id(chain_id) if chains is not None and chain_id is not None else None
    listed = chain.find_currency(currency) if chain and isinstance(currency, str) else None
    unit = None
    if listed is not None and listed.symbol and listed.decimals is not None:
        unit = Unit(listed.symbol, listed.decimals)
    parts = []
    for key in _AMOUNTS:
        value = _integer(data.get(key))
        if value is not None:
            parts.append(f"{key} {units_text(value, unit)}")
        elif key in data:
            parts.append(f"{key} {data[key]!r}")
    where = []
    if currency is not None:
        where.append(f"of {unit.symbol if unit else currency}")
    if chain_id is not None:
        name = chain.display_name or chain.name if chain is not None else None
        where.append(f"on {name} ({chain_id})" if name else f"on chain {chain_id}")
    text = ", ".join(parts)
    if where:
        text = f"{text} {' '.join(where)}".strip()
    if data.get("spender"):
        text += f", spender {data['spender']}"
    rest = {k: v for k, v in data.items() if k not in _KNOWN}
    if rest:
        text += ", " + ", ".join(f"{k} {v!r}" for k, v in rest.items())
    return text
