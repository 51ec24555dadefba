"""The History table's `call_after_rows_painted`: a callback waits for the frame that paints the
rows added (a DataTable sizes new rows when next idle, and draws them only after that), so what
runs in it is not drawn in the same frame as the rows."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from crossdeck.tui.widgets.history_table import HistoryTable


class _OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield HistoryTable(cursor_type="row")


def _table_text(app: App[Any], table: HistoryTable) -> str:
    """What the last frame shows in the table's region."""
    region = table.region
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return "\n".join(strip.crop(region.x, region.right).text for strip in strips)


async def test_a_callback_runs_after_the_frame_that_paints_the_rows() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(HistoryTable)
        table.add_columns("ID", "STATUS")
        await pilot.pause()
        seen: list[str] = []

        def look() -> None:
            seen.append(_table_text(app, table))

        for n in range(20):
            table.add_row(f"row-{n:02}", "success")
        table.call_after_rows_painted(look)
        table.call_after_rows_painted(look)  # asked twice before the frame: runs once
        assert seen == []  # added, not painted yet
        await pilot.pause()
        await pilot.pause()
        assert len(seen) == 1 and "row-00" in seen[0] and "row-05" in seen[0]


async def test_after_a_clear_a_callback_waits_for_the_new_rows() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(HistoryTable)
        table.add_columns("ID", "STATUS")
        for n in range(20):
            table.add_row(f"old-{n:02}", "success")
        await pilot.pause()
        seen: list[str] = []
        table.clear()
        for n in range(20):
            table.add_row(f"new-{n:02}", "refund")
        table.call_after_rows_painted(lambda: seen.append(_table_text(app, table)))
        await pilot.pause()
        await pilot.pause()
        assert len(seen) == 1 and "new-00" in seen[0] and "old-" not in seen[0]


async def test_with_no_rows_a_callback_runs_after_the_next_refresh() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(HistoryTable)
        table.add_columns("ID", "STATUS")
        await pilot.pause()
        ran: list[bool] = []
        table.call_after_rows_painted(lambda: ran.append(True))
        await pilot.pause()
        assert ran == [True]
