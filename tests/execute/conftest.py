"""Executor fixtures: a `Kit` (fresh wallet + Executor + journal) against the demo world."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from execute_support import Kit


@pytest.fixture
def make_kit(tmp_path: Path) -> Callable[..., Kit]:
    made: list[Kit] = []

    def make(world: Any, **options: Any) -> Kit:
        kit = Kit(world, tmp_path / f"journal-{len(made)}.sqlite3", **options)
        made.append(kit)
        return kit

    make.made = made  # type: ignore[attr-defined]
    return make


@pytest.fixture
async def kit(any_world: Any, make_kit: Callable[..., Kit]) -> AsyncIterator[Kit]:
    made = make_kit(any_world)
    yield made
    for each in make_kit.made:  # type: ignore[attr-defined]
        await each.aclose()


@pytest.fixture
async def py_kit(world: Any, make_kit: Callable[..., Kit]) -> AsyncIterator[Kit]:
    """A `Kit` on the py-evm world only (for checks that do not depend on the chain node)."""
    made = make_kit(world)
    yield made
    for each in make_kit.made:  # type: ignore[attr-defined]
        await each.aclose()
