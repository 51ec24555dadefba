"""The loopback page that hands signatures and transactions to the user's browser wallet.

It listens on 127.0.0.1 only, on a free port (or the one asked for), and answers only at
`/<token>` and below, the token fresh from the OS's random source for each run. Besides the
token, every request must name this very host (`Host: 127.0.0.1:PORT`, against DNS rebinding)
and every API call must come from the page itself (`Origin: http://127.0.0.1:PORT`, a JSON
body): a page on another site that learns the port still gets 403. The token never reaches a
log (aiohttp's access log is off) or a Referer (`Referrer-Policy: no-referrer`).

The page (`page.html`) asks the server for the next task (a long poll), shows it in the words
the CLI and the app use, switches the wallet to the task's chain, hands it to the injected
EIP-1193 provider and posts the answer back. The server checks nothing of what the wallet
returns: `BrowserSigner` does (recovery to the connected account, the sent transaction held to
the guarded one).
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import secrets
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

# how long a poll for the next task is held open before it is answered "nothing yet"
POLL_SECONDS = 15.0
# the page says it is alive this often while a task waits in the wallet (page.html)
HEARTBEAT_SECONDS = 3.0
MAX_BODY_BYTES = 64 * 1024


@dataclass
class Task:
    """One request for the wallet: an EIP-1193 method and its params, on a chain."""

    id: int
    method: str
    params: list[Any]
    chain_id: int | None
    title: str
    lines: list[str]
    answer: asyncio.Future[dict[str, Any]] = field(repr=False)
    seen: float | None = None
    """When the page that took this task last said it is alive (None: no page has it yet).
    Held apart from the page's polls: after a reload the new page polls, but only the page
    that showed the task to the wallet can answer it."""

    def to_page(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "method": self.method,
            "params": self.params,
            "chainId": self.chain_id,
            "title": self.title,
            "lines": self.lines,
        }


@dataclass
class Connection:
    accounts: list[str]
    chain_id: int


class Bridge:
    """The page's server: tasks go out through `ask`, the page's answers come back."""

    def __init__(self, port: int = 0) -> None:
        self._want_port = port
        self.token = secrets.token_urlsafe(32)
        self._nonce = secrets.token_urlsafe(16)
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._tasks: asyncio.Queue[Task] = asyncio.Queue()
        self._pending: dict[int, Task] = {}
        self._ids = itertools.count(1)
        self._connected: asyncio.Future[Connection] | None = None
        self.connection: Connection | None = None
        self.last_seen = 0.0
        self.closed = False

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The page's address, token included: for the user's eyes only."""
        return f"{self.origin}/{self.token}"

    # -- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[self._gate])
        app.router.add_get("/{token}", self._page)
        app.router.add_post("/{token}/api/{call}", self._api)
        # access_log=None: the request line carries the token
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self._want_port)
        await site.start()
        # the port the OS chose for port 0 (AppRunner.addresses: the listening sockets' names)
        self.port = int(self._runner.addresses[0][1])
        self._connected = asyncio.get_running_loop().create_future()

    async def close(self) -> None:
        """Stop serving: the page's next call finds nobody (it then says the run is over)."""
        if self.closed:
            return
        self.closed = True
        for task in self._pending.values():
            if not task.answer.done():
                task.answer.set_exception(ConnectionError("the signing page was closed"))
        if self._runner is not None:
            await self._runner.cleanup()

    async def connected(self) -> Connection:
        assert self._connected is not None, "start() first"
        return await asyncio.shield(self._connected)

    # -- tasks -------------------------------------------------------------------------------

    def ask(
        self, method: str, params: list[Any], chain_id: int | None, title: str, lines: list[str]
    ) -> Task:
        task = Task(
            next(self._ids),
            method,
            params,
            chain_id,
            title,
            lines,
            asyncio.get_running_loop().create_future(),
        )
        self._pending[task.id] = task
        self._tasks.put_nowait(task)
        return task

    def forget(self, task: Task) -> None:
        self._pending.pop(task.id, None)

    # -- HTTP --------------------------------------------------------------------------------

    @web.middleware
    async def _gate(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Host, token and (for the API) Origin, before any handler runs."""
        if request.host != f"127.0.0.1:{self.port}":
            return _refuse(403, "wrong host")
        token = request.match_info.get("token", "")
        if not hmac.compare_digest(token.encode(), self.token.encode()):
            return _refuse(403, "no such page")
        origin = request.headers.get("Origin")
        if request.method != "GET":
            if origin != self.origin:
                return _refuse(403, "wrong origin")
            if request.content_type != "application/json":
                return _refuse(415, "JSON only")
        elif origin is not None and origin != self.origin:
            return _refuse(403, "wrong origin")
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return _refuse(403, "cross-site")
        response: web.StreamResponse = await handler(request)
        _harden(response, self._nonce)
        return response

    async def _page(self, request: web.Request) -> web.StreamResponse:
        html = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
        html = html.replace("{{NONCE}}", self._nonce)
        html = html.replace("{{HEARTBEAT_MS}}", str(int(HEARTBEAT_SECONDS * 1000)))
        return web.Response(text=html, content_type="text/html", charset="utf-8")

    async def _api(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _refuse(400, "not JSON")
        if not isinstance(body, dict):
            return _refuse(400, "not an object")
        self.last_seen = time.monotonic()
        call = request.match_info["call"]
        if call == "connected":
            return self._on_connected(body)
        if call == "alive":
            task_id = body.get("id")
            alive = self._pending.get(task_id) if isinstance(task_id, int) else None
            if alive is not None:
                alive.seen = self.last_seen
            return web.json_response({"ok": True})
        if call == "next":
            return await self._next(request)
        if call == "answer":
            return self._on_answer(body)
        return _refuse(404, "no such call")

    def _on_connected(self, body: dict[str, Any]) -> web.StreamResponse:
        accounts = body.get("accounts")
        chain = body.get("chainId")
        if (
            not isinstance(accounts, list)
            or not accounts
            or not all(isinstance(a, str) for a in accounts)
            or not isinstance(chain, str | int)
        ):
            return _refuse(400, "accounts and chainId expected")
        try:
            chain_id = int(chain, 0) if isinstance(chain, str) else chain
        except ValueError:
            return _refuse(400, "chainId is not a number")
        connection = Connection(list(accounts), chain_id)
        if self.connection is None:
            self.connection = connection
            if self._connected is not None and not self._connected.done():
                self._connected.set_result(connection)
        else:  # the wallet switched account or chain: signatures are held to the first one
            self.connection = connection
        return web.json_response({"ok": True})

    async def _next(self, request: web.Request) -> web.StreamResponse:
        if self.closed:
            return web.json_response({"done": True})
        try:
            task = await asyncio.wait_for(self._tasks.get(), POLL_SECONDS)
        except TimeoutError:
            return web.json_response({"task": None})
        if task.answer.done():  # given up on meanwhile
            return web.json_response({"task": None})
        transport = request.transport
        if transport is None or transport.is_closing():
            # the page that polled is gone (reloaded or closed; aiohttp lets the handler run
            # on): no wallet saw the task, so it waits for the next page's poll
            self._tasks.put_nowait(task)
            return web.json_response({"task": None})
        task.seen = time.monotonic()
        return web.json_response({"task": task.to_page()})

    def _on_answer(self, body: dict[str, Any]) -> web.StreamResponse:
        task_id = body.get("id")
        task = self._pending.get(task_id) if isinstance(task_id, int) else None
        if task is None or task.answer.done():
            return _refuse(409, "no such task waiting")
        task.answer.set_result(body)
        return web.json_response({"ok": True})


def _refuse(status: int, why: str) -> web.Response:
    return web.Response(status=status, text=why + "\n", headers={"Cache-Control": "no-store"})


def _harden(response: web.StreamResponse, nonce: str) -> None:
    headers = response.headers
    headers["Cache-Control"] = "no-store"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    )


def dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))
