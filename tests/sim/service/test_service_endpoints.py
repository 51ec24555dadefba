"""Status v1/v3, /chains, /transactions/index, rate limits and fault injection."""

from __future__ import annotations

import pytest

from crossdeck.sim.service import Tx

from .support import (
    BASE_DEPOSITORY,
    DEMO_KEY,
    HIP3_USDC,
    PERPS_USDC,
    SOLVER_VENUE,
    SPOT_USDC,
    START_MS,
    VENUE_DEPOSITORY,
    Service,
    body,
)

V3_KEYS = {
    "status",
    "details",
    "failReason",
    "refundFailReason",
    "inTxHashes",
    "txHashes",
    "updatedAt",
    "originChainId",
    "destinationChainId",
    "quoteCreatedAt",
}


async def quoted(service: Service) -> str:
    return (await service.ok_quote(body()))["steps"][0]["requestId"]


async def status(service: Service, request_id: str, version: str = "v3") -> dict:
    path = "/intents/status/v3" if version == "v3" else "/intents/status"
    response = await service.get(path, requestId=request_id)
    assert response.status_code == 200, response.text
    return response.json()


async def test_status_v3_follows_the_lifecycle(service: Service) -> None:
    request_id = await quoted(service)
    first = await status(service, request_id)
    assert set(first) == V3_KEYS
    assert first == {
        "status": "waiting",
        "details": None,
        "failReason": "N/A",
        "refundFailReason": "N/A",
        "inTxHashes": [],
        "txHashes": [],
        "updatedAt": START_MS,
        "originChainId": 8453,
        "destinationChainId": 999,
        "quoteCreatedAt": START_MS,
    }
    deposit = "0x" + "01" * 32
    service.clock.advance(500)
    service.state.advance(request_id, "pending", in_tx=Tx(hash=deposit, chain_id=8453))
    service.clock.advance(500)
    service.state.advance(request_id, "failure", fail_reason="SLIPPAGE", details="reverted")
    failed = await status(service, request_id)
    assert failed["status"] == "failure"
    assert failed["failReason"] == "SLIPPAGE" and failed["details"] == "reverted"
    assert failed["inTxHashes"] == [deposit]
    assert failed["updatedAt"] == START_MS + 1000 and failed["quoteCreatedAt"] == START_MS
    refund = "0x" + "02" * 32
    service.state.advance(
        request_id, "refund", out_tx=Tx(hash=refund, chain_id=8453), refund_fail_reason=None
    )
    refunded = await status(service, request_id)
    assert refunded["status"] == "refund" and refunded["txHashes"] == [refund]
    assert refunded["failReason"] == "SLIPPAGE" and refunded["refundFailReason"] == "N/A"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ([], "pending"),
        (["depositing"], "received"),
        (["pending"], "received"),
        (["pending", "submitted"], "received"),
        (["pending", "submitted", "success"], "success"),
        (["pending", "failure"], "failure"),
        (["pending", "failure", "refund"], "fallback"),
    ],
)
async def test_status_v1_maps_statuses(service: Service, path: list[str], expected: str) -> None:
    request_id = await quoted(service)
    for step in path:
        service.clock.advance(100)
        service.state.advance(request_id, step)
    answer = await status(service, request_id, "v1")
    assert set(answer) == {
        "status",
        "details",
        "inTxHashes",
        "txHashes",
        "time",
        "originChainId",
        "destinationChainId",
    }
    assert answer["status"] == expected
    assert answer["time"] == START_MS + 100 * len(path)


@pytest.mark.parametrize("path", ["/intents/status", "/intents/status/v3"])
async def test_status_of_unknown_and_malformed_ids(service: Service, path: str) -> None:
    unknown = await service.get(path, requestId="0x" + "ab" * 32)
    assert unknown.status_code == 404
    assert unknown.json()["errorCode"] == "NOT_FOUND"
    malformed = await service.get(path, requestId="42")
    assert malformed.status_code == 400 and malformed.json()["errorCode"] == "INVALID_INPUT"
    missing = await service.get(path)
    assert missing.status_code == 400 and "requestId" in missing.json()["message"]


async def test_step_check_endpoint_answers(service: Service) -> None:
    quote = await service.ok_quote(body())
    check = quote["steps"][0]["items"][0]["check"]
    response = await service.http.get(f"{service.url}{check['endpoint']}")
    assert response.status_code == 200 and response.json()["status"] == "pending"


@pytest.mark.parametrize("brand", ["neutral", "public"])
async def test_chains(make_service, brand: str) -> None:
    service = await make_service(brand)
    response = await service.get("/chains")
    assert response.status_code == 200
    chains = {c["id"]: c for c in response.json()["chains"]}
    assert set(chains) == {8453, 999, 1337}
    for chain in chains.values():
        for key in (
            "name",
            "displayName",
            "httpRpcUrl",
            "explorerUrl",
            "explorerPaths",
            "depositEnabled",
            "disabled",
            "blockProductionLagging",
            "currency",
            "erc20Currencies",
            "solverCurrencies",
            "vmType",
            "protocol",
        ):
            assert key in chain, (chain["id"], key)
        assert "{TX_HASH}" in chain["explorerPaths"]["transaction"]
        # the protocol's chain NAME (quotes' paymentDetails.chainId), not the numeric id
        assert chain["protocol"]["v2"]["chainId"] == chain["name"]
        assert chain["solverAddresses"]
        # Multicall3 only where the chain has it; none of the other public helper contracts
        assert set(chain["contracts"]) <= {"multicall3"}
    assert chains[8453]["currency"]["symbol"] == "ETH"
    assert chains[999]["currency"]["symbol"] == "HYPE"
    assert chains[8453]["protocol"]["v2"]["depository"].lower() == BASE_DEPOSITORY
    venue = chains[1337]
    assert venue["displayName"] == service.brand.venue_name
    assert venue["name"] == service.brand.venue_name.lower()
    addresses = {c["address"] for c in venue["solverCurrencies"]}
    assert {PERPS_USDC, SPOT_USDC, HIP3_USDC} <= addresses
    assert {c["symbol"] for c in venue["solverCurrencies"]} >= {"USDC", "USDe", "USDH"}
    assert all(c["decimals"] == 8 for c in venue["solverCurrencies"])
    # the venue's depository is an account of its own; the solver is listed apart
    assert venue["protocol"]["v2"]["depository"] == VENUE_DEPOSITORY
    assert venue["solverAddresses"] == [SOLVER_VENUE]


async def test_transactions_index(service: Service) -> None:
    seen: list[tuple[int, str]] = []
    service.state.on_tx_indexed(lambda chain, tx: seen.append((chain, tx)))
    tx = "0x" + "Ab" * 32
    response = await service.http.post(
        f"{service.url}/transactions/index", json={"txHash": tx, "chainId": 8453}
    )
    assert response.status_code == 200
    assert seen == [(8453, tx.lower())] and service.state.indexed_txs() == seen
    for bad in ({"txHash": "0x12", "chainId": 8453}, {"txHash": tx, "chainId": 5}, [tx]):
        refused = await service.http.post(f"{service.url}/transactions/index", json=bad)
        assert refused.status_code == 400
    assert len(seen) == 1


async def test_unknown_route_is_json_404(service: Service) -> None:
    response = await service.get("/quote/v9")
    assert response.status_code == 404
    assert response.json()["errorCode"] == "NOT_FOUND"
    wrong_method = await service.get("/quote/v2")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["errorCode"] == "METHOD_NOT_ALLOWED"


async def test_anonymous_rate_limit(make_service) -> None:
    service = await make_service(anonymous_per_minute=3, keyed_per_minute=6)
    codes = [(await service.get("/chains")).status_code for _ in range(3)]
    assert codes == [200, 200, 200]
    limited = await service.get("/chains")
    assert limited.status_code == 429
    assert limited.json()["errorCode"] == "RATE_LIMITED"
    assert int(limited.headers["Retry-After"]) >= 1
    assert "x-api-key" in limited.json()["message"]
    # A keyed caller has its own, larger bucket.
    keyed = [(await service.get("/chains", key=DEMO_KEY)).status_code for _ in range(7)]
    assert keyed == [200] * 6 + [429]
    # The quote endpoint is limited too, and a limited call stores nothing.
    refused = await service.quote(body())
    assert refused.status_code == 429
    assert service.state.query("SELECT COUNT(*) AS n FROM requests")[0]["n"] == 0


async def test_unknown_api_key_is_401(service: Service) -> None:
    response = await service.get("/chains", key="not-a-key")
    assert response.status_code == 401
    assert response.json()["errorCode"] == "UNAUTHORIZED"


@pytest.mark.parametrize(
    ("kind", "status", "code"), [("503", 503, "SERVICE_UNAVAILABLE"), ("429", 429, "RATE_LIMITED")]
)
async def test_fault_injection_errors(service: Service, kind: str, status: int, code: str) -> None:
    service.state.faults.inject(kind, 2, path="/quote/v2")
    assert (await service.get("/chains")).status_code == 200  # other paths untouched
    for _ in range(2):
        response = await service.quote(body())
        assert response.status_code == status
        assert response.json()["errorCode"] == code
        if kind == "429":
            assert response.headers["Retry-After"] == "1"
    assert (await service.quote(body())).status_code == 200


async def test_fault_injection_malformed_and_slow_over_http(service: Service) -> None:
    armed = await service.http.post(
        f"{service.url}/_sim/faults", json={"kind": "malformed", "count": 1}
    )
    assert armed.status_code == 200 and armed.json()["pending"] == 1
    broken = await service.get("/chains")
    assert broken.status_code == 200
    with pytest.raises(ValueError):
        broken.json()
    assert (await service.get("/chains")).status_code == 200

    armed = await service.http.post(
        f"{service.url}/_sim/faults",
        json={"kind": "slow", "count": 1, "path": "/chains", "delay": 0.05},
    )
    assert armed.status_code == 200
    slow = await service.get("/chains")
    assert slow.status_code == 200 and slow.json()["chains"]
    assert service.state.faults.pending() == 0


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "boom", "count": 1},
        {"kind": "503", "count": 0},
        {"kind": "503", "count": 1, "path": "chains"},
        {"kind": "slow", "count": 1, "delay": -1},
        ["503"],
    ],
)
async def test_fault_injection_refuses_bad_requests(service: Service, payload) -> None:
    response = await service.http.post(f"{service.url}/_sim/faults", json=payload)
    assert response.status_code == 400
    assert service.state.faults.pending() == 0


async def test_faults_and_limits_never_touch_sim_routes(make_service) -> None:
    service = await make_service(anonymous_per_minute=1)
    service.state.faults.inject("503", 5)
    for _ in range(3):
        response = await service.http.post(
            f"{service.url}/_sim/faults", json={"kind": "503", "count": 1}
        )
        assert response.status_code == 200
