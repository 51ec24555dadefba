"""Waiting for a condition instead of sleeping a fixed time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any


async def wait_until(
    condition: Callable[[], Any],
    what: str,
    *,
    within: float = 20.0,
    step: float = 0.02,
    pause: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    tolerate: tuple[type[Exception], ...] = (),
    context: Callable[[], str] | None = None,
) -> Any:
    """Let the loop run (`pause(step)`, an app's pilot can stand in for asyncio.sleep) until
    `condition()` is truthy, and return its value. An error of a `tolerate` type counts as not
    yet (a widget not mounted yet). Past `within` seconds, fail naming `what`, with `context()`
    (what the screen shows, say) when given."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        await pause(step)
        try:
            value = condition()
        except tolerate:
            value = None
        if value:
            return value
        if loop.time() > deadline:
            more = f"\n{context()}" if context is not None else ""
            raise AssertionError(f"timed out after {within}s waiting for {what}{more}")


class SleepRecorder:
    """Stands in for asyncio.sleep in a retry policy: records each requested delay and yields
    without waiting, so a test reads the backoff instead of sitting through it."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)
