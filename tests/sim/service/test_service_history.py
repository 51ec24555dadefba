"""GET /requests/v2: record shape (2.3), every filter of 4.2, sorting, limits, the cursor."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossdeck.sim.service import ServiceState, Status, Tx
from crossdeck.sim.service.history import list_requests

from .support import (
    BASE_USDC,
    DEMO_KEY,
    OTHER_API_KEY,
    PERPS_USDC,
    RECIPIENT,
    USER,
    FakeClock,
    Service,
    body,
)

ISO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ALICE = "0x" + "a0" * 20
BOB = "0x" + "b0" * 20


def tx_hash(n: int) -> str:
    return "0x" + f"{n:064x}"


async def listing(service: Service, *, key: str | None = None, **params: Any) -> dict[str, Any]:
    response = await service.get("/requests/v2", key=key, **params)
    assert response.status_code == 200, response.text
    return response.json()


async def ids(service: Service, *, key: str | None = None, **params: Any) -> list[str]:
    return [r["id"] for r in (await listing(service, key=key, **params))["requests"]]


async def quoted(service: Service, *, key: str | None = None, **overrides: Any) -> str:
    quote = await service.ok_quote(body(**overrides), key=key)
    return quote["steps"][0]["requestId"]


async def test_record_shape(service: Service) -> None:
    request_id = await quoted(
        service, key=DEMO_KEY, recipient=RECIPIENT, referrer="shop", subsidizeFees=True
    )
    service.clock.advance(2000)
    deposit = Tx(
        hash=tx_hash(1),
        chain_id=8453,
        from_=USER,
        to="0x" + "d1" * 20,
        value=10**18,
        data="0xabcd",
        fee=21000,
        timestamp=1_750_000_002,
        block=12,
    )
    service.state.advance(request_id, "pending", in_tx=deposit)
    answer = await listing(service)
    # v2 answers carry the public service's deprecation notice (v3 is the successor)
    assert set(answer) == {"requests", "continuation", "deprecation"}
    assert answer["continuation"] is None
    (record,) = answer["requests"]
    assert record["id"] == request_id
    assert record["status"] == "pending"
    assert record["user"] == USER and record["recipient"] == RECIPIENT
    assert record["depositAddress"] is None
    assert record["referrer"] == "shop"
    assert ISO_RE.fullmatch(record["createdAt"]) and ISO_RE.fullmatch(record["updatedAt"])
    assert record["createdAt"] == "2025-06-15T15:06:40.000Z"  # START_MS
    assert record["updatedAt"] == "2025-06-15T15:06:42.000Z"
    data = record["data"]
    assert data["subsidizedRequest"] is True
    for group in ("fees", "feesUsd"):
        assert set(data[group]) == {"gas", "fixed", "price"}
    # fees in smallest units, feesUsd in USD with 6 places, as the public service writes them
    assert all(re.fullmatch(r"[0-9]+", v) for v in data["fees"].values())
    assert all(re.fullmatch(r"[0-9]+\.[0-9]{6}", v) for v in data["feesUsd"].values())
    assert data["currency"] == "eth"
    assert data["price"] == str(10**18)
    assert data["usesExternalLiquidity"] is False
    assert data["outTxs"] == []
    assert data["inTxs"] == [
        {
            "fee": "21000",
            "data": {"to": "0x" + "d1" * 20, "data": "0xabcd", "from": USER, "value": str(10**18)},
            "hash": tx_hash(1),
            "type": "onchain",
            "chainId": 8453,
            "timestamp": 1_750_000_002,
            "block": 12,
            "status": "success",  # a mined tx, as the public record lists it
        }
    ]
    assert data["failReason"] == "N/A" and data["refundFailReason"] == "N/A"
    assert data["feeSponsorship"]["quoted"]["selectedComponents"]
    assert "orderData" not in record and "authenticatedData" not in record


async def test_waiting_quotes_are_listed_only_when_asked(service: Service) -> None:
    waiting = await quoted(service)
    assert await ids(service) == []
    assert await ids(service, status="waiting") == [waiting]
    assert await ids(service, id=waiting) == [waiting]


async def seed(service: Service) -> dict[str, str]:
    """Five requests with distinct attributes, each moved past 'waiting'."""
    state, clock = service.state, service.clock
    made: dict[str, str] = {}

    async def one(
        name: str,
        *,
        key: str | None = None,
        status: str = "pending",
        block: int,
        txs: tuple[int, ...] = (),
        **overrides: Any,
    ) -> None:
        clock.advance(10_000)
        request_id = await quoted(service, key=key, **overrides)
        made[name] = request_id
        state.advance(
            request_id,
            "pending",
            in_tx=Tx(hash=tx_hash(txs[0]), chain_id=8453, block=block) if txs else None,
        )
        if status == "success":
            state.advance(request_id, "submitted", out_tx=Tx(hash=tx_hash(txs[1]), chain_id=999))
            state.advance(request_id, "success")
        elif status == "refund":
            state.advance(request_id, "refund", fail_reason="SLIPPAGE")

    await one("a", key=DEMO_KEY, block=100, txs=(11, 12), status="success", referrer="r1")
    await one("b", key=OTHER_API_KEY, block=200, txs=(21,), recipient=ALICE, referrer="r2")
    await one(
        "c",
        block=300,
        txs=(31,),
        status="refund",
        originCurrency=BASE_USDC,
        amount="5000000",
        destinationChainId=1337,
        destinationCurrency=PERPS_USDC,
        recipient=BOB,
    )
    await one(
        "d",
        key=DEMO_KEY,
        block=400,
        txs=(41,),
        originChainId=1337,
        originCurrency=PERPS_USDC,
        destinationChainId=8453,
        destinationCurrency=BASE_USDC,
        amount="1000000000",
        protocolVersion="v2",
    )
    await one("e", block=500, txs=(51,), useDepositAddress=True)
    return made


async def test_every_filter(service: Service) -> None:
    r = await seed(service)
    a, b, c, d, e = (r[k] for k in "abcde")
    everything = await ids(service)
    assert everything == [e, d, c, b, a]  # default: createdAt, newest first

    assert await ids(service, user=ALICE) == [b]  # recipient side
    assert await ids(service, user=USER.lower()) == everything  # sender side, any case
    assert await ids(service, hash=tx_hash(12)) == [a]  # destination tx
    assert await ids(service, hash=tx_hash(31).upper().replace("0X", "0x")) == [c]
    assert await ids(service, originChainId=1337) == [d]
    assert await ids(service, destinationChainId=1337) == [c]
    assert await ids(service, chainId=1337) == [d, c]
    assert await ids(service, chainId=1337, originChainId=8453) == [e, c, b, a]  # overridden
    assert await ids(service, id=b) == [b]
    order_id = service.state.get(c).order_id
    assert await ids(service, orderId=order_id.upper().replace("0X", "0x")) == [c]
    created_b = service.state.get(b).created_at // 1000
    created_d = service.state.get(d).created_at // 1000
    assert await ids(service, startTimestamp=created_b, endTimestamp=created_d) == [d, c, b]
    assert await ids(service, startBlock=200, endBlock=400) == [d, c, b]
    assert await ids(service, startBlock=450) == [e]
    assert await ids(service, referrer="r2") == [b]
    assert await ids(service, status="success") == [a]
    assert await ids(service, status="refund") == [c]
    assert await ids(service, status="pending") == [e, d, b]
    assert await ids(service, apiKey=DEMO_KEY) == [d, a]
    assert await ids(service, apiKey=OTHER_API_KEY) == [b]
    assert await ids(service, apiKey="unknown") == []
    address = service.state.get(e).deposit_address.address
    assert await ids(service, depositAddress=address.lower()) == [e]
    assert await ids(service, privateChainsToInclude="uuid-1,uuid-2") == everything


async def test_children_with_id_or_deposit_address(service: Service) -> None:
    r = await seed(service)
    e = r["e"]
    service.clock.advance(1000)
    child = service.state.create_child(e, "refund", amount_in=5).id
    assert await ids(service, id=e) == [e]
    assert await ids(service, id=e, includeChildRequests="true") == [child, e]
    address = service.state.get(e).deposit_address.address
    assert await ids(service, depositAddress=address) == [e]
    assert await ids(service, depositAddress=address, includeChildRequests="true") == [child, e]
    (listed,) = (await listing(service, id=child))["requests"]
    assert listed["parentRequestId"] == e and listed["data"]["requestKind"] == "refund"


async def test_order_data_and_authenticated_data(service: Service) -> None:
    r = await seed(service)
    a, b = r["a"], r["b"]
    (plain,) = (await listing(service, id=a))["requests"]
    assert "orderData" not in plain
    (with_order,) = (await listing(service, id=a, includeOrderData="true"))["requests"]
    order = with_order["orderData"]
    assert order["version"] == "v1" and order["salt"].startswith("0x")
    assert order["inputs"][0]["payment"]["amount"] == str(service.state.get(a).amount_in)
    # Authenticated fields only for the key that created the request.
    answer = await listing(service, key=DEMO_KEY, includeAuthenticatedData="true")
    by_id = {x["id"]: x for x in answer["requests"]}
    assert by_id[a]["authenticatedData"] == {"apiKeyName": "demo", "refundTo": USER}
    assert "authenticatedData" not in by_id[b]
    anonymous = await listing(service, includeAuthenticatedData="true")
    assert all("authenticatedData" not in x for x in anonymous["requests"])


async def test_sorting(service: Service) -> None:
    r = await seed(service)
    a, b, c, d, e = (r[k] for k in "abcde")
    assert await ids(service, sortDirection="asc") == [a, b, c, d, e]
    assert await ids(service, sortBy="createdAt", sortDirection="desc") == [e, d, c, b, a]
    service.clock.advance(60_000)
    service.state.advance(b, "submitted")
    assert await ids(service, sortBy="updatedAt") == [b, e, d, c, a]
    assert await ids(service, sortBy="updatedAt", sortDirection="asc") == [a, c, d, e, b]


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "51"}, "limit"),
        ({"limit": "-1"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"sortBy": "amount"}, "sortBy"),
        ({"sortDirection": "up"}, "sortDirection"),
        ({"status": "lost"}, "status"),
        ({"originChainId": "base"}, "originChainId"),
        ({"startTimestamp": "yesterday"}, "startTimestamp"),
        ({"includeOrderData": "maybe"}, "includeOrderData"),
        ({"continuation": "not-a-cursor"}, "continuation"),
    ],
)
async def test_bad_parameters_are_400(service: Service, params: dict[str, str], word: str) -> None:
    response = await service.get("/requests/v2", **params)
    assert response.status_code == 400
    answer = response.json()
    assert answer["errorCode"] == "INVALID_INPUT" and word in answer["message"]


async def test_limit_bounds_and_default(service: Service) -> None:
    for _ in range(23):
        request_id = await quoted(service)
        service.state.advance(request_id, "pending")
        service.clock.advance(1)
    first = await listing(service)
    assert len(first["requests"]) == 20 and first["continuation"]
    assert len((await listing(service, limit=1))["requests"]) == 1
    page = await listing(service, limit=50)
    assert len(page["requests"]) == 23 and page["continuation"] is None
    rest = await listing(service, continuation=first["continuation"])
    assert len(rest["requests"]) == 3 and rest["continuation"] is None


async def test_cursor_is_tied_to_its_query(service: Service) -> None:
    for _ in range(3):
        service.state.advance(await quoted(service), "pending")
    cursor = (await listing(service, limit=1))["continuation"]
    for params in ({"sortDirection": "asc"}, {"sortBy": "updatedAt"}, {"user": ALICE}):
        response = await service.get("/requests/v2", limit=1, continuation=cursor, **params)
        assert response.status_code == 400
        assert "continuation" in response.json()["message"]
    assert DEMO_KEY not in cursor


def _state_with(count: int, clock: FakeClock) -> tuple[ServiceState, list[str]]:
    from .test_service_state import make_record

    state = ServiceState(clock=clock)
    made = []
    for i in range(count):
        if i % 3:  # several requests share a millisecond: the tie-break must hold
            clock.advance(1)
        record = state.create_request(make_record(clock, status=Status.PENDING))
        made.append(record.id)
    return state, made


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    initial=st.integers(min_value=0, max_value=30),
    limit=st.integers(min_value=1, max_value=7),
    direction=st.sampled_from(["asc", "desc"]),
    sort_by=st.sampled_from(["createdAt", "updatedAt"]),
    inserts=st.lists(st.integers(min_value=0, max_value=3), max_size=10),
)
def test_property_paging_with_concurrent_inserts_has_no_duplicates_or_gaps(
    initial: int, limit: int, direction: str, sort_by: str, inserts: list[int]
) -> None:
    from .test_service_state import make_record

    clock = FakeClock()
    state, existing = _state_with(initial, clock)
    query = {"limit": str(limit), "sortDirection": direction, "sortBy": sort_by}
    seen: list[str] = []
    added: list[str] = []
    step = 0
    while True:
        page = list_requests(state, query, caller_key_name=None)
        seen += [r.id for r in page.records]
        # Between pages, new requests arrive (some in the same millisecond as the cursor).
        for _ in range(inserts[step] if step < len(inserts) else 0):
            if step % 2:
                clock.advance(1)
            added.append(state.create_request(make_record(clock, status=Status.PENDING)).id)
        step += 1
        if page.continuation is None:
            break
        query = {**query, "continuation": page.continuation}
        assert step < 200
    assert len(seen) == len(set(seen)), "a request was listed twice"
    assert set(existing) <= set(seen), "a request that existed before paging was skipped"
    assert set(seen) <= set(existing) | set(added)
    order = [state.get(i) for i in seen]
    keys = [(r.created_at if sort_by == "createdAt" else r.updated_at) for r in order]
    assert keys == sorted(keys, reverse=direction == "desc")


async def test_paging_over_http_while_quotes_arrive(service: Service) -> None:
    for _ in range(9):
        service.state.advance(await quoted(service), "pending")
    before = set(await ids(service, limit=50))
    seen: list[str] = []
    params: dict[str, Any] = {"limit": 2}
    while True:
        page = await listing(service, **params)
        seen += [r["id"] for r in page["requests"]]
        new_id = await quoted(service)  # a concurrent quote, moved along at once
        service.state.advance(new_id, "pending")
        await asyncio.sleep(0)
        if page["continuation"] is None:
            break
        params["continuation"] = page["continuation"]
    assert len(seen) == len(set(seen))
    assert before <= set(seen)
