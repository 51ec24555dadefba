"""The History screen's table: a DataTable whose Home and End go to the first and last row.

DataTable binds Home/End to the leftmost and rightmost column, which does nothing a person
paging through requests wants; ctrl+home/ctrl+end keep working as well. The table holds a
window of the listing, so going to its first row also says so (`FirstRow`): the screen reads
the listing's first page again when that page is no longer held.

Rows added are drawn a frame or more later (a DataTable sizes new rows when it is next idle),
so `call_after_rows_painted` waits for the frame that paints them: work queued for after the
rows (the detail pane) then cannot be drawn in that frame and hold it back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
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

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._after_rows_painted: list[Callable[[], object]] = []

    def call_after_rows_painted(self, callback: Callable[[], object]) -> None:
        """Run `callback` once a frame has painted the rows the table holds now (at once, after
        the next refresh, when it holds none)."""
        if not self.row_count:
            self.call_after_refresh(callback)
        elif callback not in self._after_rows_painted:
            self._after_rows_painted.append(callback)

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        # DataTable (textual 8) sizes rows added or cleared when it is next idle, and until then
        # keeps the sizes of the rows it held before (a cleared table's too): once it has, this
        # frame paints the rows it holds, and the callbacks run after it
        sized = not self._require_update_dimensions
        if self._after_rows_painted and sized:
            waiting, self._after_rows_painted = self._after_rows_painted, []
            for callback in waiting:
                self.call_after_refresh(callback)
        return lines

    def action_scroll_top(self) -> None:
        super().action_scroll_top()
        self.post_message(self.FirstRow())
