from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from crossdeck.retry import RetryPolicy
from helpers.waiting import SleepRecorder

from .server import ScriptedServer


@pytest.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    scripted = ScriptedServer()
    await scripted.start()
    try:
        yield scripted
    finally:
        await scripted.stop()


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def retry(sleeps: SleepRecorder) -> RetryPolicy:
    """4 attempts, deterministic backoff 0.1, 0.2, 0.4 (no jitter), recorded not slept."""
    return RetryPolicy(max_attempts=4, base_delay=0.1, max_delay=1.0, jitter=False, sleep=sleeps)
