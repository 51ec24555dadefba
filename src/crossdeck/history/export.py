"""Export the requests of a filter to a file, streamed page by page (never all in memory).

The file is written under a temporary name beside the target and renamed when the last page is
in, so a cancelled or failed export never leaves a file that looks complete.

Formats: `csv` (header + `CSV_COLUMNS` rows), `jsonl` (one wire-form record per line), `json`
(the same records as one JSON array, still written record by record).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import InputError
from crossdeck.history.formats import csv_header, csv_line, json_line
from crossdeck.history.pager import WalkStats, stream_records
from crossdeck.history.summary import HistoryRecord
from crossdeck.models import RequestsQuery

ExportFormat = Literal["csv", "jsonl", "json"]
_BY_SUFFIX: dict[str, ExportFormat] = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}


@dataclass(frozen=True)
class ExportResult:
    path: Path
    format: ExportFormat
    rows: int
    pages: int
    duplicates: int  # records the service listed twice (written once)


def format_for(path: Path) -> ExportFormat:
    """The export format a file name asks for (.csv, .jsonl/.ndjson, .json)."""
    fmt = _BY_SUFFIX.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"cannot tell the export format from {path.name!r}",
            hint="end the file name with .csv, .jsonl or .json",
        )
    return fmt


class _Writer:
    def __init__(self, out: TextIO, fmt: ExportFormat) -> None:
        self._out = out
        self._fmt = fmt
        self._count = 0

    def start(self) -> None:
        if self._fmt == "csv":
            self._out.write(csv_header() + "\n")
        elif self._fmt == "json":
            self._out.write("[")

    def record(self, record: HistoryRecord) -> None:
        if self._fmt == "csv":
            self._out.write(csv_line(record) + "\n")
        elif self._fmt == "jsonl":
            self._out.write(json_line(record) + "\n")
        else:
            self._out.write(("\n" if self._count == 0 else ",\n") + json_line(record))
        self._count += 1

    def finish(self) -> None:
        if self._fmt == "json":
            self._out.write("\n]\n" if self._count else "]\n")


def _prepare(
    path: str | Path, fmt: ExportFormat | None, overwrite: bool
) -> tuple[Path, Path, ExportFormat, TextIO]:
    target = Path(path).expanduser()
    fmt = fmt or format_for(target)
    if target.exists() and not overwrite:
        raise InputError(f"{target} already exists", hint="choose another name or allow overwrite")
    if not target.parent.is_dir():
        raise InputError(f"folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    return target, partial, fmt, partial.open("w", encoding="utf-8", newline="")


def _discard(partial: Path) -> None:
    with contextlib.suppress(OSError):
        partial.unlink()


async def export_history(
    client: ServiceClient,
    query: RequestsQuery,
    path: str | Path,
    fmt: ExportFormat | None = None,
    *,
    overwrite: bool = False,
    max_pages: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    keep: Callable[[HistoryRecord], bool] | None = None,
) -> ExportResult:
    """Write every request of `query` (from its first page) to `path`; `fmt` defaults to the
    file's suffix. `on_progress(rows_written)` is called as pages come in and at the end.
    `keep`: which records are written (the rows a screen's filter shows: the History screen's
    'failed' filter keeps the failures of a listing of every status); default all."""
    target, partial, fmt, out = _prepare(path, fmt, overwrite)
    stats = WalkStats()
    written = 0
    first_page = query.model_copy(update={"continuation": None})
    try:
        writer = _Writer(out, fmt)
        writer.start()
        pages_seen = 0
        async for record in stream_records(client, first_page, max_pages=max_pages, stats=stats):
            if on_progress is not None and stats.pages != pages_seen:
                pages_seen = stats.pages
                on_progress(stats.records - 1)
            if keep is None or keep(record):
                writer.record(record)
                written += 1
        writer.finish()
        out.close()
        os.replace(partial, target)
    except BaseException:
        out.close()
        _discard(partial)
        raise
    if on_progress is not None:
        on_progress(written)
    return ExportResult(target, fmt, written, stats.pages, stats.duplicates)
