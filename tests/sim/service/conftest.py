"""Fixtures for the service tests: the real aiohttp app on 127.0.0.1:0, driven with httpx.

Chains are absent here unless a test starts one: the quote engine reads them through a
``StaticChainReader`` (allowances and balances the test sets). Tests with a real py-evm chain
live in test_service_chain.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from aiohttp import web

from crossdeck.sim.brand import BRANDS
from crossdeck.sim.service import (
    ChainDirectory,
    QuoteEngine,
    ServiceConfig,
    ServiceState,
    StaticChainReader,
    make_service_app,
)
from helpers.servers import start_app

from .support import (
    DEMO_KEY,
    OTHER_API_KEY,
    FakeClock,
    Service,
    ServiceFactory,
    make_directory,
)


@pytest.fixture
async def make_service() -> AsyncIterator[ServiceFactory]:
    runners: list[web.AppRunner] = []
    async with httpx.AsyncClient(timeout=20) as http:

        async def factory(
            brand: str = "neutral",
            *,
            anonymous_per_minute: int = 10_000,
            keyed_per_minute: int = 100_000,
            state: ServiceState | None = None,
            clock: FakeClock | None = None,
            reader: StaticChainReader | None = None,
            directory: ChainDirectory | None = None,
        ) -> Service:
            clock = clock or FakeClock()
            reader = reader or StaticChainReader()
            state = state or ServiceState(":memory:", clock=clock)
            state.register_api_key("demo", DEMO_KEY)
            state.register_api_key("other", OTHER_API_KEY)
            directory = directory or make_directory(reader)
            engine = QuoteEngine(state, directory, BRANDS[brand])
            config = ServiceConfig(
                brand=BRANDS[brand],
                anonymous_per_minute=anonymous_per_minute,
                keyed_per_minute=keyed_per_minute,
            )
            runner, url = await start_app(make_service_app(state, engine, config))
            runners.append(runner)
            return Service(url, http, state, engine, reader, clock, BRANDS[brand])

        yield factory
        for runner in runners:
            await runner.cleanup()


@pytest.fixture
async def service(make_service: ServiceFactory) -> Service:
    return await make_service()
