"""Helpers for the service tests: constants, a settable clock, quote bodies, a service handle.

Chains are absent here unless a test starts one: the quote engine reads them through a
``StaticChainReader`` (allowances and balances the test sets). Tests with a real py-evm chain
live in test_service_chain.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from eth_account import Account

from crossdeck.sim.brand import Brand
from crossdeck.sim.service import (
    ChainDirectory,
    EvmChain,
    QuoteEngine,
    ServiceState,
    StaticChainReader,
    VenueSide,
)
from helpers.keys import DEV_KEYS

# Publicly known anvil/hardhat test keys (#0, #1, #2): never real funds.
USER_KEY = DEV_KEYS[0]
OTHER_KEY = DEV_KEYS[1]
USER = Account.from_key(USER_KEY).address
OTHER = Account.from_key(OTHER_KEY).address
RECIPIENT = "0x" + "ab" * 20
BASE_USDC = "0x" + "a1" * 20
BASE_DEPOSITORY = "0x" + "d1" * 20
HYPER_USDC = "0x" + "a2" * 20
HYPER_DEPOSITORY = "0x" + "d2" * 20
SOLVER_VENUE = "0x" + "5a" * 20
# the venue depository: withdrawals pay it; an account apart from the solver
VENUE_DEPOSITORY = "0x" + "5d" * 20
NATIVE = "0x" + "00" * 20
PERPS_USDC = "0x" + "0" * 32
SPOT_USDC = "0x6d1e7cde53ba9467b783cb7c530ce054"
HIP3_USDC = SPOT_USDC + b"xyz".hex()
DEMO_KEY = "demo-key-for-tests"
OTHER_API_KEY = "other-key-for-tests"
START_MS = 1_750_000_000_000


class FakeClock:
    def __init__(self, ms: int = START_MS) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


def make_directory(reader: StaticChainReader, venue_balance=None) -> ChainDirectory:
    return ChainDirectory(
        [
            EvmChain(8453, "base", "Base", usdc=BASE_USDC, depository=BASE_DEPOSITORY),
            EvmChain(
                999,
                "hyperevm",
                "HyperEVM",
                usdc=HYPER_USDC,
                depository=HYPER_DEPOSITORY,
                native_symbol="HYPE",
                native_name="HYPE",
            ),
        ],
        venue=VenueSide(
            solver_address=SOLVER_VENUE, depository=VENUE_DEPOSITORY, balance=venue_balance
        ),
        reader=reader,
    )


def body(**overrides: Any) -> dict[str, Any]:
    """A valid EXACT_INPUT quote body: 1 ETH from Base to HyperEVM USDC, with overrides."""
    out: dict[str, Any] = {
        "user": USER,
        "originChainId": 8453,
        "destinationChainId": 999,
        "originCurrency": NATIVE,
        "destinationCurrency": HYPER_USDC,
        "amount": str(10**18),
        "tradeType": "EXACT_INPUT",
    }
    out.update(overrides)
    return {k: v for k, v in out.items() if v is not None}


@dataclass
class Service:
    url: str
    http: httpx.AsyncClient
    state: ServiceState
    engine: QuoteEngine
    reader: StaticChainReader
    clock: FakeClock
    brand: Brand

    async def quote(self, payload: Any, *, key: str | None = None) -> httpx.Response:
        headers = {"x-api-key": key} if key else {}
        return await self.http.post(f"{self.url}/quote/v2", json=payload, headers=headers)

    async def ok_quote(self, payload: Any, *, key: str | None = None) -> dict[str, Any]:
        response = await self.quote(payload, key=key)
        assert response.status_code == 200, response.text
        return response.json()

    async def get(self, path: str, *, key: str | None = None, **params: Any) -> httpx.Response:
        headers = {"x-api-key": key} if key else {}
        return await self.http.get(f"{self.url}{path}", params=params, headers=headers)


ServiceFactory = Callable[..., Awaitable[Service]]
