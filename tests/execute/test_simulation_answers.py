"""The balance-changes guard against node answers byte by byte (httpx.MockTransport as the
node): what each outcome of a simulation makes of a self-executed swap, and hostile or broken
answers refused in words, never a traceback and never a pass."""

from __future__ import annotations

import json
from typing import Any

import httpx

from crossdeck.execute.guards.simulation import simulation_guard
from crossdeck.models import Quote
from crossdeck.wallet.gateway import EvmGateway

WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
ROUTER = "0x948B3c65b89DF0B4894ABE91E6D02FE579834F8F"
USDC = "0x8464135c8F25Da09e49BC8782676a84730C318bC"
OTHER_TOKEN = "0x" + "77" * 20
NATIVE = "0x" + "00" * 20
PSEUDO = "0x" + "ee" * 20
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
APPROVAL_FOR_ALL = "0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31"
APPROVAL = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925"
IN, OUT, MINIMUM = 10**16, 29_904_999, 29_755_475


def amount(address: str, symbol: str, decimals: int, units: int, minimum: int) -> dict[str, Any]:
    currency = {"chainId": 8453, "address": address, "symbol": symbol, "decimals": decimals}
    return {"currency": currency, "amount": str(units), "minimumAmount": str(minimum)}


def swap_quote() -> Quote:
    tx = {"from": WALLET, "to": ROUTER, "data": "0x63a32957" + "00" * 192, "value": str(IN)}
    tx |= {"chainId": 8453, "gas": "100000"}
    step = {"id": "swap", "kind": "transaction", "requestId": "0x" + "01" * 32}
    step |= {"items": [{"status": "incomplete", "data": tx}]}
    details = {
        "recipient": WALLET,
        "currencyIn": amount(NATIVE, "ETH", 18, IN, IN),
        "currencyOut": amount(USDC, "USDC", 6, OUT, MINIMUM),
    }
    return Quote.from_wire({"steps": [step], "details": details})


def word(value: int) -> str:
    return "0x" + hex(value)[2:].rjust(64, "0")


def topic(address: str) -> str:
    return "0x" + address[2:].lower().rjust(64, "0")


def transfer(token: str, sender: str, to: str, units: int) -> dict[str, Any]:
    return {"address": token, "topics": [TRANSFER, topic(sender), topic(to)], "data": word(units)}


def honest_logs() -> list[dict[str, Any]]:
    return [transfer(PSEUDO, WALLET, ROUTER, IN), transfer(USDC, ROUTER, WALLET, OUT)]


def node(simulated: Any) -> httpx.MockTransport:
    """A node on chain 8453 answering eth_simulateV1 with `simulated` (a callable of the
    request's calls, or a whole JSON-RPC reply) and zero for every allowance read."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        reply: Any = {"jsonrpc": "2.0", "id": body["id"]}
        if body["method"] == "eth_chainId":
            reply["result"] = hex(8453)
        elif callable(simulated):
            calls = body["params"][0]["blockStateCalls"][0]["calls"]
            reply["result"] = [{"calls": simulated(calls)}]
        else:
            reply |= simulated
        return httpx.Response(200, json=reply)

    return httpx.MockTransport(answer)


def results_with(swap_logs: list[Any], status: str = "0x1", **extra: Any) -> Any:
    def make(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for call in calls:
            if call["to"].lower() == ROUTER.lower():
                out.append({"status": status, "returnData": "0x", "logs": swap_logs, **extra})
            else:  # an allowance read
                out.append({"status": "0x1", "returnData": word(0), "logs": []})
        return out

    return make


async def guard(transport: httpx.MockTransport) -> tuple[bool, str]:
    gateway = EvmGateway("http://node.invalid", 8453, retries=0)
    await gateway._http.aclose()
    gateway._http = httpx.AsyncClient(transport=transport)
    try:
        [result] = await simulation_guard(swap_quote(), WALLET, gateway)
    finally:
        await gateway.aclose()
    assert result.name == "balance-changes"
    return result.ok, result.message


async def test_the_honest_outcome_passes_and_says_what_it_saw() -> None:
    ok, message = await guard(node(results_with(honest_logs())))
    assert ok, message
    assert "you send 0.01 ETH, you receive at least 29.755475 USDC" in message
    assert "you receive 29.904999 USDC in the simulation" in message


async def test_another_balance_of_the_wallet_moving_is_refused() -> None:
    logs = [*honest_logs(), transfer(OTHER_TOKEN, WALLET, ROUTER, 5)]
    ok, message = await guard(node(results_with(logs)))
    assert not ok and "you would lose 5 units of token 0x7777…7777" in message


async def test_more_sent_than_the_input_is_refused() -> None:
    logs = [transfer(PSEUDO, WALLET, ROUTER, 2 * IN), transfer(USDC, ROUTER, WALLET, OUT)]
    ok, message = await guard(node(results_with(logs)))
    assert not ok and "you would send 0.02 ETH, not 0.01 ETH" in message


async def test_an_operator_approval_is_refused() -> None:
    approval = {
        "address": USDC,
        "topics": [APPROVAL_FOR_ALL, topic(WALLET), topic(ROUTER)],
        "data": word(1),
    }
    ok, message = await guard(node(results_with([*honest_logs(), approval])))
    assert not ok and "it would let 0x948B…4F8F move all your" in message


async def test_a_revert_is_refused_with_its_reason() -> None:
    text = b"nope!".hex().ljust(64, "0")
    reason = "0x08c379a0" + "20".rjust(64, "0") + "05".rjust(64, "0") + text
    ok, message = await guard(node(results_with([], status="0x0", returnData=reason)))
    assert not ok and "step 'swap' would fail (execution reverted: nope!)" in message


async def test_hostile_and_broken_answers_are_refusals_in_words() -> None:
    for simulated, says in [
        (results_with(["not a log"]), "cannot read"),
        (results_with([{"topics": [TRANSFER, "x", "y"], "data": "0xzz"}]), "cannot read"),
        ({"result": {"calls": "nope"}}, "cannot be simulated"),
        ({"result": [{"calls": []}]}, "answered 0 results for 1 calls"),
        (
            {"error": {"code": -32601, "message": "the method eth_simulateV1 does not exist"}},
            "does not answer eth_simulateV1",
        ),
    ]:
        ok, message = await guard(node(simulated))
        assert not ok and says in message, message


def with_allowance_read(read: dict[str, Any]) -> Any:
    """The honest swap, with every allowance read answered by `read`."""

    def make(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        honest = results_with(honest_logs())(calls)
        return [
            result if call["to"].lower() == ROUTER.lower() else read
            for call, result in zip(calls, honest, strict=True)
        ]

    return make


async def test_an_allowance_read_the_node_did_not_answer_is_not_taken_as_zero() -> None:
    """A failed or empty allowance read would hide an allowance left behind: a refusal."""
    for read in [
        {"status": "0x1", "returnData": "0x", "logs": []},
        {"status": "0x0", "returnData": word(0), "logs": []},
        {"status": "0x1", "returnData": word(0) + "00", "logs": []},
    ]:
        ok, message = await guard(node(with_allowance_read(read)))
        assert not ok, read
        assert "the allowance of 0x" in message and "could not be read" in message, message


async def test_an_approval_the_reads_do_not_cover_is_refused() -> None:
    """An Approval of the wallet's to a spender the quote never names is not read before and
    after, so the log itself is what refuses it."""
    thief = "0x" + "7e" * 20
    approval = {"address": USDC, "topics": [APPROVAL, topic(WALLET), topic(thief)]}
    approval["data"] = word(5 * 10**6)
    ok, message = await guard(node(results_with([*honest_logs(), approval])))
    assert not ok
    assert "spend 5 USDC of yours, which the quote does not say" in message, message
