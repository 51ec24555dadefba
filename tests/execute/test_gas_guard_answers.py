"""The gas-limit guard before the first signature against node answers byte by byte
(httpx.MockTransport as the node): a deposit that cannot be estimated before its approve is
mined is held to its gasUsed when run after the approve (`eth_simulateV1`), and a node that can
do neither is a refusal in words, never a pass."""

from __future__ import annotations

import json
from typing import Any

import httpx

from crossdeck.execute.guards.base import GuardResult
from crossdeck.execute.guards.gas import quote_gas_guards
from crossdeck.models import Quote
from crossdeck.wallet.gateway import EvmGateway

WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
USDC = "0x8464135c8F25Da09e49BC8782676a84730C318bC"
DEPOSITORY = "0x71C95911E9a5D330f4D621842EC243EE1343292e"
APPROVE = "0x095ea7b3" + DEPOSITORY[2:].lower().rjust(64, "0") + hex(10**7)[2:].rjust(64, "0")
DEPOSIT = "0x12345678" + "00" * 64
NOT_FOUND = {"code": -32601, "message": "the method eth_simulateV1 does not exist"}
REVERTED = {"code": 3, "message": "execution reverted: ERC20: insufficient allowance"}


def usdc_quote(deposit_gas: int) -> Quote:
    def tx(to: str, data: str, gas: int) -> dict[str, Any]:
        data_ = {"from": WALLET, "to": to, "data": data, "value": "0", "chainId": 8453}
        return {"status": "incomplete", "data": data_ | {"gas": str(gas)}}

    steps = [
        {"id": "approve", "kind": "transaction", "items": [tx(USDC, APPROVE, 50_000)]},
        {"id": "deposit", "kind": "transaction", "items": [tx(DEPOSITORY, DEPOSIT, deposit_gas)]},
    ]
    for step in steps:
        step["requestId"] = "0x" + "01" * 32
    return Quote.model_validate({"steps": steps})


def node(simulated: dict[str, Any]) -> httpx.MockTransport:
    """Chain 8453: the approve estimates at 45,928, the deposit reverts until the approve is
    mined, and eth_simulateV1 answers `simulated` (a JSON-RPC result or error member)."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": body["id"]}
        if body["method"] == "eth_chainId":
            reply["result"] = hex(8453)
        elif body["method"] == "eth_estimateGas":
            to = body["params"][0]["to"].lower()
            reply |= {"result": hex(45_928)} if to == USDC.lower() else {"error": REVERTED}
        else:
            assert body["method"] == "eth_simulateV1"
            reply |= simulated
        return httpx.Response(200, json=reply)

    return httpx.MockTransport(answer)


class OneChain:
    chain_ids = frozenset({8453})

    def __init__(self, gateway: EvmGateway) -> None:
        self.gateway = gateway

    def get(self, chain_id: int) -> EvmGateway | None:
        return self.gateway if chain_id == 8453 else None

    async def aclose(self) -> None:
        await self.gateway.aclose()


async def held(transport: httpx.MockTransport, deposit_gas: int) -> list[GuardResult]:
    gateway = EvmGateway("http://node.invalid", 8453, retries=0)
    await gateway._http.aclose()
    gateway._http = httpx.AsyncClient(transport=transport)
    chain = OneChain(gateway)
    try:
        return await quote_gas_guards(usdc_quote(deposit_gas), WALLET, chain, 2.0)
    finally:
        await chain.aclose()


def simulated(*used: int, status: str = "0x1") -> dict[str, Any]:
    calls = [{"status": status, "gasUsed": hex(u), "returnData": "0x", "logs": []} for u in used]
    return {"result": [{"calls": calls}]}


async def test_the_deposit_is_held_to_its_gas_after_the_approve() -> None:
    approve, deposit = await held(node(simulated(45_928, 57_860)), 70_000)
    assert approve.ok and "of the 45,928 chain 8453's node estimates" in approve.message
    assert deposit.ok and "gas limit 70,000, within 2x of the 57,860" in deposit.message

    approve, deposit = await held(node(simulated(45_928, 57_860)), 20_000_000)
    assert approve.ok and not deposit.ok
    assert deposit.message.startswith(
        "the gas limit is 20,000,000 where chain 8453's node, running it after the steps before "
        "it (eth_simulateV1), finds it uses 57,860; the limit is 2x (115,720)"
    )


async def test_a_node_that_can_do_neither_is_a_refusal_in_words() -> None:
    _, deposit = await held(node({"error": NOT_FOUND}), 70_000)
    assert not deposit.ok and deposit.name == "gas-limit"
    assert "cannot estimate the transaction before the steps before it are mined" in (
        deposit.message
    )
    assert "does not answer eth_simulateV1" in deposit.message
    assert "cannot be held to anything before the first signature" in deposit.message


async def test_broken_simulation_answers_are_refusals() -> None:
    for answer in (simulated(45_928), {"result": [{"calls": [{"gasUsed": "lots"}] * 2}]}):
        _, deposit = await held(node(answer), 70_000)
        assert not deposit.ok and "eth_simulateV1" in deposit.message, deposit


async def test_a_deposit_failing_after_its_approve_is_left_to_the_dry_run() -> None:
    """What it would use cannot be measured: its limit is held to eth_estimateGas right before
    it is signed, where the dry run refuses a call that reverts, with the reason."""
    answer = simulated(45_928, 30_000)
    answer["result"][0]["calls"][1]["status"] = "0x0"
    _, deposit = await held(node(answer), 70_000)
    assert deposit.ok and "checked right before it is signed" in deposit.message
