"""Never a crash: arbitrary bodies and queries get a JSON answer below 500.

The service runs in its own event loop on a background thread so hypothesis can drive it with
a plain synchronous client, one server for all examples.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from crossdeck.sim.brand import BRANDS
from crossdeck.sim.service import (
    QuoteEngine,
    ServiceConfig,
    ServiceState,
    StaticChainReader,
    make_service_app,
)
from helpers.servers import start_app

from .support import BASE_USDC, HYPER_USDC, NATIVE, PERPS_USDC, USER, make_directory


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        state = ServiceState(":memory:")
        engine = QuoteEngine(state, make_directory(StaticChainReader()), BRANDS["neutral"])
        app = make_service_app(
            state, engine, ServiceConfig(anonymous_per_minute=10**6, keyed_per_minute=10**6)
        )
        holder["runner"], holder["url"] = loop.run_until_complete(start_app(app))
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10)
    yield holder["url"]
    asyncio.run_coroutine_threadsafe(holder["runner"].cleanup(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as client:
        yield client


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=12),
    st.sampled_from([USER, NATIVE, BASE_USDC, HYPER_USDC, PERPS_USDC, "0x", "9" * 5000]),
)
json_values = st.recursive(
    json_leaf,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
QUOTE_FIELDS = [
    "user",
    "originChainId",
    "destinationChainId",
    "originCurrency",
    "destinationCurrency",
    "amount",
    "tradeType",
    "recipient",
    "refundTo",
    "protocolVersion",
    "topupGas",
    "topupGasAmount",
    "subsidizeFees",
    "sponsoredFeeComponents",
    "maxSubsidizationAmount",
    "useDepositAddress",
    "strict",
    "usePermit",
    "permitExpiry",
    "slippageTolerance",
    "referrer",
    "appFees",
]
VALID = {
    "user": USER,
    "originChainId": 8453,
    "destinationChainId": 999,
    "originCurrency": NATIVE,
    "destinationCurrency": HYPER_USDC,
    "amount": "1000000000000000000",
    "tradeType": "EXACT_INPUT",
}
quote_bodies = st.builds(
    lambda base, changes: {**base, **changes},
    st.just(VALID),
    st.dictionaries(st.sampled_from(QUOTE_FIELDS), json_values, max_size=4),
)


def assert_json_error_or_ok(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    answer = response.json()
    if response.status_code >= 400:
        assert isinstance(answer["message"], str) and isinstance(answer["errorCode"], str)


FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(payload=st.one_of(quote_bodies, json_values))
@example(payload={**VALID, "amount": "9" * 5000})
@example(payload={**VALID, "amount": "1" + "0" * 80})
@example(payload={**VALID, "slippageTolerance": "9" * 5000})
@example(payload={**VALID, "tradeType": "EXACT_OUTPUT", "amount": str(2**256 - 1)})
@example(payload={**VALID, "originChainId": 2**70})
def test_quote_never_crashes(base_url: str, http: httpx.Client, payload: Any) -> None:
    assert_json_error_or_ok(http.post(f"{base_url}/quote/v2", json=payload))


@FUZZ
@given(
    path=st.sampled_from(["/authorize", "/execute/permits", "/transactions/index", "/_sim/faults"]),
    payload=json_values,
    signature=st.one_of(st.none(), st.text(max_size=140), st.just("0x" + "1b" * 65)),
)
@example(
    path="/authorize",
    payload={
        "type": "nonce-mapping",
        "walletChainId": 1337,
        "wallet": USER,
        "depositor": USER,
        "nonce": "9" * 5000,
        "id": "0x" + "11" * 32,
        "signatureChainId": 1,
    },
    signature="0x" + "1b" * 65,
)
@example(
    path="/transactions/index",
    payload={"txHash": "0x" + "11" * 32, "chainId": "9" * 5000},
    signature=None,
)
@example(
    path="/transactions/index", payload={"txHash": "0x" + "11" * 32, "chainId": "²"}, signature=None
)
def test_signed_posts_never_crash(
    base_url: str, http: httpx.Client, path: str, payload: Any, signature: str | None
) -> None:
    if (
        path == "/_sim/faults"
        and isinstance(payload, dict)
        and payload.get("kind")
        in (
            "503",
            "429",
            "slow",
            "malformed",
        )
    ):
        return  # an armed fault is meant to answer 5xx / non-JSON
    params = {"signature": signature} if signature is not None else {}
    assert_json_error_or_ok(http.post(f"{base_url}{path}", params=params, json=payload))


@FUZZ
@given(
    query=st.dictionaries(
        st.sampled_from(
            [
                "limit",
                "continuation",
                "user",
                "hash",
                "originChainId",
                "chainId",
                "id",
                "startTimestamp",
                "endBlock",
                "status",
                "sortBy",
                "sortDirection",
                "includeChildRequests",
                "apiKey",
            ]
        ),
        st.text(max_size=30),
        max_size=4,
    )
)
def test_history_never_crashes(base_url: str, http: httpx.Client, query: dict[str, str]) -> None:
    assert_json_error_or_ok(http.get(f"{base_url}/requests/v2", params=query))
    assert_json_error_or_ok(
        http.get(f"{base_url}/intents/status/v3", params={"requestId": query.get("id", "")})
    )
