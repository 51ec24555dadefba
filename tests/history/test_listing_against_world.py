"""Every history filter, both sort keys and directions, against the seeded demo world.

Each listing is walked to its end (50 per page) and compared, ids in order, with the oracle in
`seeding.expected`: the exact requests, in the exact order, no duplicates, no gaps.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.history import (
    QuickFilter,
    WalkStats,
    apply_quick_filters,
    build_query,
    stream_records,
)
from crossdeck.models import RequestsQuery
from crossdeck.sim.world import DEMO_API_KEY, OTHER_API_KEY

from .conftest import SeededWorld
from .seeding import OTHER_USERS, Seed, expected

Case = Callable[[list[Seed], str], tuple[dict[str, Any], Callable[[Seed], bool]]]


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _with_two_in_hashes(seeds: list[Seed]) -> Seed:
    return next(s for s in seeds if len(s.in_hashes) == 2)


def _with_out_hash(seeds: list[Seed]) -> Seed:
    return next(s for s in seeds[900:] if s.out_hashes)


def _parent(seeds: list[Seed]) -> Seed:
    parents = {s.parent_id for s in seeds if s.parent_id}
    return next(s for s in seeds[600:] if s.id in parents)


def _address_with_children(seeds: list[Seed]) -> str:
    return next(s.deposit_address for s in seeds if s.parent_id and s.deposit_address)


CASES: dict[str, Case] = {
    "user other": lambda s, w: (
        {"user": OTHER_USERS[0]},
        lambda x: OTHER_USERS[0] in (x.user, x.recipient),
    ),
    "user wallet (checksummed)": lambda s, w: (
        {"user": w},
        lambda x: w.lower() in (x.user, x.recipient),
    ),
    # v3 has no `hash`: it is asked as `term`, which also matches a request id of that value
    # (the seeds' counter-made ids and hashes can collide; real 32-byte hashes and ids do not)
    "hash (second origin tx)": lambda s, w: (
        {"hash": _with_two_in_hashes(s).in_hashes[1]},
        lambda x: _with_two_in_hashes(s).in_hashes[1] in (*x.hashes, x.id),
    ),
    "hash (destination tx)": lambda s, w: (
        {"hash": _with_out_hash(s).out_hashes[0]},
        lambda x: _with_out_hash(s).out_hashes[0] in x.hashes,
    ),
    "origin chain": lambda s, w: ({"origin_chain": "1337"}, lambda x: x.origin == 1337),
    "destination chain": lambda s, w: ({"destination_chain": 999}, lambda x: x.destination == 999),
    "origin and destination": lambda s, w: (
        {"origin_chain": "8453", "destination_chain": "999"},
        lambda x: (x.origin, x.destination) == (8453, 999),
    ),
    "chain either direction": lambda s, w: (
        {"chain": "999"},
        lambda x: 999 in (x.origin, x.destination),
    ),
    "id": lambda s, w: ({"id": s[1234].id}, lambda x: x.id == s[1234].id),
    "id with children": lambda s, w: (
        {"id": _parent(s).id, "include_child_requests": True},
        lambda x: _parent(s).id in (x.id, x.parent_id),
    ),
    "order id": lambda s, w: (
        {"order_id": _parent(s).order_id},
        lambda x: x.order_id == _parent(s).order_id and x.parent_id is None,
    ),
    "start and end (ISO 8601)": lambda s, w: (
        {"start": _iso(s[300].created_ms), "end": _iso(s[700].created_ms)},
        lambda x: (
            s[300].created_ms // 1000 * 1000
            <= x.created_ms
            <= s[700].created_ms // 1000 * 1000 + 999
        ),
    ),
    "start (Unix seconds)": lambda s, w: (
        {"start": str(s[1500].created_ms // 1000)},
        lambda x: x.created_ms >= s[1500].created_ms // 1000 * 1000,
    ),
    "end (bare date: the whole day)": lambda s, w: (
        {"end": "2024-05-01"},
        lambda x: x.created_ms < 1_714_608_000_000,
    ),
    "start and end block": lambda s, w: (
        {"start_block": "1200", "end_block": 1400},
        lambda x: x.origin_block is not None and 1200 <= x.origin_block <= 1400,
    ),
    "referrer": lambda s, w: ({"referrer": "app-a"}, lambda x: x.referrer == "app-a"),
    "deposit address": lambda s, w: (
        {"deposit_address": _address_with_children(s)},
        lambda x: x.deposit_address == _address_with_children(s) and x.parent_id is None,
    ),
    "deposit address with children": lambda s, w: (
        {"deposit_address": _address_with_children(s), "include_child_requests": True},
        lambda x: x.deposit_address == _address_with_children(s),
    ),
    "api key": lambda s, w: ({"api_key_filter": OTHER_API_KEY}, lambda x: x.key_name == "other"),
    "combined": lambda s, w: (
        {"user": w, "status": "success", "chain": "8453", "referrer": "app-b"},
        lambda x: (
            w.lower() in (x.user, x.recipient)
            and x.status == "success"
            and 8453 in (x.origin, x.destination)
            and x.referrer == "app-b"
        ),
    ),
    **{
        f"status {status}": (lambda st: lambda s, w: ({"status": st}, lambda x: x.status == st))(
            status
        )
        for status in ("success", "failure", "refund", "pending", "depositing")
    },
}


async def _walk(client: ServiceClient, query: RequestsQuery) -> tuple[list[str], WalkStats]:
    stats = WalkStats()
    ids = [r.id async for r in stream_records(client, query, stats=stats)]
    return [i for i in ids if i is not None], stats


@pytest.mark.parametrize("name", sorted(CASES))
async def test_each_filter_lists_exactly_its_requests(
    name: str, seeded: SeededWorld, client: ServiceClient
) -> None:
    options, where = CASES[name](seeded.seeds, seeded.world.wallet_address)
    want = expected(seeded.seeds, where=where)
    assert want, f"the seeding gives case {name!r} nothing to find"
    got, stats = await _walk(client, build_query(limit=50, **options))
    assert got == want
    assert stats.duplicates == 0 and stats.pages == max(1, -(-len(want) // 50))


@pytest.mark.parametrize("sort_by", ["createdAt", "updatedAt"])
@pytest.mark.parametrize("direction", ["asc", "desc"])
async def test_whole_listing_in_both_directions_has_no_gaps_or_duplicates(
    sort_by: str, direction: str, seeded: SeededWorld, client: ServiceClient
) -> None:
    query = build_query(limit=50, sort_by=sort_by, sort_direction=direction)
    got, stats = await _walk(client, query)
    want = expected(seeded.seeds, sort_by=sort_by, direction=direction)
    assert len(want) == len(seeded.seeds) >= 2000
    assert got == want
    assert len(set(got)) == len(got) and stats.duplicates == 0
    assert stats.pages == len(want) // 50


async def test_order_data_and_authenticated_data_are_asked_for(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    plain = (await client.requests(build_query(limit=30))).requests
    rich = (
        await client.requests(
            build_query(limit=30, include_order_data=True, include_authenticated_data=True)
        )
    ).requests
    assert [r.id for r in plain] == [r.id for r in rich]
    assert all("orderData" not in r.to_wire() for r in plain)
    assert all("orderData" in r.to_wire() for r in rich)
    by_id = {s.id: s for s in seeded.seeds}
    # the demo key sees its own requests' authenticated fields, and only those
    for record in rich:
        own = by_id[record.id].key_name == "demo"
        assert ("authenticatedData" in record.to_wire()) is own


async def test_private_chains_filter_is_sent_and_paging_still_holds(
    seeded: SeededWorld, client: ServiceClient
) -> None:
    query = build_query(
        limit=50,
        status="pending",
        private_chains="123e4567-e89b-12d3-a456-426614174000, 00000000-0000-0000-0000-000000000001",
    )
    assert query.to_params()["privateChainsToInclude"].count(",") == 1
    got, _ = await _walk(client, query)
    assert got == expected(seeded.seeds, where=lambda x: x.status == "pending")


async def test_quick_filters_mine_and_failed(seeded: SeededWorld, client: ServiceClient) -> None:
    wallet = seeded.world.wallet_address
    base = build_query(limit=50, sort_direction="asc")
    query = apply_quick_filters(base, {QuickFilter.MINE, QuickFilter.FAILED}, wallet=wallet)
    got, _ = await _walk(client, query)
    # every status of mine: the screen keeps the failures, refunded ones too (counts_as_failed)
    assert query.status is None
    want = expected(
        seeded.seeds, where=lambda x: wallet.lower() in (x.user, x.recipient), direction="asc"
    )
    assert want and got == want
    refunded = apply_quick_filters(base, ["refunded"], wallet=None)
    got, _ = await _walk(client, refunded)
    assert got == expected(seeded.seeds, where=lambda x: x.status == "refund", direction="asc")


async def test_a_key_filter_by_another_key_than_the_callers(seeded: SeededWorld) -> None:
    async with seeded.client(api_key="") as anonymous:
        got, _ = await _walk(anonymous, build_query(limit=50, api_key_filter=DEMO_API_KEY))
    assert got == expected(seeded.seeds, where=lambda x: x.key_name == "demo")
