"""The browser page's API driven over real HTTP by a client that plays the page (no Chromium):
what a wallet says back reaches the terminal only as printable text, and the page is gone once
the signer is closed."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from crossdeck.wallet.browser import BrowserSigner, BrowserWalletError

ACCOUNT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


async def connect() -> tuple[BrowserSigner, httpx.AsyncClient, str]:
    """A signer whose page a plain HTTP client connected to, as the page's script does."""
    urls: list[str] = []
    announced = asyncio.Event()

    def announce(url: str) -> None:
        urls.append(url)
        announced.set()

    starting = asyncio.create_task(
        BrowserSigner.start(announce=announce, open_browser=False, connect_timeout=10)
    )
    await asyncio.wait_for(announced.wait(), 10)
    url = urls[0]
    origin = url.rsplit("/", 1)[0]
    client = httpx.AsyncClient(headers={"Origin": origin}, timeout=20)
    reply = await client.post(
        f"{url}/api/connected", json={"accounts": [ACCOUNT], "chainId": "0x1"}
    )
    assert reply.status_code == 200, reply.text
    return await starting, client, url


async def answer_next(client: httpx.AsyncClient, url: str, answer: dict[str, Any]) -> None:
    while True:
        task = (await client.post(f"{url}/api/next", json={})).json()["task"]
        if task is not None:
            break
    reply = await client.post(f"{url}/api/answer", json={"id": task["id"], **answer})
    assert reply.status_code == 200, reply.text


async def test_a_wallet_error_reaches_the_terminal_without_its_escape_sequences() -> None:
    signer, client, url = await connect()
    try:
        hostile = "boom\x1b]0;owned\x07\x1b[2J\x1b[31m red\u202e"
        page = asyncio.create_task(
            answer_next(client, url, {"error": {"code": -32000, "message": hostile}})
        )
        with pytest.raises(BrowserWalletError) as caught:
            await signer.sign_message("hello")
        await page
        message = str(caught.value)
        assert "boom" in message and "red" in message
        assert all(c.isprintable() for c in message), ascii(message)
    finally:
        await client.aclose()
        await signer.aclose()


async def test_nothing_is_served_once_the_signer_is_closed() -> None:
    signer, client, url = await connect()
    assert (await client.get(url)).status_code == 200
    await signer.aclose()
    try:
        with pytest.raises(httpx.ConnectError):
            await client.get(url)
    finally:
        await client.aclose()
