"""What came back of one request, in words: the amount sent and the amount received in units and
USD, and each fee by what it is ("swap fee 1.99938 USDC.e, -$2.00") rather than by its wire field
(`fees.quoted.swap.usd`). One reading of a request record (v2 `data.metadata` + `data.fees` /
`data.feesUsd`, v3 `data.route` + `data.fees.quoted` in `data.fees.currency`) for every place
that shows an outcome: History's detail pane, the run's end (app and command line), Live status.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crossdeck.history.explorer import ExplorerLinks
from crossdeck.history.summary import HistoryRecord, amount_text, currency_in, currency_out
from crossdeck.history.units import RecordUnits
from crossdeck.models import ChainInfo, CurrencyAmount
from crossdeck.models.display import Unit, usd
from crossdeck.models.display import amount_text as unit_amount_text
from crossdeck.models.units import quantity

# v3 `data.fees.quoted` components (the public record's names) and v2 `data.fees` leaves, in
# words; a component not named here is shown under its own name followed by "fee"
FEE_WORDS = {
    "swap": "swap fee",
    "execution": "relayer fee (gas and service)",
    "platform": "platform fee",
    "app": "app fee",
    "sponsored": "sponsored (paid for you)",
    "gas": "relayer gas fee",
    "fixed": "relayer fee",
    "price": "swap fee (price impact)",
    "gateway": "gateway fee",
}


@dataclass(frozen=True)
class CameBack:
    """One request's outcome in words: `sent`/`received` ('10 USDC, $9.99'; None when the
    record does not say), `fees` as (words, amount) pairs, `links` as (leg on chain, explorer
    URL or the bare hash where /chains names no explorer) per transaction."""

    sent: str | None
    received: str | None
    fees: tuple[tuple[str, str], ...]
    links: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """For `--json` event lines: the words, fees and links as lists of pairs."""
        return {
            "sent": self.sent,
            "received": self.received,
            "fees": [list(fee) for fee in self.fees],
            "links": [list(link) for link in self.links],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CameBack:
        return cls(
            sent=data.get("sent"),
            received=data.get("received"),
            fees=tuple((str(w), str(a)) for w, a in data.get("fees") or ()),
            links=tuple((str(w), str(u)) for w, u in data.get("links") or ()),
        )

    def lines(self, refunded: bool = False) -> list[str]:
        """The outcome a line each: sent, received, fees in words, each transaction's link."""
        out = [f"sent {self.sent}"] if self.sent else []
        if self.received:
            out.append(f"{'was to receive' if refunded else 'received'} {self.received}")
        if self.fees:
            out.append("fees: " + "; ".join(f"{w} {a}" for w, a in self.fees))
        elif self.sent or self.received:
            out.append("fees: none")
        out += [f"{label}: {where}" for label, where in self.links]
        return out

    def line(self, refunded: bool = False) -> str:
        """'sent 10 USDC, $10.00 · received 9.99 USDC, $9.99 · fees: swap fee ...'."""
        parts = []
        if self.sent:
            parts.append(f"sent {self.sent}")
        if self.received:
            parts.append(f"{'was to receive' if refunded else 'received'} {self.received}")
        if self.fees:
            parts.append("fees: " + "; ".join(f"{w} {a}" for w, a in self.fees))
        return " · ".join(parts)


def moved_text(amount: CurrencyAmount | None) -> str | None:
    """'9.99 USDC, $9.99' (the USD value when the record has one); None when unknown."""
    if amount is None or (amount.amount is None and amount.amount_formatted is None):
        return None
    text = amount_text(amount)
    if amount.amount_usd is not None:
        text += f", {usd(amount.amount_usd)}"
    return text


def _fee_amount(value: Any, unit: Unit | None, usd_value: Any) -> str | None:
    amount = quantity(value)
    parts = []
    if amount is not None:
        parts.append(unit_amount_text(amount, unit) if unit else f"{amount} (smallest unit)")
    if isinstance(usd_value, str | int) and not isinstance(usd_value, bool):
        parts.append(usd(str(usd_value)))
    return ", ".join(parts) or None


def fee_lines(wire: dict[str, Any], units: RecordUnits) -> list[tuple[str, str]]:
    """Each fee of the record in words with its amount in units and USD (zero fees left out)."""
    data = wire.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("fees"), dict):
        return []
    fees: dict[str, Any] = data["fees"]
    out: list[tuple[str, str]] = []
    quoted = fees.get("quoted")
    if isinstance(quoted, dict):  # v3: components in data.fees.currency
        unit = units.units.get("data.fees.quoted.swap.amount") or _any_unit(units, "data.fees.")
        for name, part in quoted.items():
            if not isinstance(part, dict) or _is_zero(part.get("amount"), part.get("usd")):
                continue
            text = _fee_amount(part.get("amount"), unit, part.get("usd"))
            if text:
                out.append((FEE_WORDS.get(name, f"{name} fee"), text))
        return out
    fees_usd = data.get("feesUsd") if isinstance(data.get("feesUsd"), dict) else {}
    assert isinstance(fees_usd, dict)
    for name, value in fees.items():  # v2: integers of the request's currency
        if _is_zero(value, fees_usd.get(name)):
            continue
        text = _fee_amount(value, units.fee_unit, fees_usd.get(name))
        if text:
            out.append((FEE_WORDS.get(name, f"{name} fee"), text))
    return out


def _any_unit(units: RecordUnits, prefix: str) -> Unit | None:
    return next((u for path, u in units.units.items() if path.startswith(prefix)), None)


def _is_zero(amount: Any, usd_value: Any) -> bool:
    number = quantity(amount)
    if number is None and amount is not None:
        return False
    try:
        dollars = float(usd_value) if usd_value is not None else 0.0
    except (TypeError, ValueError):
        return False
    return (number or 0) == 0 and dollars == 0.0


def came_back(record: HistoryRecord, links: ExplorerLinks | None = None) -> CameBack:
    """The outcome of `record` in words (`links`: /chains' explorers and chain entries, for the
    transactions' links and v2 fee decimals the record's own amounts do not name)."""
    chain: Callable[[int], ChainInfo | None] = links.chain if links else lambda _: None
    units = RecordUnits(record, chain)
    refunded = str(record.status) in ("refund", "fallback")
    tx_links: list[tuple[str, str]] = []
    for tx in links.record_links(record) if links else ():
        leg = "paid" if tx.direction == "in" else ("refund" if refunded else "filled")
        tx_links.append(
            (f"{leg} on {links.chain_name(tx.chain_id)}" if links else leg, tx.url or tx.hash)
        )
    return CameBack(
        sent=moved_text(currency_in(record)),
        received=moved_text(currency_out(record)),
        fees=tuple(fee_lines(record.to_wire(), units)),
        links=tuple(tx_links),
    )
