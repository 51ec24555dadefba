"""Text renderings of history records, one line per record so output can stream.

- table: fixed-width columns (a header line, then one line per record);
- CSV: a header plus one row per record with stable columns (`CSV_COLUMNS`); lists of hashes
  are joined with ';'; cells that a spreadsheet would run as a formula are prefixed with "'";
- JSON lines: each record's wire form (exactly what the service sent), one per line.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from typing import Literal

from crossdeck.history.summary import (
    TABLE_COLUMNS,
    HistoryRecord,
    HistoryRow,
    currency_in,
    currency_out,
    destination_chain_id,
    origin_chain_id,
    summarize,
)
from crossdeck.models import CurrencyAmount, RequestRecord

OutputFormat = Literal["table", "csv", "jsonl"]

# -- table -----------------------------------------------------------------------------------

_WIDTHS = (15, 10, 19, 11, 22, 17, 17)
_RIGHT = {4}  # amounts line up on the right


def _table(cells: tuple[str, ...]) -> str:
    parts = [
        cell.rjust(width) if index in _RIGHT else cell.ljust(width)
        for index, (cell, width) in enumerate(zip(cells, _WIDTHS, strict=True))
    ]
    return "  ".join(parts).rstrip()


def table_header() -> str:
    return _table(TABLE_COLUMNS)


def table_line(record: HistoryRecord | HistoryRow) -> str:
    row = record if isinstance(record, HistoryRow) else summarize(record)
    return _table(row.cells())


# -- CSV -------------------------------------------------------------------------------------

CSV_COLUMNS: tuple[str, ...] = (
    "id",
    "status",
    "createdAt",
    "updatedAt",
    "user",
    "recipient",
    "originChainId",
    "destinationChainId",
    "currency",
    "amountIn",
    "amountInFormatted",
    "symbolIn",
    "currencyInAddress",
    "amountOut",
    "amountOutFormatted",
    "symbolOut",
    "currencyOutAddress",
    "inTxHashes",
    "outTxHashes",
    "depositAddress",
    "subsidizedRequest",
    "feesGas",
    "feesFixed",
    "feesPrice",
    "failReason",
)
"""Column order is part of the output contract: scripts read columns by position."""

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    # a cell like "=HYPERLINK(...)" runs as a formula when the file is opened in a spreadsheet
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _amount_cells(amount: CurrencyAmount | None) -> tuple[object, ...]:
    if amount is None:
        return (None, None, None, None)
    address = amount.currency_info.address if amount.currency_info else None
    return (amount.amount, amount.amount_formatted, amount.symbol, address)


def csv_values(record: HistoryRecord) -> tuple[str, ...]:
    """The CSV cells of one record in `CSV_COLUMNS` order. A /requests/v3 record leaves
    currency, subsidizedRequest and the wei fees empty: v3 removed them (its `data.fees` is a
    USD breakdown, not gas/fixed/price)."""
    data = record.data if isinstance(record, RequestRecord) else None
    fees = data.fees if data else None
    wire = record.to_wire()
    wire_data = wire.get("data") if isinstance(wire.get("data"), dict) else {}
    deposit = record.deposit_address.address if record.deposit_address else None
    values: tuple[object, ...] = (
        record.id,
        record.status,
        wire.get("createdAt"),
        wire.get("updatedAt"),
        record.user,
        record.recipient,
        origin_chain_id(record),
        destination_chain_id(record),
        data.currency if data else None,
        *_amount_cells(currency_in(record)),
        *_amount_cells(currency_out(record)),
        ";".join(record.in_tx_hashes),
        ";".join(record.out_tx_hashes),
        deposit,
        data.subsidized_request if data else None,
        fees.gas if fees else None,
        fees.fixed if fees else None,
        fees.price if fees else None,
        wire_data.get("failReason") if isinstance(wire_data, dict) else None,
    )
    return tuple(_cell(value) for value in values)


def _csv_text(values: tuple[str, ...]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(values)
    return buffer.getvalue()


def csv_header() -> str:
    return _csv_text(CSV_COLUMNS)


def csv_line(record: HistoryRecord) -> str:
    return _csv_text(csv_values(record))


# -- JSON lines ------------------------------------------------------------------------------


def json_line(record: HistoryRecord) -> str:
    """The record's wire form as one line of JSON."""
    return json.dumps(record.to_wire(), separators=(",", ":"), ensure_ascii=False)


# -- one interface for all three ---------------------------------------------------------------


def header_for(fmt: OutputFormat) -> str | None:
    """The line that precedes the records, if the format has one."""
    return {"table": table_header(), "csv": csv_header(), "jsonl": None}[fmt]


def line_renderer(fmt: OutputFormat) -> Callable[[HistoryRecord], str]:
    return {"table": table_line, "csv": csv_line, "jsonl": json_line}[fmt]
