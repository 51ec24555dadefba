"""The History screen's filter bar: one input per `/requests/v2` filter and a checkbox per
include flag, read as the keyword arguments of `crossdeck.history.build_query` (which checks
them). The apiKey filter is a checkbox too ("my API key"): an API key is a secret, never typed
or shown on screen, so the screen fills in the profile's own key from the keyring."""

from __future__ import annotations

from typing import Any

from textual.containers import Grid, Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Static

from crossdeck.tui.widgets.form_fields import TickBox

# (build_query keyword, wire field named by FilterError.field, placeholder)
FILTER_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("user", "user", "0x…"),
    ("status", "status", "success, refund…"),
    ("origin_chain", "originChainId", "chain id"),
    ("destination_chain", "destinationChainId", "chain id"),
    ("id", "id", "request id 0x…"),
    ("hash", "hash", "0x…"),
    ("referrer", "referrer", ""),
    ("deposit_address", "depositAddress", "0x…"),
    ("start", "startTimestamp", "ISO 8601, unix s"),
    ("end", "endTimestamp", "ISO 8601, unix s"),
    ("chain", "chainId", "from or to"),
    ("order_id", "orderId", "0x…"),
    ("start_block", "startBlock", "origin block"),
    ("end_block", "endBlock", "origin block"),
    ("private_chains", "privateChainsToInclude", "UUIDs a,b"),
)
# each filter's label, beside its field: it reads whole once the field is filled
FILTER_LABELS = {
    "user": "user",
    "status": "status",
    "origin_chain": "from chain",
    "destination_chain": "to chain",
    "id": "request",
    "hash": "tx hash",
    "referrer": "referrer",
    "deposit_address": "deposit to",
    "start": "since",
    "end": "until",
    "chain": "any chain",
    "order_id": "order",
    "start_block": "from block",
    "end_block": "to block",
    "private_chains": "private",
}
OWN_API_KEY = "own_api_key"
# (build_query keyword, or OWN_API_KEY for the apiKey filter; wire field, label, tooltip)
FLAG_FIELDS: tuple[tuple[str, str, str, str], ...] = (
    (
        OWN_API_KEY,
        "apiKey",
        "my API key",
        "apiKey: only requests made with this profile's API key (from the keyring; the key "
        "itself is never shown)",
    ),
    (
        "include_child_requests",
        "includeChildRequests",
        "child requests",
        "includeChildRequests: with an id or deposit address filter, also list the request's "
        "child legs (refunds, duplicates, retries)",
    ),
    (
        "include_order_data",
        "includeOrderData",
        "order data",
        "includeOrderData: each record carries its raw orderData (shown in the detail pane)",
    ),
    (
        "include_authenticated_data",
        "includeAuthenticatedData",
        "authenticated data",
        "includeAuthenticatedData: fields only the API key that created a request may see",
    ),
)
INPUT_PREFIX = "history-filter-"


def input_id(name: str) -> str:
    return INPUT_PREFIX + name.replace("_", "-")


class HistoryFilterBar(Vertical):
    """Inputs of the filters; enter in any of them posts `Input.Submitted` to the screen."""

    DEFAULT_CSS = """
    HistoryFilterBar { height: auto; }
    /* three a row: each placeholder reads whole from 80 columns on */
    HistoryFilterBar Grid { grid-size: 3 5; grid-gutter: 0 1; height: 5; }
    HistoryFilterBar .filter-cell { height: 1; }
    HistoryFilterBar .filter-label { width: 10; color: $text-muted; }
    HistoryFilterBar Input, HistoryFilterBar Input:focus {
        border: none; height: 1; padding: 0 1; background: $boost; width: 1fr;
    }
    HistoryFilterBar Input:focus { background: $primary 30%; }
    HistoryFilterBar Input.-bad { background: $error 30%; }
    HistoryFilterBar #history-filter-flags { height: 1; }
    HistoryFilterBar Checkbox { margin-right: 2; }
    HistoryFilterBar Checkbox.-bad { background: $error 30%; }
    HistoryFilterBar #history-filter-error { color: $error; height: auto; }
    """

    def compose(self) -> Any:
        with Grid():
            for name, field, placeholder in FILTER_FIELDS:
                yield Horizontal(
                    Label(FILTER_LABELS[name], classes="filter-label"),
                    Input(placeholder=placeholder, id=input_id(name), tooltip=field),
                    classes="filter-cell",
                )
        with Horizontal(id="history-filter-flags"):
            for name, _, label, tooltip in FLAG_FIELDS:
                yield TickBox(label, id=input_id(name), tooltip=tooltip, compact=True)
        error = Static("", id="history-filter-error")
        error.display = False
        yield error

    def values(self) -> dict[str, str | bool]:
        """Each filter by build_query keyword: the text ('' when not set), or the flag."""
        values: dict[str, str | bool] = {
            name: self.query_one(f"#{input_id(name)}", Input).value.strip()
            for name, _, _ in FILTER_FIELDS
        }
        for name, _, _, _ in FLAG_FIELDS:
            values[name] = self.flag(name)
        return values

    def text(self, name: str) -> str:
        return self.query_one(f"#{input_id(name)}", Input).value.strip()

    def flag(self, name: str) -> bool:
        return self.query_one(f"#{input_id(name)}", Checkbox).value

    def set_value(self, name: str, value: str) -> None:
        self.query_one(f"#{input_id(name)}", Input).value = value

    def set_flag(self, name: str, on: bool) -> None:
        """Set an include flag without posting Checkbox.Changed (the caller applies)."""
        box = self.query_one(f"#{input_id(name)}", Checkbox)
        with box.prevent(Checkbox.Changed):
            box.value = on

    def clear(self) -> None:
        for name, _, _ in FILTER_FIELDS:
            self.set_value(name, "")
        for name, _, _, _ in FLAG_FIELDS:
            self.set_flag(name, False)
        self.show_error(None)

    def show_error(self, field: str | None, message: str = "") -> Widget | None:
        """Mark the input or checkbox of wire field `field` (None: clear every mark); it."""
        marked: Widget | None = None
        wires = [(name, wire) for name, wire, _ in FILTER_FIELDS]
        wires += [(name, wire) for name, wire, _, _ in FLAG_FIELDS]
        for name, wire in wires:
            widget = self.query_one(f"#{input_id(name)}")
            bad = field is not None and wire == field
            widget.set_class(bad, "-bad")
            if bad:
                marked = widget
        error = self.query_one("#history-filter-error", Static)
        error.update(message)
        error.display = bool(message)
        return marked
