"""A forwarding proxy on 127.0.0.1 (port 0) in front of the world's service or venue.

Every request goes to the world and its real answer comes back, unless a fault is queued for
that path: `answer` replies in the world's place (429 with Retry-After, a 5xx) without
forwarding, so the world never sees it; `late` forwards the request (the world acts on it) and
answers only after `delay` seconds, so a client with a shorter timeout gives up on a request
that did reach the world. `reached` counts what the world was sent, `asked` what clients sent,
and `bodies` keeps each body clients sent, by path. A fault's body is sent as JSON, or as it is
when it is text or bytes (a plain-text refusal, a body that is not JSON).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from aiohttp import web

from helpers.loopback import context


@dataclass
class Fault:
    status: int = 200  # for `answer`
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # > 0: `late` (forward, then answer after the delay)


def answer(status: int, body: Any = None, **headers: str) -> Fault:
    return Fault(status, body if body is not None else {"message": f"HTTP {status}"}, headers)


def late(delay: float = 5.0) -> Fault:
    return Fault(delay=delay)


class FaultProxy:
    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self._faults: dict[str, list[Fault]] = {}
        self.asked: Counter[str] = Counter()
        self.reached: Counter[str] = Counter()
        self.bodies: dict[str, list[bytes]] = {}
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._http: httpx.AsyncClient | None = None
        self.url = ""

    def fail(self, path: str, *faults: Fault) -> None:
        """The next requests to `path` meet `faults`, one each, in order."""
        self._faults.setdefault(path, []).extend(faults)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.asked[path] += 1
        body = await request.read()
        self.bodies.setdefault(path, []).append(body)
        queued = self._faults.get(path)
        fault = queued.pop(0) if queued else None
        if fault is not None and not fault.delay:
            if isinstance(fault.body, str | bytes):
                raw = fault.body.encode() if isinstance(fault.body, str) else fault.body
                kind = "text/plain; charset=utf-8"
            else:
                raw, kind = json.dumps(fault.body).encode(), "application/json"
            return web.Response(
                status=fault.status, body=raw, headers={"Content-Type": kind, **fault.headers}
            )
        assert self._http is not None
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")
        }
        self.reached[path] += 1
        forwarded = await self._http.request(
            request.method, self.target + request.path_qs, content=body, headers=headers
        )
        if fault is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), fault.delay)
        return web.Response(
            status=forwarded.status_code,
            body=forwarded.content,
            headers={"Content-Type": forwarded.headers.get("content-type", "application/json")},
        )

    async def start(self) -> str:
        self._http = httpx.AsyncClient(timeout=30, verify=context(self.target))
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
        if self._http is not None:
            await self._http.aclose()
