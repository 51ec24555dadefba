"""The History screen's detail pane: every field of one request record (spec 2.3), from the
row's stored wire record, with explorer links of its transactions and addresses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

if TYPE_CHECKING:
    from crossdeck.history import ExplorerLinks, HistoryRow

# shown first, in this order; every other field follows as the record has it
LEADING = ("id", "status", "user", "recipient", "depositAddress", "createdAt", "updatedAt")
ADDRESS_FIELDS = ("user", "recipient", "depositAddress", "refundTo")


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _flatten(prefix: str, value: Any, out: list[tuple[str, Any]]) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, inner, out)
    elif isinstance(value, list) and value and any(isinstance(v, dict) for v in value):
        for at, inner in enumerate(value):
            _flatten(f"{prefix}[{at}]", inner, out)
    else:
        out.append((prefix, value))


def record_fields(wire: dict[str, Any]) -> list[tuple[str, Any]]:
    """(dotted path, value) of every leaf of the wire record, the leading fields first."""
    out: list[tuple[str, Any]] = []
    for key in LEADING:
        if key in wire:
            _flatten(key, wire[key], out)
    for key, value in wire.items():
        if key not in LEADING:
            _flatten(key, value, out)
    return out


def _link(url: str | None, text: str) -> Text:
    if not url:
        return Text(text)
    return Text(url, style=f"link {url}")


class HistoryDetail(VerticalScroll, can_focus=True):
    """Shows one `HistoryRow`'s record; `show(None)` for nothing selected."""

    DEFAULT_CSS = """
    HistoryDetail { height: 40%; border: round $primary; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._row: HistoryRow | None = None
        self._links: ExplorerLinks | None = None
        self._plain = ""
        self.border_title = "Request"

    def compose(self) -> Any:
        yield Static("Highlight a request to see every field of it", id="history-detail-body")

    def set_links(self, links: ExplorerLinks) -> None:
        self._links = links
        self._render_row()

    def show(self, row: HistoryRow | None) -> None:
        self._row = row
        self._render_row()

    @property
    def text(self) -> str:
        """The pane's content as plain text (for tests and screen readers)."""
        return self._plain

    def _render_row(self) -> None:
        body = self.query_one("#history-detail-body", Static)
        row = self._row
        if row is None:
            body.update("Highlight a request to see every field of it")
            self._plain = ""
            return
        record = row.record
        wire = record.to_wire()
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", max_width=34, overflow="fold")
        table.add_column(overflow="fold")
        plain: list[str] = []
        for path, value in record_fields(wire):
            table.add_row(path, Text(_scalar(value)))
            plain.append(f"{path} {_scalar(value)}")
        parts: list[Any] = [table]
        links = self._links
        if links is not None:
            link_table = Table.grid(padding=(0, 2))
            link_table.add_column(style="bold", max_width=34, overflow="fold")
            link_table.add_column(overflow="fold")
            for tx in links.record_links(record):
                where = links.chain_name(tx.chain_id)
                label = f"{tx.direction} tx on {where}"
                link_table.add_row(label, _link(tx.url, f"{tx.hash} (no explorer known)"))
                plain.append(f"{label} {tx.url or tx.hash}")
            chains = (row.origin_chain_id, row.destination_chain_id)
            for name in ADDRESS_FIELDS:
                address = wire.get(name)
                if isinstance(address, dict):
                    address = address.get("address")
                if not isinstance(address, str) or not address:
                    continue
                chain = chains[1] if name == "recipient" else chains[0]
                url = links.address_url(chain, address)
                if url:
                    link_table.add_row(f"{name} on {links.chain_name(chain)}", _link(url, address))
                    plain.append(f"{name} {url}")
            parts += [Text("\nExplorer links", style="bold underline"), link_table]
        else:
            parts.append(Text("\nExplorer links: loading /chains…", style="dim"))
        body.update(Group(*parts))
        self._plain = "\n".join(plain)
