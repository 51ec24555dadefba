"""A demo world seeded with thousands of requests, shared by the history tests of this folder.

The seeded world is read-only for the tests that share it; tests that add or change requests
take `fresh_world` (a small world of their own).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.retry import RetryPolicy
from crossdeck.sim.world import World

from .seeding import Seed, make_seeds, seed_state

SEEDED_COUNT = 2_000
# the listing reads thousands of rows per test run; the world's default limits are for demos
RATE_LIMITS = (100_000, 100_000)


@dataclass
class SeededWorld:
    world: World
    seeds: list[Seed]
    world_file: Path

    @property
    def url(self) -> str:
        return self.world.service_url

    def client(
        self, *, api_key: str | None = None, retry: RetryPolicy | None = None
    ) -> ServiceClient:
        key = self.world.api_key if api_key is None else api_key
        return ServiceClient(self.url, api_key=key or None, retry=retry)


def _state_dir() -> Path:
    # SQLite commits once per seeded request: on tmpfs that is ~0.3 ms, on disk several ms
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="crossdeck-history-", dir=base))


def _start(count: int, tmp: Path) -> tuple[World, list[Seed], Path, Path]:
    state_dir = _state_dir()
    world = World(speed=0, state_dir=state_dir, rate_limits=RATE_LIMITS)
    world.start_blocking()
    assert world.state is not None
    seeds = make_seeds(count, world.wallet_address)
    seed_state(world.state, seeds)
    world_file = tmp / "world.json"
    world_file.write_text(json.dumps(world.info))
    return world, seeds, world_file, state_dir


@pytest.fixture(scope="package")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeededWorld]:
    world, seeds, world_file, state_dir = _start(SEEDED_COUNT, tmp_path_factory.mktemp("seeded"))
    try:
        yield SeededWorld(world, seeds, world_file)
    finally:
        world.stop()
        shutil.rmtree(state_dir, ignore_errors=True)


@pytest.fixture
def fresh_world(tmp_path: Path) -> Iterator[SeededWorld]:
    world, seeds, world_file, state_dir = _start(300, tmp_path)
    try:
        yield SeededWorld(world, seeds, world_file)
    finally:
        world.stop()
        shutil.rmtree(state_dir, ignore_errors=True)


@pytest.fixture
async def client(seeded: SeededWorld) -> AsyncIterator[ServiceClient]:
    async with seeded.client() as service:
        yield service


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty config file and no CROSSDECK_* leaking in from the caller's environment."""
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    for name in list(os.environ):
        if (
            name.startswith("CROSSDECK_")
            and name != "CROSSDECK_CONFIG"
            and name != "CROSSDECK_ANVIL"
        ):
            monkeypatch.delenv(name)
