"""The browser page's API driven over real HTTP by a client that plays the page (no Chromium):
what a wallet says back reaches the terminal only as printable text, and the page is gone once
the signer is closed."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from crossdeck.wallet.browser import BrowserSigner, BrowserWalletError, BrowserWalletGone

ACCOUNT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


async def connect(gone_after: float = 45.0) -> tuple[BrowserSigner, httpx.AsyncClient, str]:
    """A signer whose page a plain HTTP client connected to, as the page's script does."""
    urls: list[str] = []
    announced = asyncio.Event()

    def announce(url: str) -> None:
        urls.append(url)
        announced.set()

    starting = asyncio.create_task(
        BrowserSigner.start(
            announce=announce, open_browser=False, connect_timeout=10, gone_after=gone_after
        )
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


async def sign_and_take(
    signer: BrowserSigner, client: httpx.AsyncClient, url: str
) -> tuple[asyncio.Task[bytes], dict[str, Any]]:
    """Ask for a message signature and take the task as the page does: (the signing, the task)."""
    signing = asyncio.create_task(signer.sign_message("hello"))
    task = None
    while task is None:
        task = (await client.post(f"{url}/api/next", json={})).json()["task"]
    return signing, task


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


async def test_a_poll_the_reloaded_page_dropped_does_not_swallow_the_task() -> None:
    signer, client, url = await connect()
    origin = url.rsplit("/", 1)[0]
    try:
        # the first page polls, then the tab reloads: its connection drops mid-poll, and the
        # server's handler, which aiohttp lets run on, still waits on the queue
        old = httpx.AsyncClient(headers={"Origin": origin}, timeout=30)
        dropped = asyncio.create_task(old.post(f"{url}/api/next", json={}))
        await asyncio.sleep(0.3)
        dropped.cancel()
        await old.aclose()
        await asyncio.sleep(0.2)
        polled = asyncio.create_task(client.post(f"{url}/api/next", json={}))
        await asyncio.sleep(0.2)
        signing = asyncio.create_task(signer.sign_message("hello"))
        # was {"task": None} after the poll's 15 s, the task lost and the run waiting forever
        task = (await asyncio.wait_for(polled, 20)).json()["task"]
        if task is None:  # the dead poll took it first and put it back: the next poll has it
            task = (await client.post(f"{url}/api/next", json={})).json()["task"]
        assert task is not None and task["method"] == "personal_sign"
        signing.cancel()
    finally:
        await client.aclose()
        await signer.aclose()


async def test_a_page_gone_mid_task_ends_the_run_though_a_new_page_polls() -> None:
    signer, client, url = await connect(gone_after=1.5)
    try:
        signing, _taken = await sign_and_take(signer, client, url)

        # the page that took it reloads: no more heartbeats for this task, but the new page
        # keeps calling (its polls; here faster than gone_after), which before kept the run
        # waiting forever
        async def new_page() -> None:
            while True:
                await client.post(f"{url}/api/alive", json={})
                await asyncio.sleep(0.3)

        talking = asyncio.create_task(new_page())
        try:
            with pytest.raises(BrowserWalletGone, match="stopped answering"):
                await asyncio.wait_for(signing, 15)
        finally:
            talking.cancel()
    finally:
        await client.aclose()
        await signer.aclose()


async def test_a_beating_page_keeps_its_task_alive() -> None:
    signer, client, url = await connect(gone_after=1.5)
    try:
        signing, task = await sign_and_take(signer, client, url)
        for _ in range(6):  # 3 s of the wallet's dialog open, beating as the page does
            await asyncio.sleep(0.5)
            await client.post(f"{url}/api/alive", json={"id": task["id"]})
        assert not signing.done()
        signature = "0x" + "11" * 65
        await client.post(f"{url}/api/answer", json={"id": task["id"], "result": signature})
        assert await asyncio.wait_for(signing, 5) == bytes.fromhex("11" * 65)
    finally:
        await client.aclose()
        await signer.aclose()
