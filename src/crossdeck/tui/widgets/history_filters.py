"""The History screen's filter bar: one input per `/requests/v2` filter, read as the keyword
arguments of `crossdeck.history.build_query` (which checks them). The apiKey filter is left to
`crossdeck requests --api-key-filter`: an API key is a secret and is never typed on screen."""

from __future__ import annotations

from typing import Any

from textual.containers import Grid, Vertical
from textual.widgets import Input, Static

# (build_query keyword, wire field named by FilterError.field, placeholder)
FILTER_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("user", "user", "user 0x…"),
    ("status", "status", "status (success, failure, refund…)"),
    ("origin_chain", "originChainId", "origin chain id"),
    ("destination_chain", "destinationChainId", "destination chain id"),
    ("id", "id", "request id 0x…"),
    ("hash", "hash", "tx hash 0x…"),
    ("referrer", "referrer", "referrer"),
    ("deposit_address", "depositAddress", "deposit address 0x…"),
    ("start", "startTimestamp", "start (ISO 8601 / unix s)"),
    ("end", "endTimestamp", "end (ISO 8601 / unix s)"),
    ("chain", "chainId", "chain id (either way)"),
    ("order_id", "orderId", "order id 0x…"),
    ("start_block", "startBlock", "from origin block"),
    ("end_block", "endBlock", "to origin block"),
    ("private_chains", "privateChainsToInclude", "private chain UUIDs, a,b"),
)
INPUT_PREFIX = "history-filter-"


def input_id(name: str) -> str:
    return INPUT_PREFIX + name.replace("_", "-")


class HistoryFilterBar(Vertical):
    """Inputs of the filters; enter in any of them posts `Input.Submitted` to the screen."""

    DEFAULT_CSS = """
    HistoryFilterBar { height: auto; }
    HistoryFilterBar Grid { grid-size: 5 3; grid-gutter: 0 1; height: 3; }
    HistoryFilterBar Input, HistoryFilterBar Input:focus {
        border: none; height: 1; padding: 0 1; background: $boost;
    }
    HistoryFilterBar Input:focus { background: $primary 30%; }
    HistoryFilterBar Input.-bad { background: $error 30%; }
    HistoryFilterBar #history-filter-error { color: $error; height: auto; }
    """

    def compose(self) -> Any:
        with Grid():
            for name, field, placeholder in FILTER_FIELDS:
                yield Input(placeholder=placeholder, id=input_id(name), tooltip=field)
        error = Static("", id="history-filter-error")
        error.display = False
        yield error

    def values(self) -> dict[str, str]:
        """Each filter's text by build_query keyword ('' when not set)."""
        return {
            name: self.query_one(f"#{input_id(name)}", Input).value.strip()
            for name, _, _ in FILTER_FIELDS
        }

    def set_value(self, name: str, value: str) -> None:
        self.query_one(f"#{input_id(name)}", Input).value = value

    def clear(self) -> None:
        for name, _, _ in FILTER_FIELDS:
            self.set_value(name, "")
        self.show_error(None)

    def show_error(self, field: str | None, message: str = "") -> Input | None:
        """Mark the input of wire field `field` (None: clear every mark); its Input."""
        marked: Input | None = None
        for name, wire, _ in FILTER_FIELDS:
            widget = self.query_one(f"#{input_id(name)}", Input)
            bad = field is not None and wire == field
            widget.set_class(bad, "-bad")
            if bad:
                marked = widget
        error = self.query_one("#history-filter-error", Static)
        error.update(message)
        error.display = bool(message)
        return marked
