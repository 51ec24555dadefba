from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount

from crossdeck.retry import RetryPolicy

from .venue_server import FakeVenue

# anvil/hardhat account #0 and #1: publicly known test keys
KEY_0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
KEY_1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


@pytest.fixture
def wallet() -> LocalAccount:
    return Account.from_key(KEY_0)


@pytest.fixture
def other_wallet() -> LocalAccount:
    return Account.from_key(KEY_1)


@pytest.fixture
async def venue() -> AsyncIterator[FakeVenue]:
    fake = FakeVenue()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def retry(sleeps: SleepRecorder) -> RetryPolicy:
    return RetryPolicy(max_attempts=3, base_delay=0.1, max_delay=1.0, jitter=False, sleep=sleeps)
