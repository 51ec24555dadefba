"""The History screen's table: a DataTable whose Home and End go to the first and last row.

DataTable binds Home/End to the leftmost and rightmost column, which does nothing a person
paging through requests wants; ctrl+home/ctrl+end keep working as well. The table holds a
window of the listing, so going to its first row also says so (`FirstRow`): the screen reads
the listing's first page again when that page is no longer held."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable


class HistoryTable(DataTable[Any]):
    BINDINGS: ClassVar = [
        Binding(
            "home",
            "scroll_top",
            "First",
            id="history.first",
            show=False,
            tooltip="Go to the first request",
        ),
        Binding(
            "end",
            "scroll_bottom",
            "Last",
            id="history.last",
            show=False,
            tooltip="Go to the last loaded request (loads the next page when there is more)",
        ),
    ]

    class FirstRow(Message):
        """Home / ctrl+home: the cursor went to the first row the table holds."""

    def action_scroll_top(self) -> None:
        super().action_scroll_top()
        self.post_message(self.FirstRow())
