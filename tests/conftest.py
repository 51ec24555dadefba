"""Shared fixtures: the demo world, on both chain backends.

- ``world``: a py-evm world for the whole session (speed 0: no pacing).
- ``world_anvil``: the same world on anvil (``CROSSDECK_ANVIL`` or tools/node_modules/.bin/anvil),
  one per module, so no anvil process outlives the module that used it. A missing anvil FAILS
  the test with how to install it; it never skips (CI installs anvil).
- ``any_world``: parametrized over both; the anvil half carries the ``anvil`` marker so it can be
  selected (``-m anvil``) or left out (``-m "not anvil"``). Both run by default.
- ``start_world``: ``with start_world(backend, **World options) as world:`` for a world of a
  fixture's own scope (anvil required the same way).
- ``world_file``: the world's JSON written to a file, for ``--world PATH`` / ``CROSSDECK_WORLD``.

The worlds start lazily, the first time a test asks for one, and are shared by the tests of
their scope: a test makes its own accounts (or reads balance deltas) instead of assuming a
fresh world.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

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


@contextmanager
def started_world(backend: str, **options: Any) -> Iterator[Any]:
    """A running `World` (speed 0 unless given) on `backend`, stopped on exit."""
    from crossdeck.sim.world import World

    if backend == "anvil":
        _require_anvil()
    world = World(backend=backend, **{"speed": 0, **options})
    world.start_blocking()
    try:
        yield world
    finally:
        world.stop()


@pytest.fixture(scope="session")
def start_world() -> Callable[..., AbstractContextManager[Any]]:
    """`with start_world("anvil") as w:` for fixtures that want a world of their own scope."""
    return started_world


@pytest.fixture(scope="session")
def world() -> Iterator[Any]:
    with started_world("py-evm") as running:
        yield running


@pytest.fixture(scope="module")
def world_anvil() -> Iterator[Any]:
    with started_world("anvil") as running:
        yield running


# the shared worlds' demo wallet starts with 100 native per chain, and many tests bridge from
# it directly: before each test on a shared world it holds at least this much (else it is put
# back to about 100), so no test fails for what the tests before it (in whatever order a worker
# runs them) spent
DEMO_FLOOR_WEI = 10 * 10**18


@pytest.fixture(autouse=True)
def _demo_wallet_keeps_its_floor(request: pytest.FixtureRequest) -> None:
    from crossdeck.sim.world import CHAIN_IDS
    from helpers.funding import demo_holds

    for name in ("world", "world_anvil", "any_world"):
        if name in request.fixturenames:
            shared = request.getfixturevalue(name)
            if not hasattr(shared, "wallet_key"):  # a module's own `world` (a world file, say)
                continue
            for chain_id in CHAIN_IDS:
                demo_holds(shared, chain_id, DEMO_FLOOR_WEI)


@pytest.fixture(
    scope="module",
    params=[pytest.param("py-evm"), pytest.param("anvil", marks=pytest.mark.anvil)],
)
def any_world(request: pytest.FixtureRequest) -> Any:
    name = "world" if request.param == "py-evm" else "world_anvil"
    return request.getfixturevalue(name)


@pytest.fixture
def world_file(world: Any, tmp_path: Path) -> Path:
    path = tmp_path / "world.json"
    path.write_text(json.dumps(world.info))
    return path
