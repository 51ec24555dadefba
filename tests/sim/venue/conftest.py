"""Fixtures for the sim's venue and webhook sender: real aiohttp servers on 127.0.0.1:0."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
from aiohttp import web

from crossdeck.sim.brand import BRANDS
from crossdeck.sim.venue import VenueLedger, make_venue_app
from helpers.servers import start_app

from .support import SOLVER, Venue

VenueFactory = Callable[..., Awaitable[Venue]]


@pytest.fixture
async def make_venue() -> AsyncIterator[VenueFactory]:
    runners: list[web.AppRunner] = []
    async with httpx.AsyncClient(timeout=10) as http:

        async def factory(brand: str = "neutral", ledger: VenueLedger | None = None) -> Venue:
            ledger = ledger if ledger is not None else VenueLedger()
            ledger.open_account(SOLVER)  # the service's address has its account on the venue
            runner, url = await start_app(make_venue_app(ledger, BRANDS[brand]))
            runners.append(runner)
            return Venue(ledger, BRANDS[brand], url, http)

        yield factory
        for runner in runners:
            await runner.cleanup()


@pytest.fixture(params=["neutral", "public"])
async def venue(request: pytest.FixtureRequest, make_venue: VenueFactory) -> Venue:
    return await make_venue(request.param)
