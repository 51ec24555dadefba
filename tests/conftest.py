"""Shared fixtures: the demo world, on both chain backends.

- ``world``: a py-evm world for the whole session (speed 0: no pacing).
- ``world_anvil``: the same world on anvil (``CROSSDECK_ANVIL`` or tools/node_modules/.bin/anvil).
  A missing anvil FAILS the test with how to install it; it never skips (CI installs anvil).
- ``any_world``: parametrized over both; the anvil half carries the ``anvil`` marker so it can be
  selected (``-m anvil``) or left out (``-m "not anvil"``). Both run by default.
- ``world_file``: the world's JSON written to a file, for ``--world PATH`` / ``CROSSDECK_WORLD``.

The worlds start lazily, the first time a test asks for one, and are shared by every test of
the session: a test makes its own accounts (or reads balance deltas) instead of assuming a
fresh world.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "anvil: runs against the anvil chain backend (CI installs anvil)"
    )


def _require_anvil() -> None:
    from crossdeck.sim.chains.anvil import AnvilNotFound, find_anvil

    try:
        find_anvil()
    except AnvilNotFound as exc:
        pytest.fail(
            f"anvil is required for this test and was not found: {exc}. Install it with "
            "./scripts/bootstrap.sh --tools (or set CROSSDECK_ANVIL to the anvil binary).",
            pytrace=False,
        )


def _world(backend: str) -> Iterator[object]:
    from crossdeck.sim.world import World

    world = World(backend=backend, speed=0)
    world.start_blocking()
    try:
        yield world
    finally:
        world.stop()


@pytest.fixture(scope="session")
def world() -> Iterator[object]:
    yield from _world("py-evm")


@pytest.fixture(scope="session")
def world_anvil() -> Iterator[object]:
    _require_anvil()
    yield from _world("anvil")


@pytest.fixture(
    scope="session",
    params=[pytest.param("py-evm"), pytest.param("anvil", marks=pytest.mark.anvil)],
)
def any_world(request: pytest.FixtureRequest) -> object:
    name = "world" if request.param == "py-evm" else "world_anvil"
    return request.getfixturevalue(name)


@pytest.fixture
def world_file(world: object, tmp_path: Path) -> Path:
    path = tmp_path / "world.json"
    path.write_text(json.dumps(world.info))  # type: ignore[attr-defined]
    return path
