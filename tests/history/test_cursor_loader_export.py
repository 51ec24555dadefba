"""The cursor while requests arrive and change, the PagedLoader the History screen uses, the
streamed export, and explorer links, against the demo world."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from aiohttp import web

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import MalformedResponseError
from crossdeck.base.errors import InputError
from crossdeck.history import (
    CSV_COLUMNS,
    CursorLoopError,
    ExplorerLinks,
    PagedLoader,
    WalkStats,
    build_query,
    export_history,
    stream_records,
    walk_pages,
)
from crossdeck.retry import NO_RETRY
from crossdeck.sim.service.state import Status

from .conftest import SeededWorld
from .seeding import Seed, expected, make_seeds, seed_state


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _new_seeds(world: SeededWorld, count: int, next_seq: int) -> list[Seed]:
    return make_seeds(count, world.world.wallet_address, start_seq=next_seq, rng_seed=next_seq)


# -- the cursor while the listing changes ------------------------------------------------------


async def test_newest_first_cursor_ignores_requests_arriving_while_paging(
    fresh_world: SeededWorld,
) -> None:
    state = fresh_world.world.state
    assert state is not None
    snapshot = expected(fresh_world.seeds)
    next_seq = len(fresh_world.seeds) + 1
    got: list[str] = []
    advanced: set[str] = set()
    async with fresh_world.client() as client:
        async for page in walk_pages(client, build_query(limit=20)):
            got += [r.id for r in page.requests if r.id]
            arrivals = _new_seeds(fresh_world, 3, next_seq)
            next_seq += 3
            seed_state(state, arrivals)
            # requests further down the listing change status meanwhile
            later = [
                s
                for s in fresh_world.seeds
                if s.id not in got and s.status == "pending" and s.id not in advanced
            ]
            if later:
                state.advance(later[0].id, Status.SUCCESS)
                advanced.add(later[0].id)
    assert got == snapshot  # the arrivals are newer than the cursor: none slips in, none repeats
    assert next_seq > len(fresh_world.seeds) + 3 and advanced


async def test_oldest_first_cursor_picks_up_arrivals_at_the_end(fresh_world: SeededWorld) -> None:
    state = fresh_world.world.state
    assert state is not None
    snapshot = expected(fresh_world.seeds, direction="asc")
    next_seq = len(fresh_world.seeds) + 1
    inserted: list[str] = []
    inserted_before_fetch: list[int] = []
    got: list[str] = []
    async with fresh_world.client() as client:
        async for page in walk_pages(client, build_query(limit=20, sort_direction="asc")):
            got += [r.id for r in page.requests if r.id]
            arrivals = _new_seeds(fresh_world, 3, next_seq)
            next_seq += 3
            seed_state(state, arrivals)
            inserted += [s.id for s in arrivals]
            inserted_before_fetch.append(len(inserted))
    seen_before_last_page = inserted_before_fetch[-2]
    assert got[: len(snapshot)] == snapshot
    assert got[len(snapshot) :] == inserted[:seen_before_last_page]
    assert len(set(got)) == len(got)


async def test_a_request_updated_while_paging_by_update_time_is_listed_once(
    fresh_world: SeededWorld,
) -> None:
    state = fresh_world.world.state
    assert state is not None
    stats = WalkStats()
    moved: str | None = None
    got: list[str] = []
    query = build_query(limit=25, sort_by="updatedAt", sort_direction="asc")
    async with fresh_world.client() as client:
        async for record in stream_records(client, query, stats=stats):
            assert record.id is not None
            got.append(record.id)
            if moved is None and record.status == "pending":
                moved = record.id
                state.advance(moved, Status.SUCCESS)  # now the most recently updated
    assert moved is not None
    assert stats.duplicates == 1  # it came again at the end, and was dropped
    assert got.count(moved) == 1
    assert sorted(got) == sorted(s.id for s in fresh_world.seeds)


# -- PagedLoader -------------------------------------------------------------------------------


async def test_loader_fetches_only_the_pages_the_view_needs(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    loader = PagedLoader(client, build_query(status="success"), page_size=50)
    assert len(loader) == 0 and loader.pages_loaded == 0 and loader.has_more
    first = await loader.ensure(0)
    assert len(first) == 50 and loader.pages_loaded == 1
    assert await loader.ensure(49) == [] and loader.pages_loaded == 1
    await loader.ensure(45, margin=10)  # near the bottom: one more page, not all of them
    assert loader.pages_loaded == 2 and len(loader) == 100
    await loader.ensure(10**6)
    want = expected(seeded.seeds, where=lambda s: s.status == "success")
    assert [row.id for row in loader.rows] == want
    assert not loader.has_more and loader.pages_loaded == -(-len(want) // 50)
    assert await loader.load_next() == []

    by_id = {s.id: s for s in seeded.seeds}
    row = loader.row(7)
    seed = by_id[row.id]
    assert row.route == f"{seed.origin}->{seed.destination}"
    assert row.amount.endswith(" USDC")
    assert row.in_hashes == tuple(seed.in_hashes) and row.out_hashes == tuple(seed.out_hashes)
    assert row.cells()[0] == row.short_id and row.short_id != row.id
    assert loader.index_of(row.id) == 7
    # rows keep the record as its wire text (a fraction of a parsed record's memory) and give
    # back exactly what the service sent
    assert isinstance(row.source, str)
    fetched = (await client.list_requests(build_query(id=row.id))).requests[0]
    assert row.record.to_wire() == fetched.to_wire()


async def test_loader_reset_drops_a_page_still_on_its_way(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    loader = PagedLoader(client, build_query(status="refund"), page_size=10)
    seeded.world.faults.inject("slow", 1, path="/requests/", delay=0.5)
    pending = asyncio.create_task(loader.load_next())
    await asyncio.sleep(0)  # the task runs up to its request, which the fault holds back
    assert loader.is_loading
    loader.reset(build_query(status="failure"))
    assert await pending == []
    assert len(loader) == 0 and loader.pages_loaded == 0
    await loader.ensure(0)
    failures = expected(seeded.seeds, where=lambda s: s.status == "failure")
    assert [row.id for row in loader.rows] == failures[:10]


async def test_loader_failure_leaves_it_as_it_was(seeded: SeededWorld) -> None:
    async with seeded.client(retry=NO_RETRY) as client:
        loader = PagedLoader(client, build_query(status="pending"), page_size=20)
        await loader.ensure(0)
        seeded.world.faults.inject("malformed", 1, path="/requests/")
        with pytest.raises(MalformedResponseError):
            await loader.load_next()
        assert len(loader) == 20 and loader.pages_loaded == 1
        await loader.load_next()  # the same cursor again
    want = expected(seeded.seeds, where=lambda s: s.status == "pending")
    assert [row.id for row in loader.rows] == want[:40]


async def test_check_newer_finds_arrivals_and_status_changes(fresh_world: SeededWorld) -> None:
    state = fresh_world.world.state
    assert state is not None
    async with fresh_world.client() as client:
        loader = PagedLoader(client, page_size=20)
        await loader.ensure(30)
        assert len(loader) == 40
        changing = next(row for row in loader.rows[:20] if row.status == "pending")
        state.advance(changing.id, Status.SUCCESS)
        arrivals = _new_seeds(fresh_world, 2, len(fresh_world.seeds) + 1)
        seed_state(state, arrivals)

        newer = await loader.check_newer()
        assert [row.id for row in newer.added] == [arrivals[1].id, arrivals[0].id]
        assert [row.id for row in newer.changed] == [changing.id]
        assert not newer.overflow
        assert [row.id for row in loader.rows[:2]] == [arrivals[1].id, arrivals[0].id]
        assert loader.row(loader.index_of(changing.id) or 0).status == "success"
        assert len(loader) == 42

        flood = _new_seeds(fresh_world, 25, len(fresh_world.seeds) + 3)
        seed_state(state, flood)
        newer = await loader.check_newer()
        assert newer.overflow and newer.added == []  # more than a page: the screen refreshes
        await loader.refresh()
        assert loader.row(0).id == flood[-1].id and loader.pages_loaded == 1


async def test_repeated_cursor_is_an_error_not_a_loop() -> None:
    record = {"id": "0x" + "ab" * 32, "status": "success", "createdAt": "2024-05-01T00:00:00Z"}
    calls = 0

    async def listing(request: web.Request) -> web.Response:
        nonlocal calls
        calls += 1
        return web.json_response({"requests": [record], "continuation": "same-cursor"})

    app = web.Application()
    app.router.add_get("/requests/v2", listing)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with ServiceClient(f"http://127.0.0.1:{port}") as client:
            pages = 0
            with pytest.raises(CursorLoopError) as walked:
                async for _ in walk_pages(client, build_query()):
                    pages += 1
            assert pages == 2 and calls == 2
            assert walked.value.path == "/requests/v2"  # the listing that answered (v3 is 404)
            # the client's own iterator goes through the same loop and ends the same way
            pages = 0
            with pytest.raises(CursorLoopError) as iterated:
                async for _ in client.iter_pages(build_query()):
                    pages += 1
            assert pages == 2 and iterated.value.cursor == walked.value.cursor == "same-cursor"
            loader = PagedLoader(client)
            await loader.load_next()
            with pytest.raises(CursorLoopError):
                await loader.load_next()
            assert len(loader) == 1
    finally:
        await runner.cleanup()


# -- export ------------------------------------------------------------------------------------


async def test_export_csv_streams_every_row_of_the_filter(
    seeded: SeededWorld, client: ServiceClient, tmp_path: Path
) -> None:
    target = tmp_path / "history.csv"
    progress: list[int] = []
    result = await export_history(
        client, build_query(limit=50, continuation="ignored"), target, on_progress=progress.append
    )
    want = expected(seeded.seeds)
    assert result.rows == len(want) and result.pages == len(want) // 50 and result.format == "csv"
    with target.open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [row[0] for row in rows[1:]] == want
    assert progress == sorted(progress) and progress[-1] == len(want) and len(progress) > 10
    by_id = {s.id: s for s in seeded.seeds}
    index = CSV_COLUMNS.index("inTxHashes")
    for row in rows[1:]:
        assert row[index].split(";") == by_id[row[0]].in_hashes


@pytest.mark.parametrize("name", ["history.jsonl", "history.json"])
async def test_export_json_forms(
    name: str, seeded: SeededWorld, client: ServiceClient, tmp_path: Path
) -> None:
    target = tmp_path / name
    result = await export_history(client, build_query(limit=50, status="refund"), target)
    text = target.read_text()
    if name.endswith(".jsonl"):
        records = [json.loads(line) for line in text.splitlines()]
    else:
        records = json.loads(text)
    want = expected(seeded.seeds, where=lambda s: s.status == "refund")
    assert [r["id"] for r in records] == want and result.rows == len(want)
    first = (await client.list_requests(build_query(limit=1, status="refund"))).requests[0]
    assert records[0] == first.to_wire()  # the record exactly as the service sent it


async def test_export_that_fails_midway_leaves_no_file(seeded: SeededWorld, tmp_path: Path) -> None:
    target = tmp_path / "broken.csv"

    def break_next_page(rows: int) -> None:
        seeded.world.faults.inject("malformed", 1, path="/requests/")

    async with seeded.client(retry=NO_RETRY) as client:
        with pytest.raises(MalformedResponseError):
            await export_history(client, build_query(limit=50), target, on_progress=break_next_page)
    assert _names(tmp_path) == []  # neither the file nor its partial
    seeded.world.faults.clear()


async def test_export_refuses_to_overwrite_or_guess(client: ServiceClient, tmp_path: Path) -> None:
    taken = tmp_path / "taken.csv"
    taken.write_text("mine")
    with pytest.raises(InputError, match="already exists"):
        await export_history(client, build_query(), taken)
    assert taken.read_text() == "mine"
    with pytest.raises(InputError, match=r"\.csv, \.jsonl or \.json"):
        await export_history(client, build_query(), tmp_path / "history.xlsx")
    result = await export_history(client, build_query(limit=5), taken, overwrite=True, max_pages=1)
    assert result.rows == 5 and taken.read_text().startswith("id,status,")


# -- explorer links ----------------------------------------------------------------------------


async def test_explorer_links_follow_the_chains_templates(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    links = await ExplorerLinks.load(client)
    chains = await client.chains()
    base = chains.by_id(8453)
    assert base is not None and base.explorer_url
    tx = "0x" + "12" * 32
    assert links.tx_url(8453, tx) == base.explorer_url.rstrip("/") + "/tx/" + tx
    assert links.address_url(8453, seeded.world.wallet_address) == (
        base.explorer_url.rstrip("/") + "/address/" + seeded.world.wallet_address
    )
    assert links.tx_url(424242, tx) is None
    record = (await client.requests(build_query(status="success", limit=1))).requests[0]
    legs = links.record_links(record)
    assert [leg.direction for leg in legs] == ["in"] * len(record.in_tx_hashes) + ["out"] * len(
        record.out_tx_hashes
    )
    assert all(leg.url and leg.hash in leg.url and "{" not in leg.url for leg in legs)
