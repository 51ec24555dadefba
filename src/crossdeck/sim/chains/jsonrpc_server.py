"""A JSON-RPC 2.0 HTTP endpoint (single and batch requests) on a loopback port.

Handlers are synchronous and run one at a time on a single worker thread: that serialises all
access to the chain behind it (requests arrive concurrently) and keeps slow EVM execution off
the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import web

from crossdeck.sim.chains.rpc_format import RpcFault

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
MAX_BODY_BYTES = 16 * 1024 * 1024

Handler = Callable[[str, Any], Any]
Upgrade = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _reply(request_id: Any, *, result: Any = None, error: RpcFault | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        body["error"] = error.to_json()
    else:
        body["result"] = result
    return body


class JsonRpcServer:
    def __init__(
        self, handler: Handler, *, name: str = "jsonrpc", websocket: Upgrade | None = None
    ) -> None:
        """`websocket`: what answers a websocket upgrade at the same address (Solana's PubSub)."""
        self._handler = handler
        self._websocket = websocket
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def run_serialized(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn` on the worker thread, in turn with every request."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def start(self) -> str:
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        app.router.add_post("/", self._http)
        if self._websocket is not None:
            app.router.add_get("/", self._websocket)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        port = runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self._executor.shutdown(wait=False, cancel_futures=True)

    def abandon(self) -> None:
        """Release the worker when the server's loop is gone and `stop()` cannot run."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _http(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError):
            return web.json_response(_reply(None, error=RpcFault(PARSE_ERROR, "parse error")))
        if isinstance(body, list):
            if not body:
                error = RpcFault(INVALID_REQUEST, "empty batch")
                return web.json_response(_reply(None, error=error))
            replies = [await self._one(item) for item in body]
            return web.json_response([r for r in replies if r is not None])
        reply = await self._one(body)
        if reply is None:  # a notification gets no answer
            return web.Response(status=200)
        return web.json_response(reply)

    async def _one(self, item: Any) -> dict[str, Any] | None:
        if not isinstance(item, dict) or not isinstance(item.get("method"), str):
            return _reply(None, error=RpcFault(INVALID_REQUEST, "invalid request"))
        request_id = item.get("id")
        try:
            result = await self.run_serialized(self._handler, item["method"], item.get("params"))
        except RpcFault as fault:
            return _reply(request_id, error=fault)
        except Exception as exc:
            log.exception("JSON-RPC %s failed", item["method"])
            return _reply(request_id, error=RpcFault(INTERNAL_ERROR, f"internal error: {exc}"))
        if "id" not in item:
            return None
        return _reply(request_id, result=result)
