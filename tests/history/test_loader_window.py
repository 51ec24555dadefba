"""PagedLoader with a window (what the History screen uses): at most K pages held however far it
pages, pages before the window read again by the cursor kept for them (one request a page),
a page that changed when read again, and arrivals told once after the first page left."""

from __future__ import annotations

from typing import Any

import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.history import PagedLoader, build_query
from crossdeck.sim.service.state import Status

from .conftest import SeededWorld
from .seeding import expected, make_seeds, seed_state


def _count_fetches(client: ServiceClient) -> list[Any]:
    calls: list[Any] = []
    original = client.list_requests

    async def counting(query: Any = None) -> Any:
        calls.append(query)
        return await original(query)

    client.list_requests = counting  # type: ignore[method-assign]
    return calls


def _held(loader: PagedLoader) -> list[str]:
    return [row.id for row in loader.rows]


async def test_window_holds_at_most_k_pages_and_reads_earlier_pages_again(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    with pytest.raises(ValueError, match="window_pages"):
        PagedLoader(client, window_pages=1)
    want = expected(seeded.seeds, where=lambda s: s.status == "success")
    size, window = 20, 3
    assert len(want) > 4 * size * window  # pages far past the window
    loader = PagedLoader(client, build_query(status="success"), page_size=size, window_pages=window)
    calls = _count_fetches(client)

    # forward to the end: never more than the window, always the listing's rows at `offset`
    passed: list[str] = []
    while loader.has_more:
        passed += [row.id for row in await loader.load_next()]
        assert len(loader) <= size * window
        assert _held(loader) == want[loader.offset : loader.offset + len(loader)]
        assert loader.index_of(loader.row(0).id) == 0
    assert passed == want and loader.complete and loader.rows_seen == len(want)
    assert loader.offset == len(want) - len(loader) and loader.has_earlier
    assert len(calls) == -(-len(want) // size)
    assert await loader.load_next() == []

    # back to the start: each earlier page is one request (its kept cursor), the window slides
    calls.clear()
    steps = 0
    while loader.has_earlier:
        before = loader.offset
        got = [row.id for row in await loader.load_previous()]
        steps += 1
        assert got == want[loader.offset : before] and len(calls) == steps
        assert len(loader) <= size * window
        assert _held(loader) == want[loader.offset : loader.offset + len(loader)]
    assert loader.offset == 0 and _held(loader) == want[: size * window]
    assert calls[-1].continuation is None  # the first page needs no cursor
    assert await loader.load_previous() == []

    # and forward again over pages read before: the kept cursors, the same rows
    await loader.ensure(size * window + 5)
    assert _held(loader) == want[size : size * (window + 1)] and loader.has_earlier


async def test_a_page_that_changed_when_read_again_restarts_the_window_there(
    fresh_world: SeededWorld,
) -> None:
    state = fresh_world.world.state
    assert state is not None
    size = 10
    query = build_query(sort_by="updatedAt", sort_direction="asc")
    async with fresh_world.client() as client:
        loader = PagedLoader(client, query, page_size=size, window_pages=2)
        await loader.ensure(4 * size - 1)  # pages 0-3 read; 2 and 3 held
        assert loader.offset == 2 * size
        # a request on page 1 is updated: with updatedAt ascending it moves to the end, so
        # page 1 read again ends one row later than its kept cursor says
        by_id = {seed.id: seed for seed in fresh_world.seeds}
        page_1 = expected(fresh_world.seeds, sort_by="updatedAt", direction="asc")[size : 2 * size]
        moving = next(i for i in page_1[:-1] if by_id[i].status == "pending")
        state.advance(moving, Status.SUCCESS)
        got = [row.id for row in await loader.load_previous()]
        listing = await client.list_requests(query.model_copy(update={"limit": 5 * size}))
        now = [record.id for record in listing.requests]
        assert moving not in got and got == now[size : 2 * size]
        assert _held(loader) == got and loader.offset == size and loader.has_more
        assert not loader.complete
        # on from the page's new continuation: no gap, no repeat
        await loader.load_next()
        assert _held(loader)[size:] == now[2 * size : 3 * size]


async def test_arrivals_are_told_once_after_the_first_page_left_the_window(
    fresh_world: SeededWorld,
) -> None:
    state = fresh_world.world.state
    assert state is not None
    async with fresh_world.client() as client:
        loader = PagedLoader(client, page_size=20, window_pages=2)
        await loader.ensure(3 * 20)  # the first page is no longer held
        assert loader.has_earlier
        first = await loader.check_newer()
        assert first.added == [] and first.changed == [] and not first.overflow

        arrivals = make_seeds(
            3, fresh_world.world.wallet_address, start_seq=len(fresh_world.seeds) + 1, rng_seed=5
        )
        seed_state(state, arrivals)
        newer = await loader.check_newer()
        assert [row.id for row in newer.added] == [a.id for a in reversed(arrivals)]
        assert (await loader.check_newer()).added == []  # told once
        held = _held(loader)
        assert not set(held) & {a.id for a in arrivals}  # reported, not put into the window

        flood = make_seeds(
            25, fresh_world.world.wallet_address, start_seq=len(fresh_world.seeds) + 4, rng_seed=6
        )
        seed_state(state, flood)
        assert (await loader.check_newer()).overflow
        await loader.refresh()
        assert loader.row(0).id == flood[-1].id and loader.offset == 0
