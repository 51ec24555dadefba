"""A service that answers /authorize with more steps to do (the demo world never does).

It forwards every request to the world's real service unchanged, and on a successful
/authorize adds one step to the answer: an EIP-191 'acknowledge' signature posted back to
its own /acknowledge, which checks that the signature recovers to the request's wallet.
That is how the executor's "a POST answer that carries steps appends them" is exercised
against real servers end to end.
"""

from __future__ import annotations

from typing import Any

import httpx
from aiohttp import web
from eth_account import Account
from eth_account.messages import encode_defunct


def acknowledge_step(request_id: str) -> dict[str, Any]:
    check = {"endpoint": f"/intents/status?requestId={request_id}", "method": "GET"}
    return {
        "id": "acknowledge",
        "action": "Acknowledge the withdrawal",
        "description": "Sign a note that you asked for this withdrawal",
        "kind": "signature",
        "requestId": request_id,
        "items": [
            {
                "status": "incomplete",
                "data": {
                    "sign": {
                        "signatureKind": "eip191",
                        "message": f"I asked for request {request_id}",
                    },
                    "post": {
                        "endpoint": "/acknowledge",
                        "method": "POST",
                        "body": {"requestId": request_id},
                    },
                },
                "check": check,
            }
        ],
    }


class AppendingProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.acknowledged: list[tuple[str, str]] = []  # (request id, signer)
        self.wallets: dict[str, str] = {}  # request id -> wallet from its /authorize
        self._runner: web.AppRunner | None = None
        self._http = httpx.AsyncClient(timeout=30)
        self.url = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/acknowledge", self._acknowledge)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self.url

    async def stop(self) -> None:
        await self._http.aclose()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("x-api-key",)}
        if body:
            headers["content-type"] = "application/json"
        answer = await self._http.request(
            request.method,
            self.upstream + request.path_qs,
            content=body or None,
            headers=headers,
        )
        if request.path == "/authorize" and answer.status_code == 200:
            data = answer.json()
            posted = await request.json()
            self.wallets[data["requestId"]] = posted["wallet"]
            data["steps"] = [acknowledge_step(data["requestId"])]
            return web.json_response(data)
        return web.Response(
            status=answer.status_code,
            body=answer.content,
            content_type="application/json",
        )

    async def _acknowledge(self, request: web.Request) -> web.Response:
        body = await request.json()
        request_id = body["requestId"]
        signature = request.query["signature"]
        message = encode_defunct(text=f"I asked for request {request_id}")
        signer = Account.recover_message(message, signature=signature)
        if signer.lower() != self.wallets.get(request_id, "").lower():
            return web.json_response(
                {"message": f"signed by {signer}", "errorCode": "UNAUTHORIZED"}, status=401
            )
        self.acknowledged.append((request_id, signer))
        return web.json_response({"message": "Success"})
