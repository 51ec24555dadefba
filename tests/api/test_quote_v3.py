"""The client on the service's current API against the world's reading of it: /quote/v3 with an
API key or an access token, its flat steps and fees read into the one quote model, the errors
that name their fix (exit 6, asked once), and the deprecation signals of /quote/v2."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from aiohttp import web
from eth_account import Account

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import ServiceError
from crossdeck.api.quote_api import CredentialRefused, QuoteNeedsCredential
from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret
from crossdeck.models import QuoteRequest
from crossdeck.sim.brand import BRANDS
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
from helpers.keys import DEV_KEYS

USER = Account.from_key(DEV_KEYS[0]).address
BASE_USDC = "0x" + "a1" * 20
PERPS_USDC = "0x" + "0" * 32
NATIVE = "0x" + "0" * 40
API_KEY = "sim-api-key"


@dataclass
class Sim:
    url: str
    state: ServiceState


async def _serve(config: ServiceConfig) -> AsyncIterator[Sim]:
    brand = BRANDS["neutral"]
    state = ServiceState(":memory:")
    state.register_api_key("tests", API_KEY)
    directory = ChainDirectory(
        [EvmChain(8453, "base", "Base", usdc=BASE_USDC, depository="0x" + "d1" * 20)],
        venue=VenueSide(
            solver_address="0x" + "5a" * 20,
            depository="0x" + "5d" * 20,
            balance=lambda user, cur: 10**14,
        ),
        reader=StaticChainReader(),
    )
    app = make_service_app(state, QuoteEngine(state, directory, brand), config)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield Sim(f"http://{host}:{port}", state)
    finally:
        await runner.cleanup()


@pytest.fixture
async def sim() -> AsyncIterator[Sim]:
    async for running in _serve(ServiceConfig()):
        yield running


@pytest.fixture
async def retired_sim() -> AsyncIterator[Sim]:
    async for running in _serve(ServiceConfig(quote_v2_retired=True)):
        yield running


class Counting(httpx.AsyncHTTPTransport):
    """The real transport, counting what it sends and keeping the answers' paths."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.headers: list[httpx.Headers] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        self.headers.append(request.headers)
        return await super().handle_async_request(request)


def deposit(**extra: object) -> QuoteRequest:
    return QuoteRequest.build(
        user=USER,
        origin_chain_id=8453,
        destination_chain_id=1337,
        origin_currency=BASE_USDC,
        destination_currency=PERPS_USDC,
        amount="10000000",
        trade_type="EXACT_INPUT",
        **extra,
    )


async def test_with_a_key_the_quote_is_asked_of_v3_and_read_into_the_one_model(sim: Sim) -> None:
    transport = Counting()
    async with ServiceClient(sim.url, api_key=API_KEY, transport=transport) as client:
        assert client.quote_endpoint == "/quote/v3"
        quote = await client.quote(deposit())
        raw = await client._http.post(
            "/quote/v3", json=deposit().to_body(), headers={"x-api-key": API_KEY}
        )
    assert transport.sent[0] == "POST /quote/v3"
    assert transport.headers[0]["x-api-key"] == API_KEY
    assert "authorization" not in transport.headers[0]
    body = raw.json()
    # the world's v3: flat steps, a top-level requestId, v3 fees
    assert all("items" not in s and "data" in s for s in body["steps"])
    assert body["requestId"].startswith("0x") and "requestId" not in body["steps"][0]
    assert set(body["fees"]) == {"swap", "execution", "platform", "app", "sponsored", "currency"}
    # the one model: each step with its item, every step on the one request
    assert quote.request_id is not None
    assert all(s.request_id == quote.request_id for s in quote.steps)
    assert all(len(s.items) == 1 for s in quote.steps)
    assert quote.steps[-1].items[0].as_transaction().to is not None
    fees = quote.fees
    assert fees is not None and fees.relayer_service is not None and fees.relayer_gas is not None
    assert fees.relayer_service.symbol == "USDC" and fees.relayer_service.decimals == 6
    # v3's negative usd (a cost) reads as v2's positive amountUsd
    usd = fees.relayer_gas.amount_usd_decimal
    assert usd is not None and usd >= 0
    assert fees.relayer is not None and fees.relayer.amount == (
        (fees.relayer_gas.amount or 0) + (fees.relayer_service.amount or 0)
    )
    assert quote.fees_v3 is not None and "platform" in quote.fees_v3
    assert not client.deprecations  # v3 is not retiring


async def test_a_permit_quote_on_v3_posts_to_permits_v2(sim: Sim) -> None:
    async with ServiceClient(sim.url, api_key=API_KEY) as client:
        quote = await client.quote(deposit(use_permit=True))
    signature = quote.steps[0].items[0].as_signature()
    assert signature.post is not None and signature.post.endpoint == "/execute/permits/v2"
    assert signature.sign is not None and signature.sign.primary_type == "ReceiveWithAuthorization"


async def test_without_a_credential_auto_asks_v2_and_reads_its_sunset(sim: Sim) -> None:
    async with ServiceClient(sim.url) as client:
        assert client.quote_endpoint == "/quote/v2"
        quote = await client.quote(deposit())
        notice = client.deprecations["POST /quote/v2"]
    assert quote.request_id is not None
    assert notice.sunset_at == "2027-02-23T00:00:00Z" and notice.sunset_day == "2027-02-23"
    assert notice.deprecated_at == "2026-11-25T00:00:00Z"
    assert notice.successor == "/quote/v3"
    line = notice.line()
    assert "retired on 2027-02-23" in line and "/quote/v3" in line and "apikey set" in line


async def test_quote_api_v3_without_a_credential_is_refused_before_any_request(sim: Sim) -> None:
    transport = Counting()
    async with ServiceClient(sim.url, quote_api="v3", transport=transport) as client:
        with pytest.raises(QuoteNeedsCredential) as caught:
            await client.quote(deposit())
    assert transport.sent == []
    assert caught.value.exit_code == ExitCode.NO_SECRET
    assert "crossdeck apikey set" in str(caught.value)


async def test_a_refused_key_is_one_request_and_names_the_fix(sim: Sim) -> None:
    transport = Counting()
    async with ServiceClient(sim.url, api_key="not-a-key", transport=transport) as client:
        with pytest.raises(CredentialRefused) as caught:
            await client.quote(deposit())
    assert transport.sent == ["POST /quote/v3"]  # never retried
    error = caught.value
    assert error.exit_code == ExitCode.NO_SECRET and error.status == 401
    assert error.error_code == "UNAUTHORIZED_QUOTE"
    assert "crossdeck apikey set" in str(error) and "not-a-key" not in str(error)


async def test_an_access_token_is_sent_instead_of_the_key(sim: Sim) -> None:
    async with httpx.AsyncClient(base_url=sim.url) as http:
        minted = (await http.post("/access-tokens", json={}, headers={"x-api-key": API_KEY})).json()
    assert minted["tokenType"] == "Bearer" and minted["scope"] == "public-api"
    transport = Counting()
    token = Secret(minted["token"])
    async with ServiceClient(
        sim.url, api_key=API_KEY, access_token=token, transport=transport
    ) as client:
        quote = await client.quote(deposit())
    assert quote.request_id is not None
    sent = transport.headers[0]
    assert sent["authorization"] == f"Bearer {minted['token']}"
    assert "x-api-key" not in sent  # never both


async def test_a_refused_token_names_its_fix(sim: Sim) -> None:
    transport = Counting()
    async with ServiceClient(
        sim.url, access_token=Secret("cdt_expired"), transport=transport
    ) as client:
        with pytest.raises(CredentialRefused) as caught:
            await client.quote(deposit())
    assert transport.sent == ["POST /quote/v3"]
    text = str(caught.value)
    assert "access token was refused" in text and "CROSSDECK_ACCESS_TOKEN" in text
    assert caught.value.exit_code == ExitCode.NO_SECRET


async def test_a_retired_v2_without_a_credential_says_a_key_is_now_needed(
    retired_sim: Sim,
) -> None:
    transport = Counting()
    async with ServiceClient(retired_sim.url, transport=transport) as client:
        with pytest.raises(QuoteNeedsCredential) as caught:
            await client.quote(deposit())
        notice = client.deprecations.get("POST /quote/v2")
    assert transport.sent == ["POST /quote/v2"]
    error = caught.value
    assert error.exit_code == ExitCode.NO_SECRET and error.status == 410
    text = str(error)
    assert "need an API key" in text and "crossdeck apikey set" in text
    assert notice is not None and notice.sunset_day == "2027-02-23"  # the 410 carries it too


async def test_a_retired_v2_does_not_stop_a_keyed_client(retired_sim: Sim) -> None:
    async with ServiceClient(retired_sim.url, api_key=API_KEY) as client:
        quote = await client.quote(deposit())
    assert quote.request_id is not None


# -- against scripted answers: what the world does not send ----------------------------------


async def test_a_v3_error_shows_its_code_hint_and_error_data_in_units(server: Any) -> None:
    from . import fixtures as fx
    from .server import Reply

    body = {
        "message": "Insufficient allowance",
        "errorCode": "INSUFFICIENT_ALLOWANCE",
        "requestId": "0x" + "ab" * 32,
        "errorData": {
            "chainId": 8453,
            "currency": fx.BASE_USDC,
            "required": "12000000",
            "available": "3500000",
            "spender": "0x5567954cd026cebfe486062cb75848e0f1c12e58",
        },
    }
    server.on("POST", "/quote/v3", Reply(400, body))
    server.on("GET", "/chains", Reply(200, fx.chains()))
    async with ServiceClient(server.url, api_key=API_KEY) as client:
        with pytest.raises(ServiceError) as caught:
            await client.quote(deposit())
    text = str(caught.value)
    assert caught.value.error_code == "INSUFFICIENT_ALLOWANCE"
    assert "approve it" in text  # crossdeck's hint for the code
    assert "required 12 USDC (12000000), available 3.5 USDC (3500000) of USDC on " in text
    assert "spender 0x5567954cd026cebfe486062cb75848e0f1c12e58" in text
    assert server.count("POST", "/quote/v3") == 1


async def test_a_v2_deprecation_body_object_is_read_without_headers(server: Any) -> None:
    from . import fixtures as fx
    from .server import Reply

    answer = {
        **fx.venue_withdrawal_quote(),
        "deprecation": {
            "message": "POST /quote/v2 is deprecated",
            "deprecatedAt": "2026-11-25T00:00:00Z",
            "sunsetAt": "2027-02-23T00:00:00Z",
            "successor": "https://api.example/quote/v3",
        },
    }
    server.on("POST", "/quote/v2", Reply(200, answer))
    async with ServiceClient(server.url) as client:
        quote = await client.quote(deposit())
        notice = client.deprecations["POST /quote/v2"]
    assert quote.steps  # the unknown top-level key does not break the quote
    assert notice.sunset_day == "2027-02-23" and notice.successor == "https://api.example/quote/v3"


async def test_link_headers_folded_or_not_name_the_successor(server: Any) -> None:
    from . import fixtures as fx
    from .server import Reply

    headers = {
        "Deprecation": "@1795564800",
        "Sunset": "Tue, 23 Feb 2027 00:00:00 GMT",
        "Link": '</guide>; rel="deprecation", </guide>; rel="sunset", '
        '</quote/v3>; rel="successor-version"',
    }
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote(), headers))
    async with ServiceClient(server.url) as client:
        await client.quote(deposit())
        notice = client.deprecations["POST /quote/v2"]
    assert notice.successor == "/quote/v3" and notice.migration_guide == "/guide"
    assert notice.deprecated_at == "2026-11-25T00:00:00Z"
