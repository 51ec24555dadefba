"""The History screen against a demo world seeded with requests: the filter bar (a filter
narrows the rows; a bad one is refused at its field, without a request), the include flags, the
sort direction toggle, the detail pane (the record's fields, child requests and explorer links),
export, paging on scroll, and the window of rows (paging far holds at most WINDOW_ROWS;
scrolling back reads earlier pages again; Home reads the first page again)."""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import json
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from textual.widgets import Checkbox, DataTable, Input
from tui_support import make_app, settled_text, wait_until

from crossdeck.history.feed import PAGE_SIZE, WINDOW_PAGES, WINDOW_ROWS
from crossdeck.tui.screens.export_path import ExportPathScreen
from crossdeck.tui.screens.history import HistoryScreen
from crossdeck.tui.screens.history_listing import LOAD_MORE_MARGIN
from crossdeck.tui.widgets.footer import KeysFooter
from crossdeck.tui.widgets.history_detail import HistoryDetail

SEEDED = 150
SIZE = (120, 36)


def _seeding() -> ModuleType:
    # tests/history/seeding.py, loaded by path: tests/tui imports its helpers by basename
    path = Path(__file__).parents[1] / "history" / "seeding.py"
    spec = importlib.util.spec_from_file_location("history_seeding_for_tui", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


seeding = _seeding()


@pytest.fixture(scope="module")
def seeded(start_world: Any) -> Iterator[tuple[Any, list[Any]]]:
    with start_world("py-evm", rate_limits=(100_000, 100_000)) as world:
        seeds = seeding.make_seeds(SEEDED, world.wallet_address)
        seeding.seed_state(world.state, seeds)
        yield world, seeds


def _mine(world: Any) -> Any:
    wallet = world.wallet_address.lower()
    return lambda s: wallet in (s.user, s.recipient)  # the service's user filter: either


def _table(app: Any) -> DataTable[Any]:
    return app.screen.query_one("#history-table", DataTable)


def _ids(app: Any) -> list[str]:
    return list(app.screen.feed.ids)


async def _submit_filter(pilot: Any, name: str, value: str) -> Input:
    """Type `value` into the filter input `name` and press enter there; the input."""
    field = pilot.app.screen.query_one(f"#history-filter-{name}", Input)
    field.value = value
    field.focus()
    await pilot.press("enter")
    return field


async def _named(pilot: Any, wire_field: str) -> None:
    """Wait for the notification that names the refused filter."""
    await wait_until(
        pilot,
        lambda: any(wire_field in n.message for n in pilot.app._notifications),
        what=f"{wire_field} to be named as refused",
    )


def _count_listings(app: Any) -> list[Any]:
    """From now on, the queries of the screen's listing requests (the detail pane's child
    lookups, by id with child requests, aside)."""
    calls: list[Any] = []
    service = app.services.service
    original = service.list_requests  # the listing: /requests/v3 where offered, else v2

    async def counting(query: Any) -> Any:
        if not (query.id and query.include_child_requests):
            calls.append(query)
        return await original(query)

    service.list_requests = counting
    return calls


async def _first_page(pilot: Any) -> HistoryScreen:
    app = pilot.app
    await wait_until(
        pilot,
        lambda: isinstance(app.screen, HistoryScreen) and _table(app).row_count,
        what="the first page",
    )
    return app.screen


@asynccontextmanager
async def _on_history(
    world: Any, tui_dir: Path, size: tuple[int, int] = SIZE, **options: Any
) -> AsyncIterator[tuple[Any, Any, HistoryScreen]]:
    """The app started on History at `size`, once its first page is in: (app, pilot, screen)."""
    app = make_app(world, tui_dir, start_mode="history", **options)
    async with app.run_test(size=size) as pilot:
        yield app, pilot, await _first_page(pilot)


async def test_filters_are_labelled_and_fold_away_at_80x24(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, _ = seeded
    async with _on_history(world, tui_dir, size=(80, 24)) as (app, pilot, screen):
        bar = screen.filter_bar
        assert not bar.display or not bar.region.height  # folded: the rows get its lines
        table = _table(app)
        assert table.region.height >= 8
        await pilot.press("slash")
        user = screen.query_one("#history-filter-user", Input)
        await wait_until(pilot, lambda: app.focused is user and bar.region.height, what="open")
        text = await settled_text(pilot)
        # each filter named beside its field, so a filled one still says what it holds
        for label in ("user", "from chain", "to chain", "tx hash", "since", "until"):
            assert label in text, label
        assert "[ ] my API key" in text  # the flags read without colour
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is table, what="back to the table")
        await wait_until(pilot, lambda: not bar.region.height, what="folded again")


async def test_a_filter_narrows_the_rows_and_a_bad_one_sends_nothing(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        mine = seeding.expected(seeds, where=_mine(world))
        assert _ids(app) == mine[:PAGE_SIZE]

        await pilot.press("slash")
        assert app.focused is screen.query_one("#history-filter-user", Input)
        await _submit_filter(pilot, "status", "failure")
        failed = seeding.expected(seeds, where=lambda s: _mine(world)(s) and s.status == "failure")
        assert 0 < len(failed) < len(mine)
        await wait_until(pilot, lambda: _ids(app) == failed[:PAGE_SIZE], what="failed rows")
        assert all(str(_table(app).get_row_at(i)[1]) == "failure" for i in range(len(failed)))

        # a bad value: refused at its field, and no request goes out
        calls = _count_listings(app)
        origin = await _submit_filter(pilot, "origin-chain", "base")
        await _named(pilot, "originChainId")
        await pilot.pause(0.3)
        assert calls == []
        assert origin.has_class("-bad") and app.focused is origin
        assert _ids(app) == failed[:PAGE_SIZE]
        assert screen.query_in_use is not None and screen.query_in_use.status == "failure"
        assert screen.query_in_use.origin_chain_id is None

        origin.value = ""
        await pilot.press("enter")
        await wait_until(pilot, lambda: calls, what="the fixed filter to be sent")
        assert not origin.has_class("-bad")


async def test_chain_and_block_filters_reach_the_query(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        await _submit_filter(pilot, "chain", "1337")
        venue = seeding.expected(
            seeds,
            where=lambda s: (
                _mine(world)(s)
                and 1337
                in (
                    s.origin,
                    s.destination,
                )
            ),
        )
        assert 0 < len(venue) < len(seeding.expected(seeds, where=_mine(world)))
        await wait_until(pilot, lambda: _ids(app) == venue[:PAGE_SIZE], what="venue rows")
        assert screen.query_in_use is not None and screen.query_in_use.chain_id == "1337"

        block = await _submit_filter(pilot, "start-block", "-1")
        await _named(pilot, "startBlock")
        assert block.has_class("-bad") and app.focused is block


async def test_sort_direction_flips_the_order(seeded: tuple[Any, list[Any]], tui_dir: Path) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, _):
        newest = seeding.expected(seeds, where=_mine(world))
        assert _ids(app) == newest[:PAGE_SIZE]
        _table(app).focus()
        await pilot.press("o")
        oldest = seeding.expected(seeds, where=_mine(world), direction="asc")
        await wait_until(pilot, lambda: _ids(app) == oldest[:PAGE_SIZE], what="oldest first")
        assert oldest == newest[::-1]
        await pilot.press("s")  # updatedAt, still ascending
        by_update = seeding.expected(
            seeds, where=_mine(world), sort_by="updatedAt", direction="asc"
        )
        await wait_until(pilot, lambda: _ids(app) == by_update[:PAGE_SIZE], what="by updatedAt")
        await pilot.press("o")
        by_update_desc = seeding.expected(seeds, where=_mine(world), sort_by="updatedAt")
        await wait_until(
            pilot, lambda: _ids(app) == by_update_desc[:PAGE_SIZE], what="updatedAt desc"
        )


async def test_quick_filters_and_scrolling_load_more(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        _table(app).focus()
        await pilot.press("x")  # clear: every user's requests
        every = seeding.expected(seeds)
        await wait_until(pilot, lambda: _ids(app) == every[:PAGE_SIZE], what="every request")
        await pilot.press("r")
        refunded = seeding.expected(seeds, where=lambda s: s.status == "refund")
        await wait_until(pilot, lambda: _ids(app) == refunded[:PAGE_SIZE], what="refunded")
        await pilot.press("f")  # failed replaces refunded
        # failures, and the refunds of failures (the seeds' refunds all carry a failReason)
        failed = seeding.expected(seeds, where=lambda s: s.status in ("failure", "refund"))
        await wait_until(pilot, lambda: _ids(app) == failed[:PAGE_SIZE], what="failed")
        await pilot.press("f", "w")  # failed off, mine on
        mine = seeding.expected(seeds, where=_mine(world))
        await wait_until(pilot, lambda: _ids(app) == mine[:PAGE_SIZE], what="mine")
        assert screen.query_in_use is not None and screen.query_in_use.status is None

        # scrolling (not the cursor) near the end loads the next page
        await pilot.press("x")
        await wait_until(pilot, lambda: _ids(app) == every[:PAGE_SIZE], what="every request")
        table = _table(app)
        assert table.cursor_row == 0
        table.scroll_end(animate=False)
        await wait_until(
            pilot, lambda: _ids(app) == every[: 2 * PAGE_SIZE], what="the second page on scroll"
        )
        assert table.cursor_row == 0

        # End goes to the last row (DataTable's own End scrolls sideways), which loads the rest
        await pilot.press("end")
        await wait_until(pilot, lambda: _ids(app) == every, what="every page after End")
        await wait_until(pilot, lambda: table.cursor_row > 0, what="the cursor at the bottom")
        await pilot.press("home")
        assert table.cursor_row == 0
        helped = [b.id for _, bindings in app.help_sections(screen) for b in bindings]
        assert {"history.first", "history.last"} <= set(helped)


async def test_detail_pane_shows_the_record_and_explorer_links(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        table = _table(app)
        table.focus()
        await pilot.press("down")
        detail = screen.query_one(HistoryDetail)
        chosen = next(s for s in seeds if s.id == _ids(app)[1])
        await wait_until(
            pilot,
            lambda: f"/tx/{chosen.in_hashes[0]}" in detail.text,
            what="the record with its links",
        )
        text = detail.text
        # in sections: the request, what moved, the fees, the transactions
        for title in ("Status", "Amounts", "Fees", "Transactions"):
            assert f"\n{title}\n" in f"\n{text}", title
        assert f"id {chosen.id}" in text
        assert f"status {chosen.status}" in text
        row = screen.feed.rows[chosen.id]
        assert f"route {row.route}" in text
        assert f"/tx/{chosen.in_hashes[0]}" in text
        assert "https://" in text
        # what was sent and what came back, in units and USD to the cent
        moved = r" [0-9][0-9,.]* [A-Za-z.]+, -?\$[0-9,]+\.[0-9]{2} on chain [0-9]+$"
        assert re.search(r"^sent" + moved, text, re.M), text
        assert re.search(r"^(received|was to receive)" + moved, text, re.M), text
        # the seeded requests paid no fee: said in words, never as the wire's field names
        assert "\nnone every fee was 0\n" in text and "fees.quoted" not in text
        # the raw fields one key away (v), and the pane one key away (d; escape goes back)
        assert "createdAt" not in text and "Raw fields: " in text
        await pilot.press("v")
        await wait_until(pilot, lambda: "data.inTxs[0].txHash" in detail.text, what="raw")
        assert "createdAt" in detail.text and "updatedAt" in detail.text
        await pilot.press("d")
        await wait_until(pilot, lambda: app.focused is detail, what="the pane focused")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is table, what="back to the table")


@pytest.mark.parametrize("fmt", ["csv", "json"])
async def test_export_writes_the_filtered_rows(
    seeded: tuple[Any, list[Any]], tui_dir: Path, fmt: str
) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        _table(app).focus()
        await pilot.press("r")  # refunded, of this wallet
        wanted = seeding.expected(seeds, where=lambda s: _mine(world)(s) and s.status == "refund")
        await wait_until(pilot, lambda: _ids(app) == wanted[:PAGE_SIZE], what="refunded")
        await pilot.press("e" if fmt == "csv" else "j")
        # the file is the user's to choose: suggested in the data dir, taken as given
        dialog = await wait_until(
            pilot, lambda: isinstance(app.screen, ExportPathScreen) and app.screen, what="dialog"
        )
        field = dialog.query_one(Input)
        assert Path(field.value).parent == app.settings.data_dir
        field.value = str(tui_dir / "exports" / f"refunds.{fmt}")
        await pilot.press("enter")
        path = await wait_until(pilot, lambda: screen.last_export, what="the export")
        assert path == tui_dir / "exports" / f"refunds.{fmt}"
        assert any(str(path) in n.message for n in app._notifications)
        text = path.read_text()
        if fmt == "csv":
            rows = list(csv.DictReader(text.splitlines()))
            ids = [next(iter(row.values())) for row in rows]
            assert len(rows) == len(wanted)
            assert set(ids) == set(wanted) or all(
                any(i in r.values() for r in rows) for i in wanted
            )
        else:
            records = json.loads(text)
            assert [r["id"] for r in records] == wanted


def _family(world: Any, seeds: list[Any]) -> tuple[Any, list[Any]]:
    """A request of this wallet with child requests, and its children (newest first)."""
    wallet = world.wallet_address.lower()
    for parent in seeds:
        children = [s for s in seeds if s.parent_id == parent.id]
        if children and parent.user == wallet:
            ids = seeding.expected(children)
            return parent, [next(c for c in children if c.id == i) for i in ids]
    raise AssertionError("the seeds have no parent request of this wallet")


async def test_detail_pane_lists_child_requests_and_h_lists_them_as_rows(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, seeds = seeded
    parent, children = _family(world, seeds)
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        await _submit_filter(pilot, "id", parent.id)
        await wait_until(pilot, lambda: _ids(app) == [parent.id], what="the parent alone")
        detail = screen.query_one(HistoryDetail)
        await wait_until(
            pilot, lambda: f"Child requests ({len(children)})" in detail.text, what="children"
        )
        for child in children:
            # v3 records do not say which kind of leg a child is (v2's data.requestKind is a
            # world extension): the pane says "child", with its status
            assert f"child {child.id} child refund" in detail.text
            # the child's own transactions are listed too (with an explorer link where /chains
            # names an explorer: the demo venue names none)
            await wait_until(
                pilot,
                lambda c=child: (
                    f"child {c.id[:8]}" in detail.text and c.in_hashes[0] in detail.text
                ),
                what="the child's transactions",
            )
        assert detail.border_subtitle.startswith(f"{len(children)} child request")

        # h: the request and its children as rows of the table
        _table(app).focus()
        await pilot.press("h")
        family = seeding.expected([parent, *children])
        await wait_until(pilot, lambda: _ids(app) == family, what="the family as rows")
        query = screen.query_in_use
        assert query is not None and query.include_child_requests and query.id == parent.id
        box = screen.query_one("#history-filter-include-child-requests", Checkbox)
        assert box.value

        # a child has no children of its own
        child_row = _ids(app).index(children[0].id)
        _table(app).move_cursor(row=child_row)
        await wait_until(
            pilot, lambda: "Child requests: none" in detail.text, what="a child without children"
        )


async def test_include_flags_reach_the_query_and_a_misplaced_one_is_refused(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        detail = screen.query_one(HistoryDetail)
        await wait_until(pilot, lambda: "id 0x" in detail.text, what="the first record")
        detail.toggle_raw()  # every raw field: where orderData and authenticatedData show
        assert "orderData" not in detail.text and "authenticatedData" not in detail.text

        order = screen.query_one("#history-filter-include-order-data", Checkbox)
        order.focus()
        await pilot.press("enter")  # a checkbox toggles on enter (and space)
        await wait_until(
            pilot,
            lambda: screen.query_in_use is not None and screen.query_in_use.include_order_data,
            what="includeOrderData in the query",
        )
        await wait_until(pilot, lambda: "orderData" in detail.text, what="orderData shown")
        assert app.focused is order
        await pilot.press("escape")  # back to the table, as from a filter input
        assert app.focused is _table(app)

        # the first row of this wallet that the demo key created shows its authenticated fields
        own = next(
            s.id for s in seeds if s.key_name == "demo" and _mine(world)(s) and s.id in _ids(app)
        )
        screen.query_one("#history-filter-include-authenticated-data", Checkbox).value = True
        await wait_until(
            pilot,
            lambda: (
                screen.query_in_use is not None and screen.query_in_use.include_authenticated_data
            ),
            what="includeAuthenticatedData in the query",
        )

        def own_row_shows_its_authenticated_fields() -> bool:
            # the page of the new query may still be on its way: its rows replace the table's
            # and put the cursor back on the first, so the cursor goes to our row again
            table, ids = _table(app), _ids(app)
            if own in ids and table.cursor_row != ids.index(own):
                table.move_cursor(row=ids.index(own))
            return "authenticatedData.apiKeyName demo" in detail.text

        await wait_until(
            pilot, own_row_shows_its_authenticated_fields, what="the authenticated fields"
        )

        # child requests without an id or deposit address: refused at the checkbox, nothing sent
        calls = _count_listings(app)
        applied = screen.query_in_use
        children = screen.query_one("#history-filter-include-child-requests", Checkbox)
        children.value = True
        await _named(pilot, "includeChildRequests")
        await pilot.pause(0.3)
        assert calls == [] and screen.query_in_use == applied
        assert children.has_class("-bad") and app.focused is children

        await _submit_filter(pilot, "deposit-address", seeding.DEPOSIT_ADDRESSES[0])
        await wait_until(pilot, lambda: calls, what="the fixed filter to be sent")
        assert calls[-1].include_child_requests and not children.has_class("-bad")


async def test_new_requests_are_counted_on_top_and_changed_statuses_update_in_place(
    start_world: Any, tui_dir: Path
) -> None:
    from tui_support import world_settings

    with start_world("py-evm", rate_limits=(100_000, 100_000)) as world:
        seeds = seeding.make_seeds(40, world.wallet_address)
        seeding.seed_state(world.state, seeds)
        settings = world_settings(world, tui_dir)
        tracking = dataclasses.replace(settings.tracking, history_refresh_seconds=0.2)
        settings = dataclasses.replace(settings, tracking=tracking)
        async with _on_history(world, tui_dir, settings=settings) as (app, pilot, screen):
            shown = _ids(app)
            assert shown == seeding.expected(seeds, where=_mine(world))[:PAGE_SIZE]
            moving = next(s for s in seeds if s.id in shown and s.status == "pending")
            table = _table(app)
            table.move_cursor(row=shown.index(moving.id))

            world.state.advance(moving.id, "success")
            row = shown.index(moving.id)
            await wait_until(
                pilot,
                lambda: str(table.get_row_at(row)[1]) == "success",
                what="the changed status in its row",
            )
            detail = screen.query_one(HistoryDetail)
            await wait_until(pilot, lambda: "status success" in detail.text, what="the detail")
            assert _ids(app) == shown  # nothing moved under the cursor

            newer = seeding.make_seeds(6, world.wallet_address, start_seq=500, rng_seed=11)
            seeding.seed_state(world.state, newer)
            arrived = [s for s in newer if _mine(world)(s)]
            assert arrived
            status = screen.query_one("#history-status")
            await wait_until(
                pilot,
                lambda: f"{len(arrived)} new on top" in str(status.render()),
                what="the count of new requests",
            )
            assert _ids(app) == shown

            table.focus()
            await pilot.press("ctrl+r")
            everything = seeding.expected([*seeds, *newer], where=_mine(world))
            await wait_until(
                pilot, lambda: _ids(app) == everything[:PAGE_SIZE], what="the new rows on top"
            )
            assert "new on top" not in str(status.render())


async def test_my_api_key_filters_by_the_profiles_key_without_showing_it(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:

    from crossdeck.tui.services import Secrets

    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        screen.query_one("#history-filter-own-api-key", Checkbox).value = True
        own = seeding.expected(seeds, where=lambda s: _mine(world)(s) and s.key_name == "demo")
        assert 0 < len(own) < len(seeding.expected(seeds, where=_mine(world)))
        await wait_until(pilot, lambda: _ids(app) == own[:PAGE_SIZE], what="the key's requests")
        assert "apiKey=<set>" in str(screen.query_one("#history-status").render())
        assert world.api_key not in (await settled_text(pilot))
        assert world.api_key not in repr(screen.query_in_use)

    # a profile without an API key: refused at the checkbox, nothing sent
    no_key = Secrets(None, world.wallet_address)
    async with _on_history(world, tui_dir, secrets=no_key) as (keyless, pilot, screen):
        calls = _count_listings(keyless)
        box = screen.query_one("#history-filter-own-api-key", Checkbox)
        box.value = True
        await _named(pilot, "apiKey")
        await pilot.pause(0.3)
        assert calls == [] and box.has_class("-bad")
        assert any("apikey set" in (n.message or "") for n in keyless._notifications)


# -- a window of rows: paging far keeps at most WINDOW_ROWS, scrolling back reads again ------

MANY = 4 * WINDOW_ROWS  # far more rows than the window holds


@pytest.fixture(scope="module")
def many(start_world: Any) -> Iterator[tuple[Any, list[str]]]:
    """A world of its own with MANY requests; the ids of every one, newest first."""
    with start_world("py-evm", rate_limits=(100_000, 100_000)) as world:
        seeds = seeding.make_seeds(MANY, world.wallet_address)
        seeding.seed_state(world.state, seeds)
        yield world, seeding.expected(seeds)


def _held_rows(screen: HistoryScreen) -> tuple[int, list[str]]:
    """(the listing position of the table's first row, the ids of its rows)."""
    return screen.feed.offset, _ids(screen.app)


async def _paged(pilot: Any, screen: HistoryScreen, key: str, moved: Any) -> None:
    """Press `key`, then wait for the page it loads (or for `moved()` when it loads none)."""
    before = _held_rows(screen)
    await pilot.press(key)
    await wait_until(
        pilot,
        lambda: (
            screen.feed.loader is not None
            and not screen.feed.loader.is_loading
            and (_held_rows(screen) != before or moved())
        ),
        what=f"{key} to move the window",
    )


async def test_paging_far_holds_a_window_and_scrolling_back_reads_the_rows_again(
    many: tuple[Any, list[str]], tui_dir: Path
) -> None:
    world, every = many
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        table = _table(app)
        table.focus()
        await pilot.press("x")  # every user's requests
        await wait_until(pilot, lambda: _ids(app) == every[:PAGE_SIZE], what="every request")
        calls = _count_listings(app)
        status = screen.query_one("#history-status")

        # End again and again: each loads the next page; the table never holds more than the
        # window, always the listing's rows from its offset
        largest = 0
        while screen.feed.loader is not None and screen.feed.loader.has_more:
            await _paged(pilot, screen, "end", lambda: False)
            offset, held = _held_rows(screen)
            largest = max(largest, table.row_count)
            assert table.row_count == len(held) <= WINDOW_ROWS
            assert held == every[offset : offset + len(held)]
        assert largest == WINDOW_ROWS and offset == MANY - WINDOW_ROWS
        assert len(calls) == MANY // PAGE_SIZE - 1  # each page once, forward
        assert all(query.continuation for query in calls)
        await wait_until(
            pilot,
            lambda: f"requests {offset + 1:,}-{MANY:,} of {MANY:,}" in str(status.render()),
            what="the held rows in the status line",
        )
        await pilot.press("end")
        assert table.cursor_row == WINDOW_ROWS - 1 and screen.selected_request_id() == every[-1]

        # up near the window's top: the page before is read in, and the cursor stays on the
        # row it moved to while the window slides under it
        calls.clear()
        table.move_cursor(row=LOAD_MORE_MARGIN + 1)
        await pilot.pause()
        on = _ids(app)[LOAD_MORE_MARGIN]
        await _paged(pilot, screen, "up", lambda: False)
        assert screen.selected_request_id() == on and screen.feed.offset == offset - PAGE_SIZE
        assert len(calls) == 1 and calls[0].continuation  # read again by its kept cursor
        detail = screen.query_one(HistoryDetail)
        await wait_until(pilot, lambda: f"id {on}" in detail.text, what="the detail pane")

        # page up to the top: every earlier page read again, one request each
        while screen.feed.has_earlier:  # pageup moves the cursor; near the top, the window too
            await _paged(pilot, screen, "pageup", lambda c=table.cursor_row: table.cursor_row != c)
            offset, held = _held_rows(screen)
            assert table.row_count == len(held) <= WINDOW_ROWS
            assert held == every[offset : offset + len(held)]
        assert offset == 0 and _ids(app)[0] == every[0]
        assert len(calls) == MANY // PAGE_SIZE - WINDOW_PAGES
        assert calls[-1].continuation is None  # the first page needs no cursor
        assert "request(s)" not in str(status.render())  # later rows were read: of how many
        await pilot.press("home")
        assert table.cursor_row == 0 and screen.selected_request_id() == every[0]

        # scrolling (not the cursor) back to the window's top reads the page before too
        for _ in range(WINDOW_PAGES + 1):
            await _paged(pilot, screen, "end", lambda: False)
        offset = screen.feed.offset
        assert offset > 0
        table.scroll_home(animate=False)
        await wait_until(
            pilot, lambda: screen.feed.offset < offset, what="the page before, on scroll"
        )
        held = _ids(app)
        assert held == every[screen.feed.offset : screen.feed.offset + len(held)]


async def test_end_then_home_gets_back_to_the_first_row(
    many: tuple[Any, list[str]], tui_dir: Path
) -> None:
    world, every = many
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        table = _table(app)
        table.focus()
        await pilot.press("x")
        await wait_until(pilot, lambda: _ids(app) == every[:PAGE_SIZE], what="every request")
        for _ in range(WINDOW_PAGES + 2):  # past the window: the first page is dropped
            await _paged(pilot, screen, "end", lambda: False)
        assert screen.feed.has_earlier and every[0] not in _ids(app)
        assert table.row_count <= WINDOW_ROWS
        calls = _count_listings(app)
        await pilot.press("home")
        await wait_until(
            pilot, lambda: _ids(app) == every[:PAGE_SIZE], what="the first page read again"
        )
        assert table.cursor_row == 0 and screen.selected_request_id() == every[0]
        # the first page read again, with no cursor (a next page the last `end` had asked for
        # may still be answered first on a loaded machine)
        assert not screen.feed.has_earlier
        assert any(query.continuation is None for query in calls), calls
        detail = screen.query_one(HistoryDetail)
        await wait_until(pilot, lambda: f"id {every[0]}" in detail.text, what="its detail")
        assert f"{PAGE_SIZE} request(s)" in str(screen.query_one("#history-status").render())


async def test_the_footer_follows_the_keys_of_the_focused_widget(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    """Focus moving from the table to the detail pane and back keeps the same keys. A filter
    input takes the letter keys (they type there): the footer drops them and shows them again
    back on the table; a keymap that renames a key shows it."""
    world, _ = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        footer = screen.query_one(KeysFooter)

        def keys() -> list[str]:
            return footer.keys_shown()

        await wait_until(pilot, lambda: "s" in keys(), what="the footer's keys")
        before = keys()
        screen.query_one(HistoryDetail).focus()
        await pilot.pause(0.1)
        _table(app).focus()
        await pilot.pause(0.1)
        assert keys() == before
        assert not footer.children  # one widget draws the line: a change of keys is a repaint
        screen.query_one("#history-filter-status", Input).focus()
        await wait_until(
            pilot,
            lambda: "ctrl+r" in keys() and "s" not in keys(),
            what="the letter keys to go, ctrl+r staying",
        )
        _table(app).focus()
        await wait_until(pilot, lambda: "s" in keys(), what="the letter keys back")
        app.set_keymap({"history.refresh": "ctrl+t"})
        await wait_until(pilot, lambda: "ctrl+t" in keys(), what="the renamed key")
        assert "ctrl+r" not in keys()


async def test_export_writes_exactly_the_rows_the_failed_filter_shows(
    seeded: tuple[Any, list[Any]], tui_dir: Path
) -> None:
    """Issue 35 point 6: with the 'failed' quick filter (kept here from a listing of every
    status), `e` writes the failed rows only, not the whole listing; escape writes nothing."""
    world, seeds = seeded
    async with _on_history(world, tui_dir) as (app, pilot, screen):
        _table(app).focus()
        await pilot.press("f")
        await wait_until(pilot, lambda: screen.feed.keeps_failed and _ids(app), what="failed")
        await pilot.pause(0.5)
        shown = _ids(app)
        assert 0 < len(shown) < len(seeds)
        await pilot.press("e")
        dialog = await wait_until(
            pilot, lambda: isinstance(app.screen, ExportPathScreen) and app.screen, what="dialog"
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is not dialog, what="the dialog to go")
        assert screen.last_export is None
        await pilot.press("e")
        dialog = await wait_until(
            pilot, lambda: isinstance(app.screen, ExportPathScreen) and app.screen, what="dialog"
        )
        dialog.query_one(Input).value = str(tui_dir / "failed.jsonl")
        await pilot.press("enter")
        path = await wait_until(pilot, lambda: screen.last_export, what="the export")
        written = [json.loads(line)["id"] for line in path.read_text().splitlines()]
        assert set(shown) <= set(written)  # every row shown (and those of later pages)
        statuses = {s.id: s.status for s in seeds}
        assert all(statuses[i] in ("failure", "refund") for i in written), written
        listed = [s for s in seeds if _mine(world)(s)]
        assert len(written) < len(listed)  # not the whole listing
