"""The service's HTTP face: ``make_service_app(state, quotes, config) -> aiohttp.web.Application``.

Routes (bodies JSON; errors ``{"message", "errorCode", "errorData"?}``):

- ``POST /quote/v2`` — quote (4.1), stores a ``waiting`` request; deprecated (Deprecation /
  Sunset / Link headers on every answer), retired (410) with
  ``ServiceConfig.quote_v2_retired``;
- ``POST /quote/v3`` — the same quote in the current shape (``quote_v3``: flat steps, v3 fees,
  a top-level requestId); needs an x-api-key or an ``Authorization: Bearer`` access token
  (401 UNAUTHORIZED_QUOTE without, or with both);
- ``POST /access-tokens`` — a 15-minute bearer token for the x-api-key sent;
- ``POST /execute/permits/v2?signature=`` — /execute/permits with flat steps in its answer;
- ``POST /authorize?signature=`` — venue nonce mapping (4.4);
- ``GET /requests/v2`` — history (4.2), opaque ``continuation`` cursor; every answer carries
  the public service's deprecation signals (``deprecation`` object, Deprecation/Sunset/Link);
- ``GET /requests/v3`` — the successor listing in the public v3 record shape; like the public
  service it needs an x-api-key (401 UNAUTHORIZED without one). ``ServiceConfig.requests_v3``
  False leaves the route out (404), as a service without v3 would;
- ``GET /intents/status?requestId=`` — v1 status {status, details, inTxHashes, txHashes, time,
  originChainId, destinationChainId} with statuses failure/fallback/pending/received/success;
- ``GET /intents/status/v3?requestId=`` — {status, details, failReason, refundFailReason,
  inTxHashes, txHashes, updatedAt, originChainId, destinationChainId, quoteCreatedAt};
- ``GET /chains`` — {chains: [...]} including chain 1337 and its currencies;
- ``GET /currencies/token/price?address=&chainId=`` — {price}: the USD price of one currency
  the service lists, a JSON number as the public endpoint answers (400 for any other);
- ``POST /transactions/index`` {txHash, chainId} — tells the solver about a deposit early;
- ``POST /transactions/deposit-address/reindex`` — looks at a deposit address again
  (``crossdeck.sim.service.reindex``);
- ``POST /execute/permits?signature=`` — EIP-3009 permit deposit, request -> ``depositing``;
  deprecated and retirable like /quote/v2;
- ``POST /_sim/faults`` {kind, count, path?, delay?} — DEMO ONLY: arms ``state.faults``.

Every route except ``/_sim/*`` is rate limited per caller (x-api-key name, else remote
address): 429 ``{"errorCode": "RATE_LIMITED"}`` with ``Retry-After`` seconds. An x-api-key the
service does not know is refused (401 UNAUTHORIZED). Armed faults apply before anything else.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from crossdeck.sim.brand import BRANDS, Brand
from crossdeck.sim.service.currencies import VENUE_CHAIN_ID, Currency
from crossdeck.sim.service.directory import EvmChain
from crossdeck.sim.service.errors import ServiceError, invalid, not_found
from crossdeck.sim.service.faults import FAULT_KINDS
from crossdeck.sim.service.history import (
    V2_DEPRECATION,
    V2_DEPRECATION_HEADERS,
    list_requests,
    list_requests_v3,
    record_v3,
)
from crossdeck.sim.service.money import MICRO_USD
from crossdeck.sim.service.quote_v3 import (
    SUCCESSORS,
    AccessTokens,
    deprecation_headers,
    retired,
    v3_answer,
    v3_fees,
    v3_permit_answer,
)
from crossdeck.sim.service.quotes import QuoteEngine
from crossdeck.sim.service.ratelimit import RateLimiter
from crossdeck.sim.service.records import history_record, status_v1, status_v3
from crossdeck.sim.service.reindex import reindex_deposit_address
from crossdeck.sim.service.signed import BYTES32_RE, PermitSubmitter, authorize
from crossdeck.sim.service.state import RequestRecord, ServiceState
from crossdeck.sim.service.validation import DIGITS_RE

log = logging.getLogger(__name__)

EXPLORER_PATHS = {"transaction": "/tx/{TX_HASH}", "address": "/address/{ADDRESS}"}


@dataclass(frozen=True)
class ServiceConfig:
    brand: Brand = field(default_factory=lambda: BRANDS["neutral"])
    anonymous_per_minute: int = 600
    keyed_per_minute: int = 6000
    sim_routes: bool = True  # /_sim/* (fault injection); the demo world keeps them on
    requests_v3: bool = True  # GET /requests/v3; off: only the deprecated v2 listing exists
    requests_v2: bool = True  # GET /requests/v2; off: retired (410), as the public one is since
    # 2026-11-24, so a caller without an API key (which v3 needs) has no listing at all
    quote_v2_retired: bool = False  # POST /quote/v2 and /execute/permits answer 410, as the
    # public ones will from 2027-02-23 (`sim serve --retire-quote-v2`)


_STATE = web.AppKey("service_state", ServiceState)
_QUOTES = web.AppKey("service_quotes", QuoteEngine)
_CONFIG = web.AppKey("service_config", ServiceConfig)
_LIMITER = web.AppKey("service_limiter", RateLimiter)
_PERMITS = web.AppKey("service_permits", PermitSubmitter)
_TOKENS = web.AppKey("service_access_tokens", AccessTokens)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, code: str, message: str, **headers: str) -> web.Response:
    return web.json_response(
        {"message": message, "errorCode": code}, status=status, headers=headers
    )


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ServiceError as exc:
        return web.json_response(exc.body(), status=exc.status)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status, "INVALID_INPUT")
        return _error(exc.status, code, f"{request.method} {request.path}: {exc.reason}")
    except Exception:
        log.exception("service handler failed: %s %s", request.method, request.path)
        return _error(500, "INTERNAL_ERROR", "the service failed to handle this request")


@web.middleware
async def _deprecated(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer of a retiring endpoint, errors too, carries its deprecation signals."""
    response = await handler(request)
    if request.path.rstrip("/") in SUCCESSORS:
        response.headers.update(deprecation_headers(request.path.rstrip("/")))
    return response


@web.middleware
async def _faults(request: web.Request, handler: Handler) -> web.StreamResponse:
    fault = request.app[_STATE].faults.take(request.path)
    if fault is None:
        return await handler(request)
    if fault.kind == "503":
        return _error(
            503, "SERVICE_UNAVAILABLE", "the service is temporarily unavailable (injected)"
        )
    if fault.kind == "429":
        return _error(
            429, "RATE_LIMITED", "too many requests (injected); retry later", **{"Retry-After": "1"}
        )
    if fault.kind == "slow":
        await asyncio.sleep(fault.delay)
        return await handler(request)
    return web.Response(status=200, text='{"steps": [', content_type="application/json")


def _bearer(request: web.Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _caller(request: web.Request) -> str | None:
    """The name of the caller's API key (sent, or behind its access token); None when
    anonymous. Unknown keys and tokens are refused, and so is a request with both (on
    /quote/v3 as UNAUTHORIZED_QUOTE, its one code for a credential it does not take)."""
    code = "UNAUTHORIZED_QUOTE" if request.path.rstrip("/") == "/quote/v3" else "UNAUTHORIZED"
    secret = request.headers.get("x-api-key")
    token = _bearer(request)
    if secret and token:
        raise ServiceError(401, code, "send an x-api-key or an access token, not both")
    if token:
        name = request.app[_TOKENS].name_for(token)
        if name is None:
            raise ServiceError(401, code, "the access token is unknown or expired")
        return name
    if secret is None or secret == "":
        return None
    name = request.app[_STATE].api_keys.name_for(secret)
    if name is None:
        raise ServiceError(401, code, "the x-api-key header holds an unknown key")
    return name


@web.middleware
async def _rate_limit(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith("/_sim/"):
        return await handler(request)
    name = _caller(request)
    caller = name if name is not None else (request.remote or "unknown")
    wait = request.app[_LIMITER].take(caller, keyed=name is not None)
    if wait is not None:
        kind = "API key" if name is not None else "anonymous caller"
        return _error(
            429,
            "RATE_LIMITED",
            f"rate limit of this {kind} reached; retry after {wait} s"
            + ("" if name is not None else " or send an x-api-key for a higher limit"),
            **{"Retry-After": str(wait)},
        )
    return await handler(request)


async def _json_body(request: web.Request) -> Any:
    text = await request.text()
    if not text.strip():
        raise invalid("the request body must be JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise invalid(f"the request body is not valid JSON: {exc.msg} at {exc.pos}") from None


async def _quote(request: web.Request) -> web.Response:
    if request.app[_CONFIG].quote_v2_retired:
        raise retired("/quote/v2")
    body = await _json_body(request)
    result = await request.app[_QUOTES].quote(body, api_key_name=_caller(request))
    # the headers only: whether /quote/v2 bodies carry a `deprecation` object is not known
    # (the recorded answers have none), so the world adds none; the client reads either
    return web.json_response(result)


async def _quote_v3(request: web.Request) -> web.Response:
    caller = _caller(request)
    if caller is None:
        raise ServiceError(
            401,
            "UNAUTHORIZED_QUOTE",
            "POST /quote/v3 requires an x-api-key header or an access token",
        )
    body = await _json_body(request)
    quotes = request.app[_QUOTES]
    v2 = await quotes.quote(body, api_key_name=caller)
    request_id = next(s["requestId"] for s in v2["steps"] if s.get("requestId"))
    record = request.app[_STATE].find(request_id)
    assert record is not None
    currency = quotes.directory.currency(record.origin_chain_id, record.origin_currency)
    assert currency is not None
    fees = v2.get("fees") or {}

    def units(name: str) -> int:
        return int((fees.get(name) or {}).get("amount", 0))

    app_units = units("app")
    components = {
        "swap": max(record.fees.get("price", 0) - app_units, 0),
        "execution": record.fees.get("gas", 0),
        "platform": record.fees.get("fixed", 0),
        "app": app_units,
        "sponsored": units("subsidized"),
    }
    deposit = None
    if record.deposit_address is not None:
        given = record.deposit_address
        deposit = {"address": given.address, "type": given.type, "depositor": given.depositor}
    return web.json_response(v3_answer(v2, request_id, v3_fees(components, currency), deposit))


async def _access_tokens(request: web.Request) -> web.Response:
    if _bearer(request) is not None or not request.headers.get("x-api-key"):
        raise ServiceError(401, "UNAUTHORIZED", "an access token is minted with an x-api-key")
    name = _caller(request)
    assert name is not None
    return web.json_response(request.app[_TOKENS].mint(name), headers={"Cache-Control": "no-store"})


async def _authorize(request: web.Request) -> web.Response:
    body = await _json_body(request)
    result = authorize(
        request.app[_STATE], request.app[_CONFIG].brand, body, request.query.get("signature")
    )
    return web.json_response(result)


async def _permits(request: web.Request) -> web.Response:
    if request.app[_CONFIG].quote_v2_retired:
        raise retired("/execute/permits")
    body = await _json_body(request)
    result = await request.app[_PERMITS].submit(body, request.query.get("signature"))
    return web.json_response(result)


async def _permits_v2(request: web.Request) -> web.Response:
    body = await _json_body(request)
    result = await request.app[_PERMITS].submit(body, request.query.get("signature"))
    return web.json_response(v3_permit_answer(result))


async def _requests(request: web.Request) -> web.Response:
    if not request.app[_CONFIG].requests_v2:
        raise ServiceError(
            410, "GONE", "GET /requests/v2 was retired on 2026-11-24: use GET /requests/v3"
        )
    caller = _caller(request)
    page = list_requests(request.app[_STATE], request.query, caller_key_name=caller)
    records = [
        history_record(
            r,
            include_order_data=page.include_order_data,
            authenticated=page.include_authenticated and r.api_key_name == caller,
        )
        for r in page.records
    ]
    return web.json_response(
        {"requests": records, "continuation": page.continuation, "deprecation": V2_DEPRECATION},
        headers=V2_DEPRECATION_HEADERS,
    )


async def _requests_v3(request: web.Request) -> web.Response:
    caller = _caller(request)
    if caller is None:  # the public v3 requires a key; v2 serves anyone
        raise ServiceError(401, "UNAUTHORIZED", "GET /requests/v3 requires an x-api-key header")
    page = list_requests_v3(request.app[_STATE], request.query, caller_key_name=caller)
    directory = request.app[_QUOTES].directory
    router = request.app[_CONFIG].brand.service_name.lower()
    solver = directory.venue.solver_address

    def depository(chain_id: int) -> str:
        chain = directory.evm.get(chain_id)
        return chain.depository if chain is not None else directory.venue.depository

    records = [
        record_v3(
            r,
            router=router,
            solver=solver,
            depository=depository(r.origin_chain_id),
            authenticated=page.include_authenticated and r.api_key_name == caller,
        )
        for r in page.records
    ]
    return web.json_response({"requests": records, "continuation": page.continuation})


def _record_for_status(request: web.Request) -> RequestRecord:
    request_id = request.query.get("requestId")
    if not request_id:
        raise invalid("the requestId query parameter is required", field="requestId")
    if not BYTES32_RE.fullmatch(request_id):
        raise invalid("requestId must be 0x followed by 64 hex digits", field="requestId")
    record = request.app[_STATE].find(request_id)
    if record is None:
        raise not_found(f"no request with id {request_id}")
    return record


async def _status_v1(request: web.Request) -> web.Response:
    return web.json_response(status_v1(_record_for_status(request)))


async def _status_v3(request: web.Request) -> web.Response:
    return web.json_response(status_v3(_record_for_status(request)))


def chains_payload(quotes: QuoteEngine, brand: Brand) -> dict[str, Any]:
    """GET /chains in the public shape. ``protocol.v2.chainId`` is the protocol's chain NAME
    (quotes' ``paymentDetails.chainId`` uses it); ``solverAddresses`` names who fills;
    ``contracts`` names Multicall3 where the chain has it, as the public answer does, and the
    swap router self-executed same-chain swaps go to; the world deploys none of the other
    public helper contracts (approval proxies, receiver): deposits and their approvals go to the
    depository itself."""
    directory = quotes.directory
    solver = directory.venue.solver_address.lower()
    chains = []
    for chain in directory.evm.values():
        currencies = directory.currencies(chain.chain_id)
        native = next(c for c in currencies if c.is_native)
        erc20 = [c for c in currencies if not c.is_native]
        chains.append(
            _chain_entry(
                chain_id=chain.chain_id,
                name=chain.name,
                display_name=chain.display_name,
                rpc_url=chain.rpc_url or "",
                explorer_url=chain.explorer_url,
                token_support="All",
                currency=native,
                featured=erc20,
                erc20=[
                    {**_fee_free(c.chains_entry()), "supportsPermit": c.asset == "USDC"}
                    for c in erc20
                ],
                solver_currencies=currencies,
                vm_type="evm",
                protocol_chain_id=quotes.protocol_chain_id(chain.chain_id),
                depository=chain.depository,
                solver=solver,
                contracts=_contracts(chain),
            )
        )
    venue_currencies = directory.currencies(VENUE_CHAIN_ID)
    chains.append(
        _chain_entry(
            chain_id=VENUE_CHAIN_ID,
            name=brand.venue_chain_label,
            display_name=brand.venue_name,
            rpc_url="",
            explorer_url=directory.venue.explorer_url,
            token_support="Limited",
            currency=directory.usdc(VENUE_CHAIN_ID),
            featured=venue_currencies,
            erc20=[
                {**_fee_free(c.chains_entry()), "supportsPermit": False} for c in venue_currencies
            ],
            solver_currencies=venue_currencies,
            vm_type="hypevm",
            protocol_chain_id=quotes.protocol_chain_id(VENUE_CHAIN_ID),
            depository=directory.venue.depository,
            solver=solver,
        )
    )
    for other in directory.others.values():
        tokens = [c for c in other.currencies if not c.is_native]
        chains.append(
            _chain_entry(
                chain_id=other.chain_id,
                name=other.name,
                display_name=other.display_name,
                rpc_url=other.rpc_url,
                ws_url=other.ws_url,
                explorer_url=other.explorer_url,
                token_support="All" if tokens else "Limited",
                currency=other.native,
                featured=list(other.currencies),
                # the public service lists a non-EVM chain's tokens here too (SPL on Solana)
                erc20=[{**_fee_free(c.chains_entry()), "supportsPermit": False} for c in tokens],
                solver_currencies=list(other.currencies),
                vm_type=other.vm_type,
                protocol_chain_id=quotes.protocol_chain_id(other.chain_id),
                depository=other.depository,
                solver=other.solver_address,
            )
        )
    return {"chains": chains}


def _contracts(chain: EvmChain) -> dict[str, Any]:
    # the router has the role the public answer calls `erc20Router`; as on the public service
    # since router 3.2 (2026-10-26) the top-level pair names the current router, `"v3.2"`
    # names it again and `v3` the older one while the transition lasts
    found = {"multicall3": chain.multicall3, "erc20Router": chain.router}
    named: dict[str, Any] = {role: address.lower() for role, address in found.items() if address}
    if chain.router is not None:
        if chain.previous_router is not None:
            named["v3"] = {"erc20Router": chain.previous_router.lower()}
        named["v3.2"] = {"erc20Router": chain.router.lower()}
    return named


def _fee_free(entry: dict[str, Any]) -> dict[str, Any]:
    return {**entry, "withdrawalFee": 0, "depositFee": 0, "surgeEnabled": False}


def _chain_entry(
    *,
    chain_id: int,
    name: str,
    display_name: str,
    rpc_url: str,
    explorer_url: str,
    token_support: str,
    ws_url: str = "",
    currency: Currency,
    featured: list[Currency],
    erc20: list[dict[str, Any]],
    solver_currencies: list[Currency],
    vm_type: str,
    protocol_chain_id: str,
    depository: str,
    solver: str,
    contracts: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "id": chain_id,
        "name": name,
        "displayName": display_name,
        "httpRpcUrl": rpc_url,
        "wsRpcUrl": ws_url,
        "explorerUrl": explorer_url,
        "explorerName": f"{display_name} Explorer",
        "explorerPaths": EXPLORER_PATHS,
        "depositEnabled": True,
        "tokenSupport": token_support,
        "disabled": False,
        "partialDisableLimit": 0,
        "blockProductionLagging": False,
        "currency": currency.chains_entry(),
        "withdrawalFee": 0,
        "depositFee": 0,
        "surgeEnabled": False,
        "featuredTokens": [
            {**c.chains_entry(), "metadata": {"logoURI": c.to_json()["metadata"]["logoURI"]}}
            for c in featured
        ],
        "erc20Currencies": erc20,
        "solverCurrencies": [
            {k: v for k, v in c.chains_entry().items() if k != "supportsBridging"}
            for c in solver_currencies
        ],
        "iconUrl": f"https://assets.demo.invalid/icons/{chain_id}/light.png",
        "contracts": contracts or {},
        "vmType": vm_type,
        "solverAddresses": [solver],
        "tags": [],
        "protocol": {"v2": {"chainId": protocol_chain_id, "depository": depository}},
    }


async def _chains(request: web.Request) -> web.Response:
    return web.json_response(chains_payload(request.app[_QUOTES], request.app[_CONFIG].brand))


async def _token_price(request: web.Request) -> web.Response:
    address, chain_text = request.query.get("address"), request.query.get("chainId", "")
    if not address:
        raise invalid("the address query parameter is required", field="address")
    if not DIGITS_RE.fullmatch(chain_text) or len(chain_text) > 20:
        raise invalid("chainId must be a chain id", field="chainId")
    currency = request.app[_QUOTES].directory.currency(int(chain_text), address)
    if currency is None:
        raise invalid(f"no price for {address} on chain {chain_text}", "UNSUPPORTED_CURRENCY")
    whole, micro = divmod(currency.price, MICRO_USD)
    # a JSON number, as the public endpoint sends it (the client reads its exact text)
    price: int | float = whole if micro == 0 else currency.price / MICRO_USD
    return web.json_response({"price": price})


SOLANA_SIGNATURE_RE = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{64,88}$")


async def _reindex(request: web.Request) -> web.Response:
    return await reindex_deposit_address(request.app[_STATE], await _json_body(request))


async def _index(request: web.Request) -> web.Response:
    body = await _json_body(request)
    if not isinstance(body, dict):
        raise invalid("the body must be {txHash, chainId}")
    tx_hash = body.get("txHash")
    chain_id = body.get("chainId")
    if isinstance(chain_id, str) and DIGITS_RE.fullmatch(chain_id) and len(chain_id) <= 20:
        chain_id = int(chain_id)
    others = request.app[_QUOTES].directory.others
    other = others.get(chain_id) if isinstance(chain_id, int) else None
    if other is not None and other.vm_type == "svm":  # a base58 transaction signature
        if not isinstance(tx_hash, str) or not SOLANA_SIGNATURE_RE.fullmatch(tx_hash):
            raise invalid("txHash must be a base58 Solana transaction signature", field="txHash")
    elif not isinstance(tx_hash, str) or not BYTES32_RE.fullmatch(tx_hash):
        raise invalid("txHash must be 0x followed by 64 hex digits", field="txHash")
    if isinstance(chain_id, bool) or not isinstance(chain_id, int):
        raise invalid("chainId must be a chain id", field="chainId")
    if not request.app[_QUOTES].directory.supports(chain_id):
        raise invalid(f"chainId {chain_id} is not supported", "UNSUPPORTED_CHAIN", field="chainId")
    request.app[_STATE].index_tx(chain_id, tx_hash)
    return web.json_response({"message": "Success"})


async def _sim_faults(request: web.Request) -> web.Response:
    body = await _json_body(request)
    if not isinstance(body, dict):
        raise invalid("the body must be {kind, count, path?, delay?}")
    kind, count = body.get("kind"), body.get("count", 1)
    path, delay = body.get("path"), body.get("delay", 2.0)
    if kind not in FAULT_KINDS:
        raise invalid(f"kind must be one of {', '.join(FAULT_KINDS)}", field="kind")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise invalid("count must be a positive integer", field="count")
    if path is not None and (not isinstance(path, str) or not path.startswith("/")):
        raise invalid("path must be a path prefix starting with '/'", field="path")
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= 60:
        raise invalid("delay must be a number of seconds between 0 and 60", field="delay")
    request.app[_STATE].faults.inject(kind, count, path=path, delay=float(delay))
    return web.json_response({"message": "armed", "pending": request.app[_STATE].faults.pending()})


def make_service_app(
    state: ServiceState, quotes: QuoteEngine, config: ServiceConfig | None = None
) -> web.Application:
    config = config or ServiceConfig()
    app = web.Application(middlewares=[_deprecated, _errors, _faults, _rate_limit])
    app[_STATE] = state
    app[_QUOTES] = quotes
    app[_CONFIG] = config
    app[_LIMITER] = RateLimiter(
        anonymous_per_minute=config.anonymous_per_minute,
        keyed_per_minute=config.keyed_per_minute,
    )
    app[_PERMITS] = PermitSubmitter(state, quotes.directory)
    app[_TOKENS] = AccessTokens()
    app.router.add_post("/quote/v2", _quote)
    app.router.add_post("/quote/v3", _quote_v3)
    app.router.add_post("/access-tokens", _access_tokens)
    app.router.add_post("/execute/permits/v2", _permits_v2)
    app.router.add_post("/authorize", _authorize)
    app.router.add_get("/requests/v2", _requests)
    if config.requests_v3:
        app.router.add_get("/requests/v3", _requests_v3)
    app.router.add_get("/intents/status", _status_v1)
    app.router.add_get("/intents/status/v3", _status_v3)
    app.router.add_get("/chains", _chains)
    app.router.add_get("/currencies/token/price", _token_price)
    app.router.add_post("/transactions/index", _index)
    app.router.add_post("/transactions/deposit-address/reindex", _reindex)
    app.router.add_post("/execute/permits", _permits)
    if config.sim_routes:
        app.router.add_post("/_sim/faults", _sim_faults)
    return app
