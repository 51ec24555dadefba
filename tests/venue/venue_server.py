"""A small venue on 127.0.0.1 (port 0) for the VenueClient tests.

It answers `/info` from an in-memory ledger and executes `/exchange` sendAsset actions only when
the EIP-712 signature recovers to the sender, built the way the venue SDK builds it
(`user_signed_payload`: domain '<Venue>SignTransaction', chainId from the action's
signatureChainId, the message is the action). Faults (429, 5xx, delays) can be queued per path.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from aiohttp import web
from eth_account import Account
from eth_account.messages import encode_typed_data

USDC_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
SPOT_META = {
    "tokens": [
        {
            "name": "USDC",
            "szDecimals": 8,
            "weiDecimals": 8,
            "index": 0,
            "tokenId": USDC_ID,
            "isCanonical": True,
            "evmContract": None,
            "fullName": None,
        },
        {
            "name": "USDE",
            "szDecimals": 2,
            "weiDecimals": 8,
            "index": 235,
            "tokenId": "0x2e6d84f2d7ca82e6581e03523e4389f7",
            "isCanonical": False,
            "evmContract": {
                "address": "0x5d3a1ff2b6bab83b63cd9ad0787074081a52ef34",
                "evm_extra_wei_decimals": 10,
            },
            "fullName": "Ethena USDe",
        },
    ],
    "universe": [{"tokens": [235, 0], "name": "@150", "index": 150, "isCanonical": False}],
}


@dataclass
class Fault:
    status: int = 500
    body: Any = "internal error"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class FakeVenue:
    def __init__(self, venue_name: str = "Venue") -> None:
        self.venue_name = venue_name
        self.chain_field = f"{venue_name[0].lower()}{venue_name[1:]}Chain"
        self.perps: dict[str, Decimal] = {}
        self.spot: dict[str, dict[str, Decimal]] = {}
        self.faults: dict[str, list[Fault]] = {}
        self.received: dict[str, list[Any]] = {"/info": [], "/exchange": []}
        self.used_nonces: set[tuple[str, int]] = set()
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.url = ""

    def fund(self, user: str, perps: str = "0", **spot: str) -> None:
        self.perps[user.lower()] = Decimal(perps)
        self.spot[user.lower()] = {coin: Decimal(v) for coin, v in spot.items()}

    def fail(self, path: str, *faults: Fault) -> None:
        self.faults.setdefault(path, []).extend(faults)

    # -- handlers --------------------------------------------------------------------------

    async def _fault(self, path: str) -> web.Response | None:
        queue = self.faults.get(path)
        if not queue:
            return None
        fault = queue.pop(0)
        if fault.delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), fault.delay)
        if isinstance(fault.body, dict):
            return web.json_response(fault.body, status=fault.status, headers=fault.headers)
        return web.Response(text=fault.body, status=fault.status, headers=fault.headers)

    async def _info(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        self.received["/info"].append(raw)
        fault = await self._fault("/info")
        if fault is not None:
            return fault
        body = json.loads(raw)
        kind = body.get("type")
        if kind == "spotMeta":
            return web.json_response(SPOT_META)
        if kind == "clearinghouseState" and "user" in body:
            value = format(self.perps.get(body["user"].lower(), Decimal(0)), "f")
            summary = {
                "accountValue": value,
                "totalMarginUsed": "0.0",
                "totalNtlPos": "0.0",
                "totalRawUsd": value,
            }
            return web.json_response(
                {
                    "marginSummary": summary,
                    "crossMarginSummary": summary,
                    "crossMaintenanceMarginUsed": "0.0",
                    "withdrawable": value,
                    "assetPositions": [],
                    "time": 1732000000000,
                }
            )
        if kind == "spotClearinghouseState" and "user" in body:
            coins = self.spot.get(body["user"].lower(), {})
            balances = [
                {
                    "coin": coin,
                    "token": 0 if coin == "USDC" else 235,
                    "total": format(total, "f"),
                    "hold": "0.0",
                    "entryNtl": "0.0",
                }
                for coin, total in coins.items()
            ]
            return web.json_response({"balances": balances})
        return web.Response(status=422, text="Failed to deserialize the JSON body")

    def _recover(self, action: dict[str, Any], signature: dict[str, Any]) -> str:
        primary = f"{self.venue_name}Transaction:SendAsset"
        types = [
            {"name": self.chain_field, "type": "string"},
            {"name": "destination", "type": "string"},
            {"name": "sourceDex", "type": "string"},
            {"name": "destinationDex", "type": "string"},
            {"name": "token", "type": "string"},
            {"name": "amount", "type": "string"},
            {"name": "fromSubAccount", "type": "string"},
            {"name": "nonce", "type": "uint64"},
        ]
        payload = {
            "domain": {
                "name": f"{self.venue_name}SignTransaction",
                "version": "1",
                "chainId": int(action["signatureChainId"], 16),
                "verifyingContract": "0x0000000000000000000000000000000000000000",
            },
            "types": {
                primary: types,
                "EIP712Domain": [
                    {"name": "name", "type": "string"},
                    {"name": "version", "type": "string"},
                    {"name": "chainId", "type": "uint256"},
                    {"name": "verifyingContract", "type": "address"},
                ],
            },
            "primaryType": primary,
            "message": action,
        }
        if not isinstance(signature.get("v"), int):
            raise ValueError("v must be a number")
        vrs = (signature["v"], int(signature["r"], 16), int(signature["s"], 16))
        return Account.recover_message(encode_typed_data(full_message=payload), vrs=vrs).lower()

    async def _exchange(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        self.received["/exchange"].append(raw)
        fault = await self._fault("/exchange")
        if fault is not None:
            return fault
        try:
            body = json.loads(raw)
            action, nonce, signature = body["action"], body["nonce"], body["signature"]
            amount = Decimal(action["amount"])
        except (ValueError, KeyError, TypeError, InvalidOperation):
            return web.Response(status=422, text="Failed to deserialize the JSON body")

        def err(message: str) -> web.Response:
            return web.json_response({"status": "err", "response": message})

        if action.get("type") != "sendAsset":
            return err("Unsupported action")
        try:
            signer = self._recover(action, signature)
        except (ValueError, KeyError, TypeError):
            return err("Invalid signature")
        if signer not in self.perps:
            return err(f"User or API Wallet {signer} does not exist.")
        if action.get("nonce") != nonce or (signer, nonce) in self.used_nonces:
            return err("Invalid nonce")
        if amount <= 0 or amount > self.perps[signer]:
            return err("Insufficient balance for asset transfer")
        self.used_nonces.add((signer, nonce))
        self.perps[signer] -= amount
        destination = action["destination"].lower()
        bucket = self.spot.setdefault(destination, {})
        bucket["USDC"] = bucket.get("USDC", Decimal(0)) + amount
        return web.json_response({"status": "ok", "response": {"type": "default"}})

    # -- serving ---------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/info", self._info)
        app.router.add_post("/exchange", self._exchange)
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
