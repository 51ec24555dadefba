"""The service against a real py-evm chain: allowance-driven approve steps, deposits whose
calldata the depository accepts, and the permit flow submitted by the service itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from eth_abi import decode
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak, to_checksum_address
from web3 import AsyncHTTPProvider, AsyncWeb3

from crossdeck.sim.brand import BRANDS
from crossdeck.sim.chains import BACKENDS, ChainNode, start_chain
from crossdeck.sim.service import (
    ChainDirectory,
    EvmChain,
    QuoteEngine,
    ServiceConfig,
    ServiceState,
    VenueSide,
    Web3ChainReader,
    make_service_app,
)
from crossdeck.sim.service.state import system_clock_ms
from helpers.servers import start_app

from .support import (
    DEMO_KEY,
    OTHER_KEY,
    SOLVER_VENUE,
    USER,
    USER_KEY,
    VENUE_DEPOSITORY,
    Service,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

USER_NATIVE = 50 * 10**18
USER_USDC = 10_000 * 10**6
DEPOSIT_TOPIC = "0x" + keccak(text="Deposit(address,address,uint256,bytes32)").hex()


class ShiftedClock:
    """Real time (the chain checks permit deadlines against it), shiftable for expiry tests."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def __call__(self) -> int:
        return system_clock_ms() + self.offset_ms


# Both backends: py-evm (pip-only default) and anvil (a real node; carries the `anvil` marker).
BACKEND_PARAMS = [
    pytest.param(backend, marks=[pytest.mark.anvil] if backend == "anvil" else [])
    for backend in BACKENDS
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=BACKEND_PARAMS)
async def node(request: pytest.FixtureRequest) -> AsyncIterator[ChainNode]:
    chain = await start_chain(8453, backend=request.param, funded={USER: (USER_NATIVE, USER_USDC)})
    try:
        yield chain
    finally:
        await chain.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def w3(node: ChainNode) -> AsyncIterator[AsyncWeb3]:
    client = AsyncWeb3(AsyncHTTPProvider(node.rpc_url))
    try:
        yield client
    finally:
        await client.provider.disconnect()


@pytest_asyncio.fixture(loop_scope="module")
async def service(node: ChainNode) -> AsyncIterator[Service]:
    import httpx

    clock = ShiftedClock()
    state = ServiceState(":memory:", clock=clock)
    state.register_api_key("demo", DEMO_KEY)
    reader = Web3ChainReader()
    directory = ChainDirectory(
        [
            EvmChain(
                8453,
                "base",
                "Base",
                usdc=node.usdc,
                depository=node.depository,
                rpc_url=node.rpc_url,
                relayer_key=node.operator_key,
            )
        ],
        venue=VenueSide(solver_address=SOLVER_VENUE, depository=VENUE_DEPOSITORY),
        reader=reader,
    )
    engine = QuoteEngine(state, directory, BRANDS["neutral"])
    runner, url = await start_app(make_service_app(state, engine, ServiceConfig()))
    async with httpx.AsyncClient(timeout=60) as http:
        yield Service(url, http, state, engine, reader, clock, BRANDS["neutral"])  # type: ignore[arg-type]
    await runner.cleanup()
    await reader.close()


def usdc_body(node: ChainNode, amount: int, **extra: Any) -> dict[str, Any]:
    return {
        "user": USER,
        "originChainId": 8453,
        "destinationChainId": 1337,
        "originCurrency": node.usdc,
        "destinationCurrency": "0x" + "0" * 32,
        "amount": str(amount),
        "tradeType": "EXACT_INPUT",
        **extra,
    }


async def send_item(w3: AsyncWeb3, data: dict[str, Any]) -> dict[str, Any]:
    """Sign and send a step item's transaction as the user, exactly as quoted."""
    tx = {
        "chainId": data["chainId"],
        "to": data["to"],
        "data": data["data"],
        "value": int(data["value"]),
        "maxFeePerGas": int(data["maxFeePerGas"]),
        "maxPriorityFeePerGas": int(data["maxPriorityFeePerGas"]),
        "nonce": await w3.eth.get_transaction_count(USER, "pending"),
        "gas": 300_000,
    }
    assert data["from"] == USER
    raw = Account.sign_transaction(tx, USER_KEY).raw_transaction
    tx_hash = await w3.eth.send_raw_transaction(raw)
    receipt = await w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.05)
    assert receipt["status"] == 1
    return receipt


def deposit_events(receipt: dict[str, Any], depository: str) -> list[tuple[str, int, str]]:
    """(token, amount, id) of every Deposit log the depository emitted."""
    out = []
    for log in receipt["logs"]:
        if log["address"].lower() != depository.lower():
            continue
        topics = ["0x" + bytes(t).hex().removeprefix("0x") for t in log["topics"]]
        if topics[0] != DEPOSIT_TOPIC:
            continue
        (amount,) = decode(["uint256"], bytes(log["data"]))
        token = to_checksum_address("0x" + topics[2][-40:])
        out.append((token, amount, topics[3]))
    return out


async def balance_of(w3: AsyncWeb3, token: str, owner: str) -> int:
    data = (
        "0x" + (keccak(text="balanceOf(address)")[:4] + bytes(12) + bytes.fromhex(owner[2:])).hex()
    )
    raw = await w3.eth.call({"to": token, "data": data})
    return int.from_bytes(bytes(raw), "big")


async def test_native_deposit_calldata_is_accepted_by_the_depository(
    service: Service, node: ChainNode, w3: AsyncWeb3
) -> None:
    amount = 10**17
    quote = await service.ok_quote(
        usdc_body(
            node, amount, originCurrency="0x" + "00" * 20, destinationCurrency="0x" + "0" * 32
        )
    )
    assert [s["id"] for s in quote["steps"]] == ["deposit"]
    assert quote["details"]["userBalance"] == str(await w3.eth.get_balance(USER))
    block = await w3.eth.get_block("latest")
    data = quote["steps"][0]["items"][0]["data"]
    assert int(data["maxFeePerGas"]) >= int(block["baseFeePerGas"])
    receipt = await send_item(w3, data)
    order_id = quote["protocol"]["v2"]["orderId"]
    assert deposit_events(receipt, node.depository) == [("0x" + "00" * 20, amount, order_id)]


async def test_approve_only_when_the_allowance_is_short(
    service: Service, node: ChainNode, w3: AsyncWeb3
) -> None:
    amount = 25 * 10**6
    first = await service.ok_quote(usdc_body(node, amount))
    assert [s["id"] for s in first["steps"]] == ["approve", "deposit"]
    await send_item(w3, first["steps"][0]["items"][0]["data"])  # the approve, exactly as quoted

    second = await service.ok_quote(usdc_body(node, amount))
    assert [s["id"] for s in second["steps"]] == ["deposit"]
    assert second["details"]["userBalance"] == str(await balance_of(w3, node.usdc, USER))
    receipt = await send_item(w3, second["steps"][0]["items"][0]["data"])
    order_id = second["protocol"]["v2"]["orderId"]
    assert deposit_events(receipt, node.depository) == [
        (to_checksum_address(node.usdc), amount, order_id)
    ]
    # The allowance is used up again: the next quote asks for approval again.
    third = await service.ok_quote(usdc_body(node, amount))
    assert [s["id"] for s in third["steps"]] == ["approve", "deposit"]


def sign_permit(sign: dict[str, Any], key: str) -> str:
    typed = {
        "types": sign["types"],
        "domain": sign["domain"],
        "primaryType": sign["primaryType"],
        "message": sign["value"],
    }
    signed = Account.sign_message(encode_typed_data(full_message=typed), private_key=key)
    return "0x" + signed.signature.hex().removeprefix("0x")


async def post_permit(service: Service, post: dict[str, Any], signature: str):
    return await service.http.post(
        f"{service.url}{post['endpoint']}", params={"signature": signature}, json=post["body"]
    )


async def test_permit_is_verified_submitted_and_marks_depositing(
    service: Service, node: ChainNode, w3: AsyncWeb3
) -> None:
    amount = 12 * 10**6
    seen: list[str] = []
    service.state.subscribe(lambda change: seen.append(change.record.status.value))
    quote = await service.ok_quote(usdc_body(node, amount, usePermit=True))
    request_id = quote["steps"][0]["requestId"]
    item = quote["steps"][0]["items"][0]["data"]
    before = await balance_of(w3, node.usdc, node.depository)

    wrong = await post_permit(service, item["post"], sign_permit(item["sign"], OTHER_KEY))
    assert wrong.status_code == 401 and wrong.json()["errorCode"] == "UNAUTHORIZED"

    signature = sign_permit(item["sign"], USER_KEY)
    response = await post_permit(service, item["post"], signature)
    assert response.status_code == 200, response.text
    tx_hash = response.json()["txHash"]
    record = service.state.get(request_id)
    assert record.status == "depositing" and seen == ["depositing"]
    assert [t.hash for t in record.in_txs] == [tx_hash]
    assert await balance_of(w3, node.usdc, node.depository) == before + amount
    receipt = await w3.eth.get_transaction_receipt(tx_hash)
    assert deposit_events(receipt, node.depository) == [
        (to_checksum_address(node.usdc), amount, quote["protocol"]["v2"]["orderId"])
    ]
    status = (await service.get("/intents/status/v3", requestId=request_id)).json()
    assert status["status"] == "depositing" and status["inTxHashes"] == [tx_hash]

    replay = await post_permit(service, item["post"], signature)
    assert replay.status_code == 400 and "depositing" in replay.json()["message"]


async def test_expired_or_unknown_permits_are_refused(service: Service, node: ChainNode) -> None:
    quote = await service.ok_quote(usdc_body(node, 3 * 10**6, usePermit=True, permitExpiry=60))
    item = quote["steps"][0]["items"][0]["data"]
    service.clock.offset_ms = 61_000  # type: ignore[attr-defined]
    expired = await post_permit(service, item["post"], sign_permit(item["sign"], USER_KEY))
    assert expired.status_code == 400
    assert expired.json()["errorCode"] == "SIGNATURE_EXPIRED"
    assert service.state.get(quote["steps"][0]["requestId"]).status == "waiting"
    service.clock.offset_ms = 0  # type: ignore[attr-defined]

    unknown = await post_permit(
        service,
        {
            "endpoint": "/execute/permits",
            "body": {"kind": "eip3009", "requestId": "0x" + "11" * 32},
        },
        sign_permit(item["sign"], USER_KEY),
    )
    assert unknown.status_code == 404
    plain = await service.ok_quote(usdc_body(node, 3 * 10**6))
    not_permit = await post_permit(
        service,
        {
            "endpoint": "/execute/permits",
            "body": {"kind": "eip3009", "requestId": plain["steps"][0]["requestId"]},
        },
        sign_permit(item["sign"], USER_KEY),
    )
    assert not_permit.status_code == 400 and "usePermit" in not_permit.json()["message"]
    missing = await service.http.post(f"{service.url}/execute/permits", json=item["post"]["body"])
    assert missing.status_code == 400 and missing.json()["errorCode"] == "INVALID_SIGNATURE"


async def test_unreachable_chain_is_a_classified_error(node: ChainNode) -> None:
    import httpx

    state = ServiceState(":memory:")
    directory = ChainDirectory(
        [
            EvmChain(
                8453,
                "base",
                "Base",
                usdc=node.usdc,
                depository=node.depository,
                rpc_url="http://127.0.0.1:9",  # nothing listens on the discard port
            )
        ],
        venue=VenueSide(solver_address=SOLVER_VENUE, depository=VENUE_DEPOSITORY),
        reader=Web3ChainReader(timeout=2),
    )
    engine = QuoteEngine(state, directory, BRANDS["neutral"])
    runner, url = await start_app(make_service_app(state, engine, ServiceConfig()))
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            response = await http.post(f"{url}/quote/v2", json=usdc_body(node, 5 * 10**6))
        assert response.status_code == 502
        assert response.json()["errorCode"] == "RPC_HTTP_ERROR"
    finally:
        await runner.cleanup()
