"""The tracker tests' own demo world, so their webhook endpoint and rate limit settings touch no
other test directory's world.

- keyed rate limit 6,000 a minute (100/s): the load test's budget of 80/s stays below it;
- the webhook sender retries after 0.05 s, 0.1 s, ... (at most 0.5 s) instead of 0.5 s, 1 s, ...
  so a receiver that comes back is reached within the test's patience.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from crossdeck.sim.world import World

from .support import KEYED_PER_MINUTE, CountingTransport, RequestMaker


@pytest.fixture(scope="session")
def status_world() -> Iterator[World]:
    world = World(speed=0, rate_limits=(600, KEYED_PER_MINUTE))
    world.start_blocking()

    async def quick_retries() -> None:
        sender = world.webhook_sender
        assert sender is not None
        sender.base_delay = 0.05
        sender.max_delay = 0.5

    world.call(quick_retries)
    try:
        yield world
    finally:
        world.stop()


@pytest.fixture(scope="session")
def maker(status_world: World) -> RequestMaker:
    return RequestMaker(status_world)


@pytest.fixture
def no_webhooks(status_world: World) -> Iterator[World]:
    """The world with no webhook endpoint for either key (and none left behind)."""

    async def clear() -> None:
        sender = status_world.webhook_sender
        assert sender is not None
        sender.remove_endpoint(status_world.api_key)
        sender.remove_endpoint(status_world.other_api_key)

    status_world.call(clear)
    yield status_world
    status_world.call(clear)


@pytest.fixture
async def transport() -> AsyncIterator[CountingTransport]:
    counting = CountingTransport()
    yield counting
    await counting.aclose()
