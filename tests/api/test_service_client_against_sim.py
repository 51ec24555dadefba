"""ServiceClient against the demo world's service (crossdeck.sim.service), both brands.

The sim is a second, independent reading of the spec; these tests check that the client's
models parse what it sends and that its requests are what it expects.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from aiohttp import web
from eth_account import Account
from eth_account.messages import encode_typed_data

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import RateLimitedError, ServiceError
from crossdeck.models import QuoteRequest, RequestsQuery
from crossdeck.retry import RetryPolicy
from crossdeck.sim.brand import BRANDS, Brand
from crossdeck.sim.service import (
    ChainDirectory,
    EvmChain,
    QuoteEngine,
    ServiceConfig,
    ServiceState,
    StaticChainReader,
    VenueSide,
    make_service_app,
)
from crossdeck.sim.service.state import Tx
from crossdeck.venue.signing import build_send_asset_typed_data
from helpers.keys import DEV_KEYS
from helpers.typed_data import eip712_domain_fields
from helpers.waiting import SleepRecorder

USER_KEY = DEV_KEYS[0]
USER = Account.from_key(USER_KEY).address
BASE_USDC = "0x" + "a1" * 20
HYPER_USDC = "0x" + "a2" * 20
SOLVER_VENUE = "0x" + "5a" * 20
PERPS_USDC = "0x" + "0" * 32
NATIVE = "0x" + "0" * 40
API_KEY = "sim-api-key"


@dataclass
class Sim:
    url: str
    brand: Brand
    state: ServiceState


@pytest.fixture(params=["neutral", "public"])
async def sim(request: pytest.FixtureRequest) -> AsyncIterator[Sim]:
    brand = BRANDS[request.param]
    reader = StaticChainReader()
    state = ServiceState(":memory:")
    state.register_api_key("tests", API_KEY)
    directory = ChainDirectory(
        [
            EvmChain(8453, "base", "Base", usdc=BASE_USDC, depository="0x" + "d1" * 20),
            EvmChain(
                999,
                "hyperevm",
                "HyperEVM",
                usdc=HYPER_USDC,
                depository="0x" + "d2" * 20,
                native_symbol="HYPE",
                native_name="HYPE",
            ),
        ],
        venue=VenueSide(
            solver_address=SOLVER_VENUE,
            depository="0x" + "5d" * 20,
            balance=lambda user, cur: 10**14,
        ),
        reader=reader,
    )
    config = ServiceConfig(brand=brand, anonymous_per_minute=3, keyed_per_minute=10_000)
    runner = web.AppRunner(make_service_app(state, QuoteEngine(state, directory, brand), config))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield Sim(f"http://{host}:{port}", brand, state)
    finally:
        await runner.cleanup()


def withdrawal(amount: int = 10 * 10**8) -> QuoteRequest:
    return QuoteRequest.build(
        user=USER,
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=PERPS_USDC,
        destination_currency=BASE_USDC,
        amount=str(amount),
        trade_type="EXACT_INPUT",
        protocol_version="v2",
    )


async def test_chains_list_the_venue_and_its_currencies(sim: Sim) -> None:
    async with ServiceClient(sim.url, api_key=API_KEY) as client:
        chains = await client.chains()
    venue = chains.venue
    assert venue is not None
    assert venue.find_currency(PERPS_USDC) is not None
    assert venue.find_currency(PERPS_USDC).decimals == 8  # type: ignore[union-attr]
    base = chains.by_id(8453)
    assert base is not None and base.find_currency(BASE_USDC).decimals == 6  # type: ignore[union-attr]


async def test_withdrawal_quote_parses_and_its_steps_sign(sim: Sim) -> None:
    account = Account.from_key(USER_KEY)
    async with ServiceClient(sim.url, api_key=API_KEY) as client:
        quote = await client.quote(withdrawal())
        assert [s.id for s in quote.steps] == ["authorize", "deposit"]
        request_id = quote.request_id
        assert request_id is not None

        authorize = quote.steps[0].items[0].as_signature()
        assert authorize.sign is not None and authorize.post is not None
        assert authorize.sign.domain["name"] == sim.brand.nonce_mapping_domain  # type: ignore[index]
        typed = {
            "domain": authorize.sign.domain,
            "types": {
                **(authorize.sign.types or {}),
                "EIP712Domain": eip712_domain_fields(),
            },
            "primaryType": authorize.sign.primary_type,
            "message": authorize.sign.value,
        }
        signature = account.sign_message(encode_typed_data(full_message=typed)).signature
        answer = await client.post_signed(
            authorize.post.endpoint or "", authorize.post.body or {}, "0x" + signature.hex()
        )
        assert isinstance(answer, dict)

        deposit = quote.steps[1].items[0].as_venue_deposit()
        assert deposit.action is not None and deposit.nonce == deposit.action.nonce
        assert deposit.eip712_primary_type == sim.brand.send_asset_type
        data = build_send_asset_typed_data(
            deposit.action.to_wire(),
            deposit.eip712_types or {},
            deposit.eip712_primary_type or "",
            8453,
        )
        assert data["domain"]["name"] == sim.brand.sign_domain
        assert data["message"][sim.brand.venue_chain_field] == "Mainnet"
        encode_typed_data(full_message=data)  # well-formed for the wallet

        status = await client.status(request_id)
        status_v3 = await client.status_v3(request_id)
        check = quote.steps[1].items[0].check
        assert check is not None and check.endpoint is not None
        followed = await client.check(check.endpoint)
    assert status.status is not None and status_v3.status == "waiting"
    assert followed.to_wire() == status.to_wire()  # type: ignore[union-attr]


async def test_history_pages_follow_the_sims_cursor(sim: Sim) -> None:
    async with ServiceClient(sim.url, api_key=API_KEY) as client:
        ids = {(await client.quote(withdrawal(n * 10**8))).request_id for n in range(1, 6)}
        for n, request_id in enumerate(sorted(ids)):  # quoted-only requests are not history
            sim.state.advance(str(request_id), "pending", in_tx=Tx(f"0x{n + 1:064x}", 1337))
        pages = [p async for p in client.iter_pages(RequestsQuery.build(limit=2, user=USER))]
        records = [r async for r in client.iter_requests(RequestsQuery.build(limit=2))]
    assert [len(p.requests) for p in pages] == [2, 2, 1]
    assert {r.id for r in records} == ids
    assert all(r.status == "pending" and len(r.in_tx_hashes) == 1 for r in records)
    assert all(r.created_at is not None for r in records)
    assert not pages[-1].has_more


async def test_sim_errors_become_service_errors(sim: Sim) -> None:
    async with ServiceClient(sim.url, api_key=API_KEY) as client:
        with pytest.raises(ServiceError) as info:
            await client.quote(withdrawal(0))
        assert info.value.status is not None and 400 <= info.value.status < 500
        assert info.value.error_code
        with pytest.raises(ServiceError) as unknown:
            await client.status("0x" + "99" * 32)
        assert unknown.value.status == 404
    async with ServiceClient(sim.url, api_key="not-a-key") as client:
        with pytest.raises(ServiceError) as refused:
            await client.chains()
    assert refused.value.status == 401 and refused.value.error_code == "UNAUTHORIZED"


async def test_sim_rate_limit_is_honoured_then_reported(sim: Sim, sleeps: SleepRecorder) -> None:
    policy = RetryPolicy(max_attempts=2, max_retry_after=0.0, sleep=sleeps)
    async with ServiceClient(sim.url, retry=policy) as client:  # anonymous: 3 per minute
        for _ in range(3):
            await client.chains()
        with pytest.raises(RateLimitedError) as info:
            await client.chains()
    assert info.value.retry_after is not None and info.value.retry_after > 0
    assert sleeps.delays == []  # the wish exceeded max_retry_after, so no blind waiting
