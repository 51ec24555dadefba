from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from track_support import API_KEY

from crossdeck.track.receiver import WebhookReceiver


@pytest.fixture
async def receiver() -> AsyncIterator[WebhookReceiver]:
    rx = WebhookReceiver(API_KEY)
    await rx.start()
    try:
        yield rx
    finally:
        await rx.stop()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as http:
        yield http
