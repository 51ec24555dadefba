"""One request record boiled down to what a history row shows (CLI table, History screen).

The record (spec 2.3) names no origin/destination chain or amount field of its own; they are
read, in order of preference, from `data.metadata.currencyIn/currencyOut` (currency amount
objects, 2.1, as the public service sends them) and then from the chain ids of `inTxs`/`outTxs`.
A GET /requests/v3 record (`RequestRecordV3`) has them under `data.route` instead.
Amounts stay integers of the smallest unit; the human text comes from `amountFormatted` or from
the integer and the currency's decimals, never from a float.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from crossdeck.models import CurrencyAmount, RequestRecord
from crossdeck.models.display import shown_number
from crossdeck.models.requests_v3 import RequestRecordV3
from crossdeck.models.text import short
from crossdeck.models.units import to_decimal

# a record of GET /requests/v2 or of GET /requests/v3: rows, formats and the detail pane take both
HistoryRecord = RequestRecord | RequestRecordV3


def _metadata_amount(record: RequestRecord, key: str) -> CurrencyAmount | None:
    data = record.data
    if data is None:
        return None
    metadata = data.extra_fields.get("metadata")
    if not isinstance(metadata, dict):
        return None
    raw = metadata.get(key)
    if not isinstance(raw, dict):
        return None
    try:
        return CurrencyAmount.from_wire(raw)
    except ValidationError:  # an odd metadata blob must not break a listing
        return None


def currency_in(record: HistoryRecord) -> CurrencyAmount | None:
    if isinstance(record, RequestRecordV3):
        return record.currency_in
    return _metadata_amount(record, "currencyIn")


def currency_out(record: HistoryRecord) -> CurrencyAmount | None:
    if isinstance(record, RequestRecordV3):
        return record.currency_out
    return _metadata_amount(record, "currencyOut")


def origin_chain_id(record: HistoryRecord) -> int | None:
    currency = amount.currency_info if (amount := currency_in(record)) else None
    if currency is not None and currency.chain_id:
        return currency.chain_id
    txs = (record.data.in_txs if record.data else None) or []
    return next((tx.chain_id for tx in txs if tx.chain_id is not None), None)


def destination_chain_id(record: HistoryRecord) -> int | None:
    currency = amount.currency_info if (amount := currency_out(record)) else None
    if currency is not None and currency.chain_id:
        return currency.chain_id
    txs = (record.data.out_txs if record.data else None) or []
    return next((tx.chain_id for tx in txs if tx.chain_id is not None), None)


def amount_text(amount: CurrencyAmount | None, fallback_label: str | None = None) -> str:
    """'1.5 USDC', '11.9696 HYPE'; the label alone when the amount is unknown; '-' when
    nothing is known."""
    if amount is not None:
        text = None
        if amount.amount is not None and amount.decimals is not None:
            text = shown_number(to_decimal(amount.amount, amount.decimals))
        elif (formatted := amount.amount_formatted_decimal) is not None:
            text = shown_number(formatted)  # as a wallet shows it, as every screen does
        if text is None and amount.amount is not None:
            text = f"{amount.amount} units"
        symbol = amount.symbol or fallback_label
        if text is not None:
            return f"{text} {symbol}" if symbol else text
    if fallback_label:
        return fallback_label.upper()
    return "-"


def created_text(record: HistoryRecord) -> str:
    moment = record.created_at
    if moment is None:
        return "-"
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def route_text(origin: int | None, destination: int | None) -> str:
    first = "?" if origin is None else str(origin)
    last = "?" if destination is None else str(destination)
    return f"{first}->{last}"


@dataclass(frozen=True)
class HistoryRow:
    """Display values of one request, and the request itself (`record`) for a detail view.

    A compact row (`summarize(record, compact=True)`, what `PagedLoader` keeps) holds the record
    as its wire JSON text and parses it again when `record` is read: a parsed record takes about
    10 KB, its text under 2 KB, and a view of thousands of rows only opens one at a time.
    """

    id: str
    short_id: str
    status: str
    created: datetime | None
    created_text: str
    origin_chain_id: int | None
    destination_chain_id: int | None
    route: str
    amount: str
    in_hashes: tuple[str, ...]
    out_hashes: tuple[str, ...]
    updated: datetime | None
    source: HistoryRecord | str = field(repr=False, compare=False)
    # which listing the record came from, to parse a compact row's text with the right model
    model: type[HistoryRecord] = field(default=RequestRecord, repr=False, compare=False)

    @property
    def record(self) -> HistoryRecord:
        """The request as the service sent it (parsed again from text for a compact row)."""
        if isinstance(self.source, RequestRecord | RequestRecordV3):
            return self.source
        return self.model.from_json(self.source)

    @property
    def in_text(self) -> str:
        return _hashes_text(self.in_hashes)

    @property
    def out_text(self) -> str:
        return _hashes_text(self.out_hashes)

    def cells(self) -> tuple[str, ...]:
        """The table cells in `TABLE_COLUMNS` order."""
        return (
            self.short_id,
            self.status,
            self.created_text,
            self.route,
            self.amount,
            self.in_text,
            self.out_text,
        )


TABLE_COLUMNS = ("ID", "STATUS", "CREATED (UTC)", "CHAINS", "AMOUNT", "IN TX", "OUT TX")


def _hashes_text(hashes: tuple[str, ...]) -> str:
    if not hashes:
        return "-"
    more = f" +{len(hashes) - 1}" if len(hashes) > 1 else ""
    return short(hashes[0], 8, 6) + more


def summarize(record: HistoryRecord, *, compact: bool = False) -> HistoryRow:
    """The row of `record`; `compact` keeps the record as wire JSON text (see `HistoryRow`)."""
    origin = origin_chain_id(record)
    destination = destination_chain_id(record)
    # v2's `data.currency` symbol; v3 dropped it (each amount carries its currency object)
    label = record.data.currency if isinstance(record, RequestRecord) and record.data else None
    return HistoryRow(
        id=record.id or "",
        short_id=short(record.id, 8, 6),
        status=record.status or "-",
        created=record.created_at,
        created_text=created_text(record),
        origin_chain_id=origin,
        destination_chain_id=destination,
        route=route_text(origin, destination),
        amount=amount_text(currency_in(record), label),
        in_hashes=tuple(record.in_tx_hashes),
        out_hashes=tuple(record.out_tx_hashes),
        updated=record.updated_at,
        source=_wire_text(record) if compact else record,
        model=type(record),
    )


def _wire_text(record: HistoryRecord) -> str:
    return json.dumps(record.to_wire(), separators=(",", ":"), ensure_ascii=False)


def wire_value(record: HistoryRecord, *path: str) -> Any:
    """A value of the record's wire form by key path, or None (for fields the models leave in
    `extra`, such as `data.failReason` or `referrer`)."""
    node: Any = record.to_wire()
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node
