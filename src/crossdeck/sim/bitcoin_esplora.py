"""The world's Bitcoin node: `BitcoinChain` behind an Esplora-style HTTP API on a loopback port,
with a block mined at the world's pace whenever the mempool holds something.

The routes are Esplora's (what mempool.space and blockstream.info serve, and what the public
SDK's Bitcoin adapter broadcasts to): `GET /blocks/tip/height`, `/blocks/tip/hash`,
`/fee-estimates`, `/address/:address`, `/address/:address/utxo`, `/address/:address/txs`,
`/tx/:txid`, `/tx/:txid/status`, `/tx/:txid/hex`, `/tx/:txid/outspend/:vout`, and
`POST /tx` (the raw transaction's hex as the body; the txid as text, or 400 with the node's
reason).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from crossdeck.sim.bitcoin import (
    FEE_ESTIMATES,
    BitcoinChain,
    ChainRefused,
    address_of,
    is_bitcoin_address,
)

BLOCK_SECONDS = 2.0  # between blocks at speed 1 (Bitcoin's ten minutes would stall a demo)
FASTEST_BLOCK_SECONDS = 0.2  # at speed 0 (tests): still a mempool moment before the block


def _script_type(script: bytes) -> str:
    if script[:1] == b"\x6a":
        return "op_return"
    if len(script) == 22 and script[:2] == b"\x00\x14":
        return "v0_p2wpkh"
    if len(script) == 34 and script[:2] == b"\x00\x20":
        return "v0_p2wsh"
    if len(script) == 34 and script[:2] == b"\x51\x20":
        return "v1_p2tr"
    return "unknown"


def _output_json(script: bytes, value: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "scriptpubkey": script.hex(),
        "scriptpubkey_type": _script_type(script),
        "value": value,
    }
    address = address_of(script)
    if address is not None:
        out["scriptpubkey_address"] = address
    return out


class EsploraApi:
    def __init__(self, chain: BitcoinChain) -> None:
        self.chain = chain

    def app(self) -> web.Application:
        app = web.Application()
        r = app.router
        r.add_get("/blocks/tip/height", self.tip_height)
        r.add_get("/blocks/tip/hash", self.tip_hash)
        r.add_get("/fee-estimates", self.fee_estimates)
        r.add_get("/address/{address}", self.address)
        r.add_get("/address/{address}/utxo", self.address_utxo)
        r.add_get("/address/{address}/txs", self.address_txs)
        r.add_get("/tx/{txid}", self.tx)
        r.add_get("/tx/{txid}/status", self.tx_status)
        r.add_get("/tx/{txid}/hex", self.tx_hex)
        r.add_get("/tx/{txid}/outspend/{vout}", self.outspend)
        r.add_post("/tx", self.broadcast)
        # DEMO ONLY, never a public Esplora route: the next N broadcasts are dropped from the
        # mempool before a block takes them (`BitcoinChain.drop_next`)
        r.add_post("/_sim/drop-next", self.drop_next)
        return app

    async def drop_next(self, request: web.Request) -> web.Response:
        text = request.query.get("count", "1")
        if not text.isdigit() or not 0 < int(text) <= 100:
            return web.Response(status=400, text="count must be a number from 1 to 100")
        self.chain.drop_next(int(text))
        return web.json_response({"armed": int(text)})

    def status_json(self, txid: str) -> dict[str, Any]:
        record = self.chain.txs[txid]
        if record.height is None:
            return {"confirmed": False}
        block = self.chain.block(record.height)
        return {
            "confirmed": True,
            "block_height": record.height,
            "block_hash": block["hash"],
            "block_time": block["time"],
        }

    def tx_json(self, txid: str) -> dict[str, Any]:
        record = self.chain.txs[txid]
        tx = self.chain.parsed(txid)
        vin = []
        for i in tx.vin:
            prev = self.chain.prevout(i.txid.hex(), i.vout)
            vin.append({
                "txid": i.txid.hex(),
                "vout": i.vout,
                "prevout": None if prev is None else _output_json(prev.script, prev.value),
                "scriptsig": bytes(i.script_sig.data).hex(),
                "witness": [bytes(w).hex() for w in (i.witness.items if i.witness else [])],
                "is_coinbase": prev is None,
                "sequence": i.sequence,
            })  # fmt: skip
        return {
            "txid": txid,
            "version": tx.version,
            "locktime": tx.locktime,
            "vin": vin,
            "vout": [_output_json(bytes(o.script_pubkey.data), o.value) for o in tx.vout],
            "size": len(record.raw) // 2,
            "weight": record.weight,
            "fee": record.fee,
            "status": self.status_json(txid),
        }

    def _known(self, request: web.Request) -> str:
        txid = request.match_info["txid"].lower()
        if txid not in self.chain.txs:
            raise web.HTTPNotFound(text="Transaction not found")
        return txid

    @staticmethod
    def _address(request: web.Request) -> str:
        address = request.match_info["address"]
        if not is_bitcoin_address(address):
            raise web.HTTPBadRequest(text="Invalid Bitcoin address")
        return address

    async def tip_height(self, _request: web.Request) -> web.Response:
        return web.Response(text=str(self.chain.height))

    async def tip_hash(self, _request: web.Request) -> web.Response:
        return web.Response(text=self.chain.blocks[-1]["hash"])

    async def fee_estimates(self, _request: web.Request) -> web.Response:
        return web.json_response(FEE_ESTIMATES)

    async def address(self, request: web.Request) -> web.Response:
        address = self._address(request)
        stats = {"confirmed": [0, 0], "mempool": [0, 0]}  # funded, spent sums
        counts = {"confirmed": [0, 0], "mempool": [0, 0]}
        for txid in self.chain.history(address):
            tx = self.chain.parsed(txid)
            where = "confirmed" if self.chain.txs[txid].height is not None else "mempool"
            for o in tx.vout:
                if address_of(bytes(o.script_pubkey.data)) == address:
                    stats[where][0] += o.value
                    counts[where][0] += 1
            for i in tx.vin:
                prev = self.chain.prevout(i.txid.hex(), i.vout)
                if prev is not None and address_of(prev.script) == address:
                    stats[where][1] += prev.value
                    counts[where][1] += 1

        def block(where: str) -> dict[str, int]:
            return {
                "funded_txo_count": counts[where][0],
                "funded_txo_sum": stats[where][0],
                "spent_txo_count": counts[where][1],
                "spent_txo_sum": stats[where][1],
                "tx_count": 0,
            }

        return web.json_response(
            {
                "address": address,
                "chain_stats": block("confirmed"),
                "mempool_stats": block("mempool"),
            }
        )

    async def address_utxo(self, request: web.Request) -> web.Response:
        address = self._address(request)
        out = []
        for coin in self.chain.utxos(address):
            status = self.status_json(coin.txid)
            out.append(
                {"txid": coin.txid, "vout": coin.vout, "value": coin.value, "status": status}
            )
        return web.json_response(out)

    async def address_txs(self, request: web.Request) -> web.Response:
        address = self._address(request)
        return web.json_response([self.tx_json(t) for t in self.chain.history(address)[:50]])

    async def tx(self, request: web.Request) -> web.Response:
        return web.json_response(self.tx_json(self._known(request)))

    async def tx_status(self, request: web.Request) -> web.Response:
        return web.json_response(self.status_json(self._known(request)))

    async def tx_hex(self, request: web.Request) -> web.Response:
        return web.Response(text=self.chain.txs[self._known(request)].raw)

    async def outspend(self, request: web.Request) -> web.Response:
        txid = self._known(request)
        try:
            vout = int(request.match_info["vout"])
        except ValueError:
            raise web.HTTPBadRequest(text="Invalid output index") from None
        spender = self.chain.spender(txid, vout)
        if spender is None:
            return web.json_response({"spent": False})
        return web.json_response(
            {"spent": True, "txid": spender, "status": self.status_json(spender)}
        )

    async def broadcast(self, request: web.Request) -> web.Response:
        body = (await request.text()).strip()
        try:
            txid = self.chain.submit(body)
        except ChainRefused as exc:
            raise web.HTTPBadRequest(
                text=f'sendrawtransaction RPC error: {{"code":-26,"message":"{exc}"}}'
            ) from None
        return web.Response(text=txid)


@dataclass
class BitcoinNode:
    """The running node: its API's URL, the chain, and the miner at the world's pace."""

    url: str
    chain: BitcoinChain
    _runner: web.AppRunner = field(repr=False)
    _miner: asyncio.Task[None] | None = field(default=None, repr=False)

    async def stop(self) -> None:
        if self._miner is not None:
            self._miner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._miner
            self._miner = None
        await self._runner.cleanup()
        self.chain.close()


def block_seconds(speed: float) -> float:
    if speed == 0 or math.isinf(speed):
        return FASTEST_BLOCK_SECONDS
    return max(FASTEST_BLOCK_SECONDS, BLOCK_SECONDS / speed)


async def _mine_every(chain: BitcoinChain, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        chain.mine()


async def start_bitcoin(
    *, state_file: Path | None = None, host: str = "127.0.0.1", speed: float = 1.0
) -> BitcoinNode:
    chain = await asyncio.to_thread(BitcoinChain, state_file)
    runner = web.AppRunner(EsploraApi(chain).app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, 0)
    await site.start()
    port = runner.addresses[0][1]
    node = BitcoinNode(f"http://{host}:{port}", chain, runner)
    node._miner = asyncio.get_running_loop().create_task(_mine_every(chain, block_seconds(speed)))
    return node
