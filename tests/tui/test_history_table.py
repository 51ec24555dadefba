"""The History table's `call_after_rows_painted`: a callback waits for the frame that paints the
rows added (a DataTable sizes new rows when next idle, and draws them only after that), so what
runs in it is not drawn in the same frame as the rows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from crossdeck.tui.widgets.history_table import HistoryTable


class _OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield HistoryTable(cursor_type="row")

    @property
    def table(self) -> HistoryTable:
        return self.query_one(HistoryTable)

    def add_rows(self, prefix: str) -> None:
        for n in range(20):
            self.table.add_row(f"{prefix}-{n:02}", "success")

    def table_text(self) -> str:
        """What the last frame shows in the table's region."""
        region = self.table.region
        strips = self.screen._compositor.render_strips()[region.y : region.bottom]
        return "\n".join(strip.crop(region.x, region.right).text for strip in strips)


@asynccontextmanager
async def _one_table() -> AsyncIterator[tuple[_OneTable, Pilot[None]]]:
    app = _OneTable()
    async with app.run_test(size=(60, 12)) as pilot:
        app.table.add_columns("ID", "STATUS")
        await pilot.pause()
        yield app, pilot


async def test_a_callback_runs_after_the_frame_that_paints_the_rows() -> None:
    async with _one_table() as (app, pilot):
        seen: list[str] = []

        def look() -> None:
            seen.append(app.table_text())

        app.add_rows("row")
        app.table.call_after_rows_painted(look)
        app.table.call_after_rows_painted(look)  # asked twice before the frame: runs once
        assert seen == []  # added, not painted yet
        await pilot.pause()
        await pilot.pause()
        assert len(seen) == 1 and "row-00" in seen[0] and "row-05" in seen[0]


async def test_after_a_clear_a_callback_waits_for_the_new_rows() -> None:
    async with _one_table() as (app, pilot):
        app.add_rows("old")
        await pilot.pause()
        seen: list[str] = []
        app.table.clear()
        app.add_rows("new")
        app.table.call_after_rows_painted(lambda: seen.append(app.table_text()))
        await pilot.pause()
        await pilot.pause()
        assert len(seen) == 1 and "new-00" in seen[0] and "old-" not in seen[0]


async def test_with_no_rows_a_callback_runs_after_the_next_refresh() -> None:
    async with _one_table() as (app, pilot):
        ran: list[bool] = []
        app.table.call_after_rows_painted(lambda: ran.append(True))
        await pilot.pause()
        assert ran == [True]
