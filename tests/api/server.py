"""A small scriptable HTTP server on 127.0.0.1 (port 0) for the client tests.

Each route answers from a queue of `Reply`s (the last one repeats), so a test can say "429 with
Retry-After, then 200" and afterwards read what the server saw (`seen`, `count`). A `Reply` may
also wait before answering, to make the client time out; the wait ends when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON; str/bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


Handler = Callable[[Seen], Reply]


class ScriptedServer:
    def __init__(self) -> None:
        self._routes: dict[tuple[str, str], list[Reply] | Handler] = {}
        self.seen: list[Seen] = []
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # -- scripting -------------------------------------------------------------------------

    def on(self, method: str, path: str, *replies: Reply | Handler) -> None:
        """Answer `method path` with `replies` in order (the last repeats), or a handler."""
        if len(replies) == 1 and callable(replies[0]):
            self._routes[(method.upper(), path)] = replies[0]
        else:
            self._routes[(method.upper(), path)] = [r for r in replies if isinstance(r, Reply)]

    def requests_to(self, method: str, path: str) -> list[Seen]:
        return [s for s in self.seen if s.method == method.upper() and s.path == path]

    def count(self, method: str, path: str) -> int:
        return len(self.requests_to(method, path))

    # -- serving ---------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        seen = Seen(
            method=request.method,
            path=request.path,
            query=dict(request.query),
            headers={k.lower(): v for k, v in request.headers.items()},
            body=await request.read(),
        )
        self.seen.append(seen)
        route = self._routes.get((request.method, request.path))
        if route is None:
            reply = Reply(404, {"message": f"no route {request.path}", "errorCode": "NOT_FOUND"})
        elif callable(route):
            reply = route(seen)
        else:
            reply = route.pop(0) if len(route) > 1 else route[0]
        if reply.delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), reply.delay)
        if isinstance(reply.body, dict | list):
            data = json.dumps(reply.body).encode()
            content_type = "application/json"
        elif isinstance(reply.body, str):
            data, content_type = reply.body.encode(), "text/plain"
        else:
            data, content_type = reply.body or b"", "application/octet-stream"
        return web.Response(
            status=reply.status,
            body=data,
            headers={"Content-Type": content_type, **reply.headers},
        )

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self.url

    async def stop(self) -> None:
        self._stopping.set()
        if self._runner is not None:
            await self._runner.cleanup()
