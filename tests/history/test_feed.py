"""`HistoryFeed`, the History screen's listing without textual, against the world: the window
it holds and what the view must do with each read (append, or redraw with how far the rows
moved), the 'failed' quick filter kept here and read on for, the newer check, child lookups and
their cache, the status line, the time limit on each read, and what is said with no listing."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import HistoryNeedsApiKey
from crossdeck.base.secret import Secret
from crossdeck.history import FilterError, QuickFilter, counts_as_failed, summarize
from crossdeck.history import feed as feed_module
from crossdeck.history.feed import (
    CHILDREN,
    LISTING,
    NEWER,
    FeedWindow,
    HistoryFeed,
    no_listing_text,
)
from crossdeck.sim.service.state import Status

from .conftest import SeededWorld
from .seeding import expected, make_seeds, seed_state

T = TypeVar("T")
NO_FILTERS: dict[str, str | bool] = {}


def _every(feed: HistoryFeed) -> Any:
    return feed.build_query(NO_FILTERS, own_api_key=False, api_key=None, wallet=None)


async def test_paging_holds_a_window_and_says_how_the_view_changes(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    every = expected(seeded.seeds)
    size, pages = 20, 3
    feed = HistoryFeed(page_size=size, window_pages=pages)
    assert not feed.started and feed.query_in_use is None
    feed.start(client, _every(feed))
    assert feed.query_in_use is not None and feed.query_in_use.limit == size

    first = feed.take(await feed.load(reset=True))
    assert first.cleared and not first.slid and [r.id for r in first.added] == every[:size]
    assert feed.ids == every[:size] and feed.offset == 0 and feed.has_more
    assert feed.status_text().startswith(f"{size} request(s), newest first by createdAt")

    # the window grows: each page is appended at the end
    for page in range(1, pages):
        change = feed.take(await feed.load())
        assert (
            not change.cleared
            and [r.id for r in change.added] == every[page * size : (page + 1) * size]
        )
    assert feed.ids == every[: pages * size] and not feed.has_earlier

    # past the window it slides: the view redraws, the rows it held a page higher
    window = await feed.load()
    assert len(window.rows) == pages * size and window.offset == size and window.earlier
    slid = feed.take(window)
    assert slid.slid and slid.cleared and slid.shift == -size and slid.before == pages * size
    assert feed.ids == every[size : (pages + 1) * size] and feed.has_earlier
    assert f"requests {size + 1}-{(pages + 1) * size} of ≥" in feed.status_text()
    assert "earlier rows: scroll up or Home" in feed.status_text()
    assert feed.can_load(earlier=True) and feed.can_load()

    # back: the page before is read again, the rows held move a page lower, the top is read
    back = await feed.load(earlier=True)
    assert back.top_read and back.offset == 0
    change = feed.take(back)
    assert change.slid and change.shift == size
    assert feed.ids == every[: pages * size] and not feed.has_earlier
    assert not feed.can_load(earlier=True)


async def test_a_window_with_nothing_in_common_says_so(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    feed = HistoryFeed(page_size=10)
    feed.start(client, _every(feed))
    feed.take(await feed.load(reset=True))
    other = await client.list_requests(_every(feed).model_copy(update={"status": "failure"}))
    rows = [summarize(record, compact=True) for record in other.requests]
    assert not set(feed.ids) & {row.id for row in rows}
    change = feed.take(FeedWindow(rows, reset=False, has_more=True, offset=40, earlier=True))
    assert change.slid and change.shift is None and change.before == 10
    assert feed.ids == [row.id for row in rows] and feed.offset == 40


async def test_failed_keeps_the_failures_and_reads_on_for_a_page_of_them(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    feed = HistoryFeed(page_size=20, window_pages=4)
    feed.toggle_quick("failed")
    query = _every(feed)
    assert query.status is None  # every status is listed; the feed keeps the failures
    feed.start(client, query)
    window = await feed.load(reset=True)
    loader = feed.loader
    assert loader is not None and loader.pages_loaded > 1  # read on past the first page
    failed = expected(seeded.seeds, where=lambda s: s.status in ("failure", "refund"))
    listed = [row.id for row in loader.rows]
    assert [row.id for row in window.rows] == [i for i in listed if i in set(failed)]
    assert len(window.rows) >= 20 or loader.pages_loaded == 4
    # the record-level rule (for an export of the filtered rows) agrees with the row's
    for row in loader.rows:
        assert feed.keep(row) == feed.keeps_record(row.record)
        assert feed.keep(row) == (row.status in ("failure", "refund"))
    assert all(counts_as_failed(row.status, "SLIPPAGE") for row in window.rows)
    feed.take(window)
    assert "quick: failed" in feed.status_text()

    # 'refunded' turns 'failed' off: the service filters, the feed keeps every row
    feed.toggle_quick(QuickFilter.REFUNDED)
    assert feed.quick == {QuickFilter.REFUNDED} and not feed.keeps_failed
    feed.apply(_every(feed))
    window = await feed.load(reset=True)
    assert window.rows and all(row.status == "refund" for row in window.rows)
    feed.toggle_quick("refunded")
    assert feed.quick == set()


def test_bad_filters_name_their_field() -> None:
    feed = HistoryFeed()
    with pytest.raises(FilterError) as no_key:
        feed.build_query(NO_FILTERS, own_api_key=True, api_key=None, wallet=None)
    assert no_key.value.field == "apiKey" and "crossdeck apikey set" in str(no_key.value.hint)
    with pytest.raises(FilterError) as bad_user:
        feed.build_query({"user": "0x12"}, own_api_key=False, api_key=None, wallet=None)
    assert bad_user.value.field == "user"
    feed.toggle_quick("mine")
    with pytest.raises(FilterError) as no_wallet:
        feed.build_query(NO_FILTERS, own_api_key=False, api_key=None, wallet=None)
    assert no_wallet.value.field == "user"
    wallet = "0x" + "ab" * 20
    query = feed.build_query(NO_FILTERS, own_api_key=True, api_key=Secret("k-1"), wallet=wallet)
    assert query.user == wallet and query.api_key is not None
    feed.toggle_sort_by()
    feed.toggle_direction()
    query = feed.build_query(NO_FILTERS, own_api_key=False, api_key=None, wallet=wallet)
    assert (query.sort_by, query.sort_direction) == ("updatedAt", "asc")


async def test_newer_rows_are_counted_and_changed_rows_replaced(
    fresh_world: SeededWorld,
) -> None:
    state = fresh_world.world.state
    assert state is not None
    async with fresh_world.client() as client:
        feed = HistoryFeed(page_size=20)
        feed.start(client, _every(feed))
        feed.take(await feed.load(reset=True))
        assert feed.wants_newer_check
        nothing = await feed.check_newer()
        assert nothing.changed == [] and not nothing.status_changed

        pending = next(i for i in feed.ids if feed.rows[i].status == "pending")
        children = await feed.load_children(client, pending)
        assert feed.known_children(pending) is children
        state.advance(pending, Status.SUCCESS)
        arrivals = make_seeds(
            3, fresh_world.world.wallet_address, start_seq=len(fresh_world.seeds) + 1, rng_seed=5
        )
        seed_state(state, arrivals)
        seen = await feed.check_newer()
        assert [row.id for row in seen.changed] == [pending] and seen.status_changed
        assert feed.rows[pending].status == "success"
        assert feed.known_children(pending) is None  # looked up again with the changed row
        assert feed.new_above == 3 and "3 new on top: ctrl+r shows them" in feed.status_text()
        assert not set(feed.ids) & {a.id for a in arrivals}  # not pushed in under the cursor

        feed.take(await feed.load(reset=True))  # the first page as it is now
        assert feed.new_above == 0 and feed.ids[:3] == [a.id for a in reversed(arrivals)]

        feed.toggle_direction()  # oldest first: new requests come last, no check
        feed.apply(_every(feed))
        feed.take(await feed.load(reset=True))
        assert not feed.wants_newer_check


async def test_children_are_looked_up_once_and_the_oldest_forgotten(
    fresh_world: SeededWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "CHILD_CACHE_SIZE", 2)
    parents = [s for s in fresh_world.seeds if any(c.parent_id == s.id for c in fresh_world.seeds)]
    assert len(parents) >= 3
    async with fresh_world.client() as client:
        feed = HistoryFeed()
        feed.start(client, _every(feed))
        first = await feed.load_children(client, parents[0].id)
        [child] = first.rows
        assert child.id == next(c.id for c in fresh_world.seeds if c.parent_id == parents[0].id)
        await feed.load_children(client, parents[1].id)
        await feed.load_children(client, parents[2].id)
        assert feed.known_children(parents[0].id) is None  # the oldest went
        assert feed.known_children(parents[2].id) is not None
        feed.forget_children()
        assert feed.known_children(parents[2].id) is None


async def test_every_read_goes_through_the_wait_it_was_given(fresh_world: SeededWorld) -> None:
    waited: list[str] = []

    async def wait(reading: Awaitable[T], *, what: str) -> T:
        waited.append(what)
        return await reading

    parent = next(s for s in fresh_world.seeds if s.parent_id is None)
    async with fresh_world.client() as client:
        feed = HistoryFeed(page_size=10, wait=wait)
        with pytest.raises(RuntimeError, match="start"):
            await feed.load(reset=True)
        feed.start(client, _every(feed))
        feed.take(await feed.load(reset=True))
        await feed.check_newer()
        await feed.load_children(client, parent.id)
    assert waited == [LISTING, NEWER, CHILDREN]


async def test_no_listing_for_this_profile_is_said_plainly(start_world: Any) -> None:
    with start_world("py-evm", requests_v2=False) as world:
        async with ServiceClient(world.service_url, api_key=None) as client:
            feed = HistoryFeed()
            feed.start(client, _every(feed))
            with pytest.raises(HistoryNeedsApiKey) as error:
                await feed.load(reset=True)
    text = no_listing_text(error.value)
    assert text is not None and "it needs an API key" in text
    assert "crossdeck apikey set" in text
    assert no_listing_text(RuntimeError("other")) is None
