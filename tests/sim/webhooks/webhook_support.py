"""A webhook receiver for the sender's tests: a real aiohttp server that checks every HMAC on
its own (hmac module, spec 6.3) and records what arrived."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from helpers.servers import start_app
from helpers.webhook_signing import signature_ok


@dataclass
class Arrival:
    path: str
    headers: dict[str, str]
    body: bytes
    verified: bool
    answered: int

    @property
    def payload(self) -> Any:
        return json.loads(self.body)

    @property
    def status(self) -> str:
        return self.payload["data"]["status"]

    @property
    def request_id(self) -> str:
        return self.payload["data"]["requestId"]


def verify(api_key: str, headers: dict[str, str], body: bytes) -> bool:
    timestamp = headers.get("X-Signature-Timestamp", "")
    return signature_ok(api_key, timestamp, body, headers.get("X-Signature-SHA256", ""))


# decide(receiver, arrival) -> HTTP status to answer once the HMAC verified (may be async)
Decider = Callable[["Receiver", Arrival], int | Awaitable[int]]


class Receiver:
    def __init__(self, api_key: str, decide: Decider | None = None) -> None:
        self.api_key = api_key
        self.decide = decide or (lambda _r, _a: 200)
        self.arrivals: list[Arrival] = []
        self.runner: web.AppRunner | None = None
        self.url = ""
        self.port = 0

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = dict(request.headers)
        ok = verify(self.api_key, headers, body)
        arrival = Arrival(request.path, headers, body, ok, 0)
        answer = self.decide(self, arrival) if ok else 401
        if inspect.isawaitable(answer):
            answer = await answer
        arrival.answered = answer
        self.arrivals.append(arrival)
        return web.Response(status=arrival.answered)

    async def start(self, port: int = 0) -> Receiver:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._handle)
        self.runner, base = await start_app(app, port)
        self.port = int(base.rsplit(":", 1)[1])
        self.url = f"{base}/hook"
        return self

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    def delivered(self) -> list[Arrival]:
        return [a for a in self.arrivals if 200 <= a.answered < 300]
