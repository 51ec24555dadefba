"""The colour of a request status, the same in History, its detail pane and Live status."""

from __future__ import annotations

from rich.text import Text

STATUS_STYLES = {
    "success": "green",
    "refund": "yellow",
    "failure": "red",
    "pending": "cyan",
    "depositing": "cyan",
    "submitted": "cyan",
    "waiting": "dim",
}


def status_text(status: str, label: str | None = None) -> Text:
    """`label` (the status itself unless given) in the colour of `status`."""
    return Text(status if label is None else label, style=STATUS_STYLES.get(status, ""))
