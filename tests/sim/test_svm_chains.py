"""The world's two SVM chains from outside (the service's HTTP API and each chain's own
JSON-RPC, deposits built by hand with `solders`): an Eclipse quote's deposit names Eclipse's
depository, lands on Eclipse and is filled; the same order paid on Solana (its depository, its
RPC) is not: an order is paid on its origin chain."""

from __future__ import annotations

import base64
import time
from typing import Any

import httpx
from solders.hash import Hash
from solders.message import MessageV0
from solders.transaction import VersionedTransaction

from crossdeck.sim.solana import depository
from crossdeck.sim.solana.node import DEMO_KEYPAIR, ECLIPSE

SOLANA = 792703809
SOL = "11111111111111111111111111111111"
NATIVE = "0x0000000000000000000000000000000000000000"


def rpc(world: Any, chain_id: int, method: str, *params: Any) -> Any:
    url = world.info["rpc"][str(chain_id)]
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    answer = httpx.post(url, json=body, timeout=30).json()
    assert "error" not in answer, answer
    return answer["result"]


def quote_from(world: Any, chain_id: int) -> dict[str, Any]:
    body = {
        "user": str(DEMO_KEYPAIR.pubkey()), "recipient": world.wallet_address,
        "tradeType": "EXACT_INPUT", "originChainId": chain_id, "destinationChainId": 8453,
        "originCurrency": SOL, "destinationCurrency": NATIVE, "amount": "10000000",
    }  # fmt: skip
    answer = httpx.post(
        world.service_url + "/quote/v2", json=body, headers={"x-api-key": world.api_key}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def status(world: Any, request_id: str) -> str:
    answer = httpx.get(
        world.service_url + "/intents/status/v3", params={"requestId": request_id}, timeout=30
    )
    found: str = answer.json()["status"]
    return found


def send(world: Any, chain_id: int, program: depository.Program, order_id: str) -> str:
    """A native deposit of 0.01 for `order_id` to `program`'s depository, on `chain_id`."""
    wallet = DEMO_KEYPAIR.pubkey()
    ix = depository.native_instruction(
        wallet, wallet, 10_000_000, bytes.fromhex(order_id.removeprefix("0x")), program
    )
    blockhash = rpc(world, chain_id, "getLatestBlockhash")["value"]["blockhash"]
    message = MessageV0.try_compile(wallet, [ix], [], Hash.from_string(blockhash))
    tx = VersionedTransaction(message, [DEMO_KEYPAIR])

    wire = base64.b64encode(bytes(tx)).decode()
    signature: str = rpc(world, chain_id, "sendTransaction", wire, {"encoding": "base64"})
    return signature


def wait_for(condition: Any, what: str, within: float = 60) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_an_eclipse_order_is_filled_when_paid_on_eclipse_and_never_when_paid_on_solana(
    world: Any,
) -> None:
    quote = quote_from(world, ECLIPSE.chain_id)
    request_id = quote["steps"][0]["requestId"]
    payment = quote["protocol"]["v2"]["paymentDetails"]
    assert payment["depository"] == str(ECLIPSE.program.program_id)
    [ix] = quote["steps"][0]["items"][0]["data"]["instructions"]
    assert ix["programId"] == str(ECLIPSE.program.program_id)
    order_id = quote["protocol"]["v2"]["orderId"]
    # paid on Solana (its own depository, its own RPC): the deposit lands there, fills nothing
    engine = world.engine
    seen = engine.scanned()[SOLANA]
    wrong = send(world, SOLANA, depository.SOLANA, order_id)
    assert rpc(world, SOLANA, "getSignatureStatuses", [wrong])["value"][0] is not None
    wait_for(lambda: engine.scanned()[SOLANA] > seen, "the solver to look at the Solana deposit")
    assert status(world, request_id) == "waiting"
    # paid on Eclipse: filled
    right = send(world, ECLIPSE.chain_id, ECLIPSE.program, order_id)
    wait_for(lambda: status(world, request_id) == "success", "the Eclipse deposit's fill")
    statuses = rpc(world, ECLIPSE.chain_id, "getSignatureStatuses", [right])["value"]
    assert statuses[0] is not None and statuses[0]["err"] is None
    # the transaction built for one chain is unknown on the other
    assert rpc(world, SOLANA, "getSignatureStatuses", [right])["value"][0] is None
