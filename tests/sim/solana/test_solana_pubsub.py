"""The world's Solana PubSub websocket, where /chains' `wsRpcUrl` says: a `signatureSubscribe`
made before a transfer is sent is notified once it is confirmed (what web3.js's
`confirmTransaction` waits on), an `accountSubscribe` is notified of the recipient's new
balance, and an unknown method is a JSON-RPC error."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import httpx
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from crossdeck.sim.solana.node import DEMO_KEYPAIR

SOLANA = 792703809


def _rpc(url: str, method: str, params: list[Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url, json=body).json()["result"]


async def test_signature_and_account_subscriptions_are_notified(world: Any) -> None:
    chains = (await asyncio.to_thread(httpx.get, world.service_url + "/chains")).json()["chains"]
    [solana] = [c for c in chains if c["id"] == SOLANA]
    ws_url = solana["wsRpcUrl"]
    assert ws_url.startswith("ws://127.0.0.1:")
    rpc = solana["httpRpcUrl"]
    recipient = Keypair().pubkey()
    blockhash = (await asyncio.to_thread(_rpc, rpc, "getLatestBlockhash", []))["value"]
    message = MessageV0.try_compile(
        DEMO_KEYPAIR.pubkey(),
        [
            transfer(
                TransferParams(
                    from_pubkey=DEMO_KEYPAIR.pubkey(), to_pubkey=recipient, lamports=5_000_000
                )
            )
        ],
        [],
        Hash.from_string(blockhash["blockhash"]),
    )
    tx = VersionedTransaction(message, [DEMO_KEYPAIR])
    signature = str(tx.signatures[0])
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url) as socket:
        await socket.send_json({"jsonrpc": "2.0", "id": 1, "method": "signatureSubscribe",
                                "params": [signature, {"commitment": "confirmed"}]})  # fmt: skip
        await socket.send_json({"jsonrpc": "2.0", "id": 2, "method": "accountSubscribe",
                                "params": [str(recipient), {"encoding": "base64"}]})  # fmt: skip
        await socket.send_json({"jsonrpc": "2.0", "id": 3, "method": "blockSubscribe"})
        answers = {}
        for _ in range(3):
            reply = await socket.receive_json(timeout=5)
            answers[reply["id"]] = reply
        assert isinstance(answers[1]["result"], int) and isinstance(answers[2]["result"], int)
        assert answers[3]["error"]["code"] == -32601
        import base64

        wire = base64.b64encode(bytes(tx)).decode()
        sent = await asyncio.to_thread(_rpc, rpc, "sendTransaction", [wire, {"encoding": "base64"}])
        assert sent == signature
        notes = {}
        while len(notes) < 2:
            note = await socket.receive_json(timeout=10)
            notes[note["method"]] = note["params"]
        signed = notes["signatureNotification"]
        assert signed["subscription"] == answers[1]["result"]
        assert signed["result"]["value"] == {"err": None}
        account = notes["accountNotification"]
        assert account["subscription"] == answers[2]["result"]
        assert account["result"]["value"]["lamports"] == 5_000_000
        await socket.send_json({"jsonrpc": "2.0", "id": 4, "method": "accountUnsubscribe",
                                "params": [answers[2]["result"]]})  # fmt: skip
        assert (await socket.receive_json(timeout=5))["result"] is True
