"""The Solana PubSub websocket a Solana client relies on, at the same address as the JSON-RPC
(`ws://` instead of `http://`; `/chains` names it as `wsRpcUrl`): `signatureSubscribe` (one
notification when the signature is confirmed, then the subscription ends, as Solana's does),
`accountSubscribe` (a notification each time the account's data or lamports change),
`slotSubscribe`, and their `...Unsubscribe`. web3.js's `confirmTransaction` waits on
`signatureSubscribe`.

Each subscription is answered by reading the chain through the RPC's own methods (serialized with
every other request) every `TICK_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

TICK_SECONDS = 0.1

Call = Callable[[str, Any], Awaitable[Any]]


class PubSub:
    def __init__(self, call: Call) -> None:
        """`call(method, params)`: the JSON-RPC's handler, run in turn with its requests."""
        self._call = call
        self._ids = itertools.count(1)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if not request.headers.get("upgrade", "").lower() == "websocket":
            raise web.HTTPMethodNotAllowed("GET", ["POST"])
        socket = web.WebSocketResponse(heartbeat=30)
        await socket.prepare(request)
        watchers: dict[int, asyncio.Task[None]] = {}
        try:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                await self._message(socket, message.data, watchers)
        finally:
            for task in watchers.values():
                task.cancel()
        return socket

    async def _message(
        self, socket: web.WebSocketResponse, text: str, watchers: dict[int, asyncio.Task[None]]
    ) -> None:
        try:
            body = json.loads(text)
            method, params, request_id = body["method"], body.get("params") or [], body.get("id")
        except (ValueError, KeyError, TypeError):
            error = {"code": -32700, "message": "parse error"}
            await socket.send_json({"jsonrpc": "2.0", "id": None, "error": error})
            return
        if method.endswith("Unsubscribe"):
            task = watchers.pop(params[0] if params else -1, None)
            if task is not None:
                task.cancel()
            await socket.send_json({"jsonrpc": "2.0", "id": request_id, "result": task is not None})
            return
        watch = {
            "signatureSubscribe": self._signature,
            "accountSubscribe": self._account,
            "slotSubscribe": self._slot,
        }.get(method)
        if watch is None:
            error = {"code": -32601, "message": "Method not found"}
            await socket.send_json({"jsonrpc": "2.0", "id": request_id, "error": error})
            return
        subscription = next(self._ids)
        await socket.send_json({"jsonrpc": "2.0", "id": request_id, "result": subscription})
        watchers[subscription] = asyncio.get_running_loop().create_task(
            self._run(watch, socket, subscription, params, watchers)
        )

    async def _run(
        self,
        watch: Callable[..., Awaitable[None]],
        socket: web.WebSocketResponse,
        subscription: int,
        params: list[Any],
        watchers: dict[int, asyncio.Task[None]],
    ) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await watch(socket, subscription, params)
        watchers.pop(subscription, None)

    @staticmethod
    async def _notify(
        socket: web.WebSocketResponse, method: str, subscription: int, result: Any
    ) -> None:
        params = {"result": result, "subscription": subscription}
        await socket.send_json({"jsonrpc": "2.0", "method": method, "params": params})

    async def _signature(
        self, socket: web.WebSocketResponse, subscription: int, params: list[Any]
    ) -> None:
        signature = params[0] if params else None
        while True:
            answer = await self._call("getSignatureStatuses", [[signature]])
            status = answer["value"][0]
            if status is not None:
                result = {"context": answer["context"], "value": {"err": status["err"]}}
                await self._notify(socket, "signatureNotification", subscription, result)
                return  # a signature subscription ends with its notification
            await asyncio.sleep(TICK_SECONDS)

    async def _account(
        self, socket: web.WebSocketResponse, subscription: int, params: list[Any]
    ) -> None:
        config = params[1] if len(params) > 1 and isinstance(params[1], dict) else {}
        config = {"encoding": "base64", **config}
        key = params[0] if params else None
        last = (await self._call("getAccountInfo", [key, config]))["value"]
        while True:  # notified on a change only, as Solana does (not the state at subscribing)
            await asyncio.sleep(TICK_SECONDS)
            answer = await self._call("getAccountInfo", [key, config])
            if answer["value"] != last:
                await self._notify(socket, "accountNotification", subscription, answer)
                last = answer["value"]

    async def _slot(
        self, socket: web.WebSocketResponse, subscription: int, params: list[Any]
    ) -> None:
        last = None
        while True:
            slot = await self._call("getSlot", [])
            if slot != last:
                info = {"slot": slot, "parent": max(0, slot - 1), "root": max(0, slot - 32)}
                await self._notify(socket, "slotNotification", subscription, info)
                last = slot
            await asyncio.sleep(TICK_SECONDS)
