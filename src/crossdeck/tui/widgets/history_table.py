"""The History screen's table: a DataTable whose Home and End go to the first and last row.

DataTable binds Home/End to the leftmost and rightmost column, which does nothing a person
paging through requests wants; ctrl+home/ctrl+end keep working as well."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding
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
