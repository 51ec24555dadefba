"""Helpers of the recorded-public-answers conformance tests: where the files are, a JSON
comparison that holds types exactly, the wallet substitution, and a server that replays a body.

The recorded answers live beside the checkout (`../shared/realdata`, see its SOURCES.md); a
missing folder fails the tests rather than skipping them, since then nothing would be checked.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

REALDATA_ENV = "CROSSDECK_REALDATA"


def realdata_dir() -> Path:
    configured = os.environ.get(REALDATA_ENV)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "realdata"


def load(name: str) -> Any:
    """A recorded answer by its path under realdata ('quote/x.json'); fails when missing."""
    path = realdata_dir() / name
    assert path.is_file(), f"recorded answer {path} is missing (set {REALDATA_ENV})"
    return json.loads(path.read_text())


def on_disk() -> set[str]:
    root = realdata_dir()
    return {p.relative_to(root).as_posix() for p in root.rglob("*.json")}


def json_differences(got: Any, want: Any, where: str = "$") -> list[str]:
    """Where two JSON values differ, in key names, nesting, JSON types or values (1 and "1",
    1 and 1.0, true and 1 all differ)."""
    if type(got) is not type(want):
        return [f"{where}: {type(want).__name__} {want!r} became {type(got).__name__} {got!r}"]
    if isinstance(want, dict):
        out = [f"{where}.{k}: lost" for k in want if k not in got]
        out += [f"{where}.{k}: added" for k in got if k not in want]
        for key in want:
            if key in got:
                out += json_differences(got[key], want[key], f"{where}.{key}")
        return out
    if isinstance(want, list):
        if len(got) != len(want):
            return [f"{where}: {len(want)} items became {len(got)}"]
        out = []
        for index, (a, b) in enumerate(zip(got, want, strict=True)):
            out += json_differences(a, b, f"{where}[{index}]")
        return out
    return [] if got == want else [f"{where}: {want!r} became {got!r}"]


def with_wallet(answer: Any, recorded: list[str], wallet: str) -> Any:
    """The answer with each recorded user address replaced by `wallet` everywhere it appears:
    fields in any letter case, and inside calldata (the 40 hex digits without 0x)."""
    text = json.dumps(answer)
    bare = wallet.lower().removeprefix("0x")
    for address in recorded:
        if re.fullmatch(r"0x[0-9a-fA-F]{40}", address):
            pattern = re.compile(re.escape(address.lower().removeprefix("0x")), re.IGNORECASE)
            text = pattern.sub(bare, text)
        else:  # a placeholder such as YOUR_WALLET_ADDRESS
            text = text.replace(f'"{address}"', f'"{wallet}"')
    return json.loads(text)


@contextmanager
def replay_server(routes: dict[str, tuple[int, Any]]) -> Iterator[str]:
    """A server on 127.0.0.1 (port 0), in its own thread, answering GET/POST `path` with the
    recorded (status, body) of `routes`; anything else is a 404. Yields its base URL."""
    ready = threading.Event()
    url: list[str] = []
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    async def answer(request: web.Request) -> web.Response:
        found = routes.get(request.path)
        if found is None:
            return web.json_response({"message": "not found"}, status=404)
        status, body = found
        return web.json_response(body, status=status)

    async def serve() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", answer)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        url.append(f"http://127.0.0.1:{port}")
        ready.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10), "the replay server did not start"
    try:
        yield url[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()


_ZERO = re.compile(r"0(\.0+)?")


def form(value: Any) -> str:
    """The JSON type of `value`, and for a string its form (address, bytes32, digits, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    text: str = value
    if text == "":
        return "empty"
    if re.fullmatch(r"0x\.+", text):
        return "placeholder"  # the docs' "0x..." for a hash or an address
    if _ZERO.fullmatch(text):
        return "zero"
    if re.fullmatch(r"0x[0-9a-fA-F]{40}", text):
        return "address"
    if re.fullmatch(r"0x[0-9a-fA-F]{64}", text):
        return "bytes32"
    if re.fullmatch(r"0x[0-9a-fA-F]*", text):
        return "hex"
    if re.fullmatch(r"-?\d+", text):
        return "digits"
    if re.fullmatch(r"-?\d+\.\d+", text):
        return "decimal"
    return "text"
