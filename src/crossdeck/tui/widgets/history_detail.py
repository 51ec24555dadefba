"""The History screen's detail pane: every field of one request record (spec 2.3; its fees in
the request's currency and its USD values to the cent, as the describer reads them), from the
row's stored wire record, its child requests (looked up by the screen), and explorer links of
its transactions and addresses and those of its children."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual
from textual.widget import Widget
from textual.widgets import Static

from crossdeck.models.fail_reasons import reason_words
from crossdeck.tui.widgets.status_style import status_text

if TYPE_CHECKING:
    from crossdeck.history import Children, ExplorerLinks, HistoryRow
    from crossdeck.history.summary import HistoryRecord
    from crossdeck.history.units import RecordUnits

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


def _record_units(record: HistoryRecord, links: ExplorerLinks | None) -> RecordUnits:
    """The record's amounts in units and USD values to the cent (the chains from /chains
    once they are loaded)."""
    from crossdeck.history.units import RecordUnits

    return RecordUnits(record, links.chain if links is not None else lambda _: None)


def _link(url: str | None, text: str) -> Text:
    if not url:
        return Text(text)
    return Text(url, style=f"link {url}")


class _RenderedOnce(RichVisual):
    """A Rich renderable drawn once per width and style. textual draws a Static's Rich content
    twice when its height is auto, once to count its lines and again to paint them; the detail
    pane (a grid of every field of a record) costs about 20 ms a time, on each cursor move."""

    def __init__(self, widget: Widget, renderable: RenderableType) -> None:
        super().__init__(widget, renderable)
        self._drawn: tuple[int, Style, list[Strip]] | None = None

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        drawn = self._drawn
        if drawn is None or drawn[:2] != (width, style):
            drawn = self._drawn = (width, style, super().render_strips(width, None, style, options))
        return drawn[2] if height is None else drawn[2][:height]

    def get_height(self, rules: RulesMap, width: int) -> int:
        widget = self._widget
        options = RenderOptions(widget._get_style, rules)
        return len(self.render_strips(width, None, widget.visual_style, options))


def _grid() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", max_width=34, overflow="fold")
    table.add_column(overflow="fold")
    return table


def _said(value: Any) -> str | None:
    return value if isinstance(value, str) and value not in ("", "N/A") else None


def _sections(
    wire: dict[str, Any], units: RecordUnits, row: HistoryRow
) -> list[tuple[str, list[tuple[str, str]]]]:
    """The record in words: the request, what moved (in its currency and USD), the fees."""
    from crossdeck.history.came_back import fee_lines, moved_text
    from crossdeck.history.summary import currency_in, currency_out

    data = wire.get("data") if isinstance(wire.get("data"), dict) else {}
    assert isinstance(data, dict)
    status = row.status
    request: list[tuple[str, str]] = [("id", str(wire.get("id"))), ("status", status)]
    if reason := reason_words(data.get("failReason")):
        request.append(("fail reason", reason))
    if reason := reason_words(data.get("refundFailReason"), refund=True):
        request.append(("refund failed", reason))
    kind = data.get("requestKind")
    if isinstance(kind, str) and kind != "main":
        request.append(("kind", kind))
    for key, label in (("createdAt", "created"), ("updatedAt", "updated")):
        if wire.get(key):
            request.append((label, str(wire[key])))
    for key, label in (("user", "from"), ("recipient", "to"), ("depositAddress", "deposit to")):
        value = wire.get(key)
        if isinstance(value, dict):  # v3: the deposit address as an object
            value = value.get("address")
        if value:
            request.append((label, str(value)))
    auth = wire.get("authenticatedData")
    if isinstance(auth, dict) and auth.get("refundTo"):
        request.append(("refund to", str(auth["refundTo"])))

    moved: list[tuple[str, str]] = [("route", row.route)]
    refunded = status in ("refund", "fallback")
    record = row.record
    for label, amount in (
        ("sent", currency_in(record)),
        ("was to receive" if refunded else "received", currency_out(record)),
    ):
        text = moved_text(amount)
        if text is None or amount is None:
            continue
        chain = amount.currency_info.chain_id if amount.currency_info is not None else None
        moved.append((label, f"{text} on chain {chain}" if chain is not None else text))
    if len(moved) == 1:  # the record names neither amount: the listing's summary
        moved.append(("amount", row.amount))
    # each fee by what it is, in units and USD (the wire's field names are under v)
    fees = fee_lines(wire, units)
    if not fees and isinstance(data.get("fees"), dict):
        fees = [("none", "every fee was 0")]
    return [("Status", request), ("Amounts", moved), ("Fees", fees)]


class HistoryDetail(VerticalScroll, can_focus=True):
    """Shows one `HistoryRow`'s record; `show(None)` for nothing selected."""

    DEFAULT_CSS = """
    HistoryDetail { height: 40%; border: round $primary; padding: 0 1; }
    """

    BINDINGS: ClassVar = [
        Binding("escape", "back_to_table", "Table", show=False),
    ]

    def action_back_to_table(self) -> None:
        self.screen.query_one("#history-table").focus()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._row: HistoryRow | None = None
        self._links: ExplorerLinks | None = None
        self._links_note = "loading /chains…"
        self._children: Children | None = None
        self._children_note = ""
        self._plain = ""
        self.show_raw = False  # every raw field under the sections (v)
        self.border_title = "Request"

    def compose(self) -> Any:
        yield Static("Highlight a request to see it here", id="history-detail-body")

    def set_links(self, links: ExplorerLinks) -> None:
        self._links = links
        self._render_row()

    def links_failed(self, reason: str) -> None:
        self._links_note = f"unavailable, /chains failed: {reason} (ctrl+r tries again)"
        self._render_row()

    def show(self, row: HistoryRow | None, children: Children | None = None) -> None:
        """Show `row`, with its `children` when they are known already (else: 'loading…')."""
        if children is not None and row is not None and children.parent_id == row.id:
            self._children, self._children_note = children, ""
        elif row is None or self._row is None or row.id != self._row.id:
            self._children = None
            self._children_note = "loading…" if row is not None else ""
        # else the same request again (a refresh): its children stay shown
        self._row = row
        self._render_row()

    @property
    def request_id(self) -> str | None:
        return self._row.id if self._row is not None else None

    def set_children(self, children: Children) -> None:
        """The children of the shown request (ignored if another request is shown by now)."""
        if children.parent_id != self.request_id:
            return
        self._children = children
        self._children_note = ""
        self._render_row()

    def children_failed(self, request_id: str, reason: str) -> None:
        if request_id != self.request_id:
            return
        self._children = None
        self._children_note = f"could not be loaded: {reason} (ctrl+r tries again)"
        self._render_row()

    @property
    def text(self) -> str:
        """The pane's content as plain text (for tests and screen readers)."""
        return self._plain

    def toggle_raw(self) -> bool:
        """Show or hide every raw field of the record under the sections (v); the new state."""
        self.show_raw = not self.show_raw
        self._render_row()
        return self.show_raw

    def _render_row(self) -> None:
        body = self.query_one("#history-detail-body", Static)
        row = self._row
        if row is None:
            body.update("Highlight a request to see it here")
            self.border_subtitle = ""
            self._plain = ""
            return
        record = row.record
        wire = record.to_wire()
        units = _record_units(record, self._links)
        plain: list[str] = []
        parts: list[Any] = []
        for title, lines in _sections(wire, units, row):
            if not lines:
                continue
            parts.append(Text(("\n" if parts else "") + title, style="bold underline"))
            plain.append(title)
            grid = _grid()
            for label, value in lines:
                grid.add_row(label, Text(value))
                plain.append(f"{label} {value}")
            parts.append(grid)
        parts += self._links_parts(record, row, wire, plain)
        parts += self._children_parts(plain)
        fields = record_fields(wire)
        if self.show_raw:
            table = _grid()
            for path, value in fields:
                shown = units.text(path, value) or _scalar(value)
                table.add_row(path, Text(shown))
                plain.append(f"{path} {shown}")
            parts += [Text(f"\nRaw fields ({len(fields)}; v hides them)", style="bold underline")]
            parts.append(table)
        else:
            said = f"Raw fields: {len(fields)}, as the service sent them (v shows them)"
            parts.append(Text("\n" + said, style="dim"))
            plain.append(said)
        body.update(_RenderedOnce(body, Group(*parts)))
        self._plain = "\n".join(plain)

    def _links_parts(
        self, record: HistoryRecord, row: HistoryRow, wire: dict[str, Any], plain: list[str]
    ) -> list[Any]:
        links = self._links
        if links is None:
            plain.append(f"Transactions: {self._links_note}")
            return [Text(f"\nTransactions: {self._links_note}", style="dim")]
        link_table = _grid()
        family = [("", record, row.status)]
        if self._children is not None:
            family += [(f"child {c.short_id} ", c.record, c.status) for c in self._children.rows]
        for prefix, member, status in family:
            for tx in links.record_links(member):
                where = links.chain_name(tx.chain_id)
                refunded = tx.direction == "out" and status in ("refund", "fallback")
                leg = "refund" if refunded else ("paid" if tx.direction == "in" else "filled")
                label = f"{prefix}{leg} on {where}"
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
        plain.insert(len(plain) - link_table.row_count, "Transactions")
        return [Text("\nTransactions", style="bold underline"), link_table]

    def _children_parts(self, plain: list[str]) -> list[Any]:
        from crossdeck.history import child_kind, wire_value

        children = self._children
        if children is None:
            self.border_subtitle = ""
            plain.append(f"Child requests: {self._children_note}")
            return [Text(f"\nChild requests: {self._children_note}", style="dim")]
        count = len(children.rows)
        self.border_subtitle = f"{count} child request{'s' if count != 1 else ''}" if count else ""
        if not children.rows:
            plain.append("Child requests: none")
            return [Text("\nChild requests: none", style="dim")]
        grid = Table.grid(padding=(0, 2))
        for _ in range(6):
            grid.add_column(overflow="fold")
        for child in children.rows:
            kind = child_kind(child)
            reason = wire_value(child.record, "data", "failReason")
            why = reason if isinstance(reason, str) and reason not in ("", "N/A") else ""
            status = status_text(child.status)
            grid.add_row(child.id, kind, status, child.amount, child.created_text, why)
            plain.append(
                " ".join(
                    f"child {child.id} {kind} {child.status} {child.amount} "
                    f"{child.created_text} {why}".split()
                )
            )
        cut = " (first ones only)" if children.truncated else ""
        title = Text(f"\nChild requests ({count}){cut}", style="bold underline")
        plain.append(f"Child requests ({count}){cut}")
        return [title, grid]
