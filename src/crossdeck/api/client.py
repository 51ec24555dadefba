"""`ServiceClient`: the transfer service's HTTP API (spec section 4, facts "Other endpoints").

One `httpx.AsyncClient` per client. Every answer goes through the same gate: a 2xx becomes a
model (or `MalformedResponseError` naming what did not fit), anything else a `ServiceError` built
from the `{message, errorCode, errorData}` body. Transient failures are retried per
`RetryPolicy` by the one retry engine (`crossdeck.retry`), but only where a second request
cannot do harm (`RESEND_RULES`).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Self, TypeAlias, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from crossdeck import __version__
from crossdeck.api.answers import describe_transport_error, error_code, error_from, malformed
from crossdeck.api.endpoints import endpoint_problem
from crossdeck.api.errors import (
    HistoryNeedsApiKey,
    MalformedResponseError,
    ServiceConnectionError,
    ServiceError,
    preview,
)
from crossdeck.api.pages import follow_pages
from crossdeck.api.quote_api import (
    V3_PATH,
    Credential,
    Deprecation,
    QuoteApi,
    quote_error,
    quote_path,
    read_deprecation,
    v3_needs_credential,
)
from crossdeck.api.requests_versions import V3Unsupported, v3_not_offered, v3_params
from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.base.tls import client_context
from crossdeck.models.errors import error_summary
from crossdeck.retry import (
    IDEMPOTENT,
    NOT_ACTED_ONLY,
    NoAnswer,
    ResendRules,
    RetryEngine,
    RetryPolicy,
    Route,
)

if TYPE_CHECKING:
    # Each response model is imported by the method that reads it: the app's first read,
    # /chains, then builds only the chains' pydantic classes, not the ~70 of quotes, steps,
    # statuses and request history (issue 28: the pickers are filled sooner after the first
    # frame).
    from crossdeck.models.chains import ChainsResponse
    from crossdeck.models.quote import Quote
    from crossdeck.models.quote_request import QuoteRequest
    from crossdeck.models.requests import RequestRecord, RequestsPage
    from crossdeck.models.requests_query import RequestsQuery
    from crossdeck.models.requests_v3 import RequestsPageV3
    from crossdeck.models.status import StatusV1, StatusV3

    # a page of GET /requests/v3 or, where v3 is not offered, of GET /requests/v2
    ListingPage: TypeAlias = RequestsPage | RequestsPageV3

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_TX_HASH = re.compile(r"^0x[0-9a-fA-F]{64}$")
MAX_PAGE_LIMIT = 50
# a /chains answer changes with the service's deploys, not within a run: what one run reads
# again (the guards, the links at its end) is the answer its quote read, this long after
CHAINS_REUSED_SECONDS = 300.0

# Which requests may be sent again after a failure. Reads, quotes and index hints have no effect
# on the service, so any transient failure (network, timeout, 429, 503, transient error codes, an
# unreadable answer) is worth another try. Posts that carry a signature (/authorize,
# /execute/permits, a step's `post`) act: after a timeout or dropped connection the service may
# already have acted, and a duplicate could act twice (map a nonce twice, submit a permit twice),
# so they are resent only when it certainly did not (refused connection, 429, 503).
RESEND_RULES = ResendRules(
    Route("GET", None, IDEMPOTENT),
    Route("POST", "/quote/v2", IDEMPOTENT),
    Route("POST", "/quote/v3", IDEMPOTENT),
    Route("POST", "/transactions/index", IDEMPOTENT),  # telling the service twice is harmless
    Route("POST", None, NOT_ACTED_ONLY),
)


def _check_base_url(base_url: str) -> httpx.URL:
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as exc:
        raise InputError(f"service URL {base_url!r} is invalid: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise InputError(
            f"service URL {base_url!r} is not an http(s) URL",
            hint="give it like https://api.example.com",
        )
    return url


class ServiceClient:
    def __init__(
        self,
        base_url: str,
        *,
        api_key: Secret | str | None = None,
        access_token: Secret | None = None,
        quote_api: QuoteApi = "auto",
        timeout: float | httpx.Timeout = 20.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._base = _check_base_url(base_url.rstrip("/"))
        self.base_url = str(self._base)
        if isinstance(api_key, str):
            api_key = Secret(api_key) if api_key else None
        self._api_key: Secret | None = api_key
        # what authenticates every request (a token, when given, instead of the key)
        self.credential = Credential(api_key, access_token)
        self.quote_api: QuoteApi = quote_api
        # what retiring endpoints said about their end, by "METHOD /path" (shown by the UIs)
        self.deprecations: dict[str, Deprecation] = {}
        self._natives: dict[int, dict[str, Any] | None] = {}  # /chains' native, by chain
        self._chains_seen: ChainsResponse | None = None  # the last /chains answer read
        self._chains_read_at = 0.0  # when (time.monotonic)
        self.retry = retry or RetryPolicy()
        # why request listings go to /requests/v2 (None while v3 serves them)
        self.listing_fallback: str | None = None
        self._v3_refused_status: int | None = None
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={"accept": "application/json", "user-agent": f"crossdeck/{__version__}"},
            verify=client_context(self.base_url),
        )

    def __repr__(self) -> str:
        key = "'**********'" if self._api_key else "None"
        token = ", access_token='**********'" if self.credential.access_token else ""
        return f"ServiceClient({self.base_url!r}, api_key={key}{token})"

    @property
    def has_api_key(self) -> bool:
        return self._api_key is not None

    @property
    def api_key(self) -> Secret | None:
        """The key this client sends (the status socket sends the same one, `?apiKey=`)."""
        return self._api_key

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- endpoints -------------------------------------------------------------------------

    @property
    def quote_endpoint(self) -> str:
        """The quote path this client asks (`quote_api.quote_path`)."""
        return quote_path(self.quote_api, self.credential)

    async def quote(self, body: QuoteRequest | dict[str, Any]) -> Quote:
        """POST /quote/v3 or /quote/v2 (`quote_endpoint`), either answer read into the one
        `Quote` model (`models.quote_v3.read_quote`). A dict body is validated as a
        `QuoteRequest` first. A credential problem is a `CredentialRefused` or
        `QuoteNeedsCredential` (exit 6), never retried."""
        from crossdeck.models.quote_request import QuoteRequest
        from crossdeck.models.quote_v3 import read_quote

        request = body if isinstance(body, QuoteRequest) else QuoteRequest.from_body(body)
        path = self.quote_endpoint
        if path == V3_PATH and not self.credential.present:
            raise v3_needs_credential()

        def read(response: httpx.Response) -> Quote:
            data = self._object(response)
            try:
                return read_quote(data)
            except ValidationError as exc:
                raise malformed(
                    response, f"the answer does not fit Quote: {error_summary(exc)}"
                ) from exc

        try:
            quote = await self._call("POST", path, read, json_body=request.to_body())
        except ServiceError as exc:
            await self._word_error_data(exc)
            raise quote_error(exc, path, self.credential) from exc
        return await self._with_origin_gas(quote)

    async def _word_error_data(self, exc: ServiceError) -> None:
        """A v3 error's `errorData` amounts in units, with /chains' symbol and decimals."""
        from crossdeck.api.error_data import amounts_of, error_data_words

        if not amounts_of(exc.error_data):
            return
        try:
            chains = await self.chains()
        except ServiceError:
            chains = None  # the amounts stay integers, said to be so
        exc.error_data_words = error_data_words(exc.error_data, chains)

    async def _with_origin_gas(self, quote: Quote) -> Quote:
        """v3 sends no origin gas fee: it is worked out of the quote's own transactions, in
        the native currency /chains names for that chain (`quote_v3.with_origin_gas`)."""
        from crossdeck.models.quote_v3 import origin_gas_units, with_origin_gas

        found = None if quote.fees and quote.fees.gas else origin_gas_units(quote)
        if found is None:
            return quote
        if found[0] not in self._natives:  # one /chains read per chain and client
            try:
                # the command's own /chains answer when it read one (symbols, guards), so a
                # quote costs no second read of it
                chains = await self.recent_chains()
                chain = chains.by_id(found[0])
            except ServiceError as exc:  # the line is then shown without its symbol
                log.info("no /chains for the origin gas currency: %s", exc)
                chain = None
            self._natives[found[0]] = chain.currency.to_wire() if chain and chain.currency else None
        return with_origin_gas(quote, self._natives[found[0]])

    async def requests(self, query: RequestsQuery | None = None) -> RequestsPage:
        """GET /requests/v2: one page of request history."""
        from crossdeck.models.requests import RequestsPage
        from crossdeck.models.requests_query import RequestsQuery

        params = _checked_limit((query or RequestsQuery()).to_params())
        return await self._read("GET", "/requests/v2", RequestsPage, params=params)

    async def requests_v3(self, query: RequestsQuery | None = None) -> RequestsPageV3:
        """GET /requests/v3: one page, filters spelled the v3 way (`V3Unsupported` when one
        cannot be; see `crossdeck.api.requests_versions`)."""
        from crossdeck.models.requests_query import RequestsQuery
        from crossdeck.models.requests_v3 import RequestsPageV3

        params = _checked_limit(v3_params(query or RequestsQuery()))
        return await self._read("GET", "/requests/v3", RequestsPageV3, params=params)

    async def list_requests(self, query: RequestsQuery | None = None) -> ListingPage:
        """One page of history from v3 where the service offers it, else from v2.

        The first v3 refusal that `v3_not_offered` reads as "not offered here" is remembered:
        this client asks v2 from then on (`listing_fallback` says why). A query with a filter v3
        cannot express goes to v2 alone, without changing the choice for the others.
        """
        if self.listing_fallback is None:
            try:
                page = await self.requests_v3(query)
            except V3Unsupported as exc:
                log.debug("GET /requests/v2 for this query: %s", exc.reason)
            except ServiceError as exc:
                if not v3_not_offered(exc):
                    raise
                self.listing_fallback = f"GET /requests/v3: HTTP {exc.status} {exc.message}"
                self._v3_refused_status = exc.status
                log.info("falling back to GET /requests/v2 (%s)", self.listing_fallback)
            else:
                return page
        try:
            return await self.requests(query)
        except ServiceError as exc:
            if self.listing_fallback is None or exc.status not in (404, 410):
                raise
            # v2 is retired too: say why v3 was not used, that is what the user can change
            raise HistoryNeedsApiKey(
                has_key=self.has_api_key, v3_status=self._v3_refused_status, v2=exc
            ) from exc

    async def iter_pages(
        self, query: RequestsQuery | None = None, *, max_pages: int | None = None
    ) -> AsyncIterator[RequestsPage]:
        """Pages of GET /requests/v2 following `continuation` (`api.pages.follow_pages`: ends
        at no cursor, an empty page or `max_pages`; a repeated cursor raises
        `CursorLoopError`)."""
        from crossdeck.models.requests_query import RequestsQuery

        pages = follow_pages(self.requests, query or RequestsQuery(), max_pages=max_pages)
        async for page in pages:
            yield page

    async def iter_requests(
        self, query: RequestsQuery | None = None, *, max_pages: int | None = None
    ) -> AsyncIterator[RequestRecord]:
        async for page in self.iter_pages(query, max_pages=max_pages):
            for record in page.requests:
                yield record

    async def status(self, request_id: str) -> StatusV1:
        """GET /intents/status?requestId= (the endpoint quotes name in `check`)."""
        from crossdeck.models.status import StatusV1

        params = {"requestId": _request_id(request_id)}
        return await self._read("GET", "/intents/status", StatusV1, params=params)

    async def status_v3(self, request_id: str) -> StatusV3:
        """GET /intents/status/v3?requestId= (adds failReason, refundFailReason)."""
        from crossdeck.models.status import StatusV3

        params = {"requestId": _request_id(request_id)}
        return await self._read("GET", "/intents/status/v3", StatusV3, params=params)

    async def check(self, endpoint: str) -> StatusV1 | StatusV3 | dict[str, Any]:
        """GET a step item's `check.endpoint` (path and query relative to the base URL).

        The status endpoints come back as their models; any other endpoint as a dict.
        """
        from crossdeck.models.status import StatusV1, StatusV3

        relative = self._relative(endpoint)
        path = httpx.URL(relative).path.rstrip("/")
        if path.endswith("/intents/status/v3"):
            return await self._read("GET", relative, StatusV3)
        if path.endswith("/intents/status"):
            return await self._read("GET", relative, StatusV1)
        return await self._call("GET", relative, self._object)

    async def post_signed(
        self, endpoint: str, body: dict[str, Any], signature: str
    ) -> dict[str, Any]:
        """POST `endpoint?signature=0x...` with `body` as JSON; the decoded answer.

        Used for `/authorize` and any signature item's `post`. Not resent after a timeout: see
        `RESEND_RULES`; a `ServiceConnectionError` then has `may_have_acted=True`.
        """
        if not isinstance(signature, str) or not _HEX.fullmatch(signature):
            raise InputError("signature must be 0x followed by hex digits")
        if not isinstance(body, dict):
            raise InputError("the signed post body must be a JSON object")
        relative = self._relative(endpoint)
        return await self._call(
            "POST", relative, self._object, params={"signature": signature}, json_body=body
        )

    async def authorize(self, body: dict[str, Any], signature: str) -> dict[str, Any]:
        """POST /authorize?signature= (the venue withdrawal's nonce mapping)."""
        return await self.post_signed("/authorize", body, signature)

    async def submit_permit(self, body: dict[str, Any], signature: str) -> dict[str, Any]:
        """POST /execute/permits?signature= with `{kind: 'eip3009', requestId, api?}`."""
        return await self.post_signed("/execute/permits", body, signature)

    async def chains(self) -> ChainsResponse:
        """GET /chains: chains and their currencies (incl. the venue, chain 1337)."""
        from crossdeck.models.addresses import remember_vm_types
        from crossdeck.models.chains import ChainsResponse

        answer = await self._read("GET", "/chains", ChainsResponse)
        self._chains_seen, self._chains_read_at = answer, time.monotonic()
        remember_vm_types(answer.vm_types())  # a chain's family, for what asks by id alone
        return answer

    async def recent_chains(self, within: float = CHAINS_REUSED_SECONDS) -> ChainsResponse:
        """The /chains answer this client read in the last `within` seconds, else a new read:
        one run (its quote, guards and the links at its end) reads it once."""
        seen = self._chains_seen
        if seen is not None and time.monotonic() - self._chains_read_at <= within:
            return seen
        return await self.chains()

    async def token_price(self, chain_id: int, address: str) -> Decimal:
        """GET /currencies/token/price: the USD price of one currency, exactly as the answer
        writes its number (never through a float). A price that is absent, not a number or
        negative is a `MalformedResponseError`: nothing here stands in for a missing one."""
        params = {"address": address, "chainId": str(chain_id)}

        def read(response: httpx.Response) -> Decimal:
            try:
                data = json.loads(response.content, parse_float=Decimal, parse_int=Decimal)
            except ValueError:
                data = None
            price = data.get("price") if isinstance(data, dict) else None
            if not isinstance(price, Decimal) or not price.is_finite() or price < 0:
                raise malformed(
                    response, f"expected {{price: <USD number>}}, got {preview(response.content)!r}"
                )
            return price

        return await self._call("GET", "/currencies/token/price", read, params=params)

    async def index_transaction(self, tx_hash: str, chain_id: int) -> dict[str, Any]:
        """POST /transactions/index: tell the service about a deposit early. Telling it twice
        is harmless, so this is retried like a read."""
        if not isinstance(tx_hash, str) or not _TX_HASH.fullmatch(tx_hash):
            raise InputError(f"tx hash {tx_hash!r} is not 0x followed by 64 hex digits")
        if isinstance(chain_id, bool) or not isinstance(chain_id, int) or chain_id <= 0:
            raise InputError(f"chain id {chain_id!r} must be a positive integer")
        body = {"txHash": tx_hash, "chainId": chain_id}
        return await self._call("POST", "/transactions/index", self._object, json_body=body)

    async def reindex_deposit_address(
        self,
        chain_id: int,
        deposit_address: str,
        *,
        target_chain_id: int | None = None,
        currency: str | None = None,
    ) -> dict[str, Any]:
        """POST /transactions/deposit-address/reindex: have the service look at a deposit
        address again (a currency or chain its monitor did not watch; `crossdeck recover`)."""
        body: dict[str, Any] = {"chainId": chain_id, "depositAddress": deposit_address}
        if target_chain_id is not None:
            body["targetChainId"] = target_chain_id
        if currency is not None:
            body["currency"] = currency
        path = "/transactions/deposit-address/reindex"
        return await self._call("POST", path, self._object, json_body=body)

    async def index_solana_transaction(self, signature: str, chain_id: int) -> dict[str, Any]:
        """POST /transactions/index for a deposit on an SVM chain (Solana's 792703809, or any
        other /chains lists as 'svm'): its base58 signature, and the chain id as a string (as
        the public SDK sends it)."""
        from crossdeck.models.base58 import b58decode

        try:
            size = len(b58decode(signature))
        except ValueError:
            size = 0
        if size != 64:
            raise InputError(f"{signature!r} is not a Solana signature (base58 of 64 bytes)")
        body = {"txHash": signature, "chainId": str(chain_id)}
        return await self._call("POST", "/transactions/index", self._object, json_body=body)

    # -- transport -------------------------------------------------------------------------

    async def _read(
        self,
        method: str,
        path: str,
        model: type[M],
        *,
        params: dict[str, str] | None = None,
        json_body: Any = None,
    ) -> M:
        """A request whose answer must fit `model`."""

        def read(response: httpx.Response) -> M:
            return self._model(response, model)

        return await self._call(method, path, read, params=params, json_body=json_body)

    def _headers(self) -> dict[str, str]:
        return self.credential.headers()

    def _note_deprecation(self, response: httpx.Response) -> None:
        """Remember what a retiring endpoint said (headers, else its `deprecation` body)."""
        headers = response.headers
        if "deprecation" not in headers and "sunset" not in headers:
            if b'"deprecation"' not in response.content[:100_000]:
                return
            try:
                body = json.loads(response.content)
            except ValueError:
                return
        else:
            body = None
        notice = read_deprecation(response, body)
        if notice is not None:
            self.deprecations[notice.endpoint] = notice

    async def _call(
        self,
        method: str,
        path: str,
        read: Callable[[httpx.Response], T],
        *,
        params: dict[str, str] | None = None,
        json_body: Any = None,
    ) -> T:
        """`read` of the answer, sent again per `RESEND_RULES` and `self.retry`; a non-2xx
        answer that is not resent becomes its `ServiceError`."""
        where = path.split("?", 1)[0]

        def send() -> Awaitable[httpx.Response]:
            return self._http.request(
                method, path, params=params, json=json_body, headers=self._headers()
            )

        def answer(response: httpx.Response) -> T:
            self._note_deprecation(response)
            if not response.is_success:
                raise error_from(response, method, where)
            return read(response)

        try:
            return await _ENGINE.send(self.retry, method, path, send, answer)
        except NoAnswer as exc:
            raise ServiceConnectionError(
                f"{method} {where}: no answer from the service at {self.base_url} "
                f"({describe_transport_error(exc.error)}) after {exc.attempts} attempt(s)",
                url=self.base_url,
                attempts=exc.attempts,
                may_have_acted=exc.may_have_acted,
            ) from exc.error

    def _relative(self, endpoint: str) -> str:
        """A step's endpoint as a path+query under the base URL.

        An absolute URL is accepted only when it points into this service: following one to
        another host would hand it the API key.
        """
        if not isinstance(endpoint, str) or not endpoint:
            raise MalformedResponseError("the quote names an empty endpoint", status=None)
        try:
            url = httpx.URL(endpoint)
        except httpx.InvalidURL as exc:
            raise MalformedResponseError(
                f"the quote names an invalid endpoint {endpoint!r}: {exc}", status=None
            ) from None
        if url.is_relative_url and endpoint.startswith("/") and not endpoint.startswith("//"):
            problem = endpoint_problem(endpoint)
            if problem is not None:
                raise MalformedResponseError(f"refusing to follow endpoint {problem}", status=None)
            return endpoint
        base_path = self._base.path.rstrip("/")
        if (
            url.scheme == self._base.scheme
            and url.host == self._base.host
            and url.port == self._base.port
            and url.path.startswith(base_path + "/")
        ):
            query = f"?{url.query.decode()}" if url.query else ""
            return url.path[len(base_path) :] + query
        raise MalformedResponseError(
            f"refusing to follow endpoint {endpoint!r}: it is not a path under {self.base_url}",
            status=None,
            hint="a quote's endpoints must be paths of the service; the API key is never sent "
            "elsewhere",
        )

    # -- decoding --------------------------------------------------------------------------

    def _json(self, response: httpx.Response) -> Any:
        raw = response.content
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise malformed(
                response,
                f"answered HTTP {response.status_code} with a body that is not JSON: "
                f"{preview(raw)!r}",
            ) from exc

    def _object(self, response: httpx.Response) -> dict[str, Any]:
        data = self._json(response)
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise malformed(response, f"expected a JSON object, got {type(data).__name__}")
        return data

    def _model(self, response: httpx.Response, model: type[M]) -> M:
        data = self._json(response)
        if not isinstance(data, dict):
            got = "an empty body" if data is None else type(data).__name__
            raise malformed(response, f"expected a JSON object for {model.__name__}, got {got}")
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise malformed(
                response, f"the answer does not fit {model.__name__}: {error_summary(exc)}"
            ) from exc


def _checked_limit(params: dict[str, str]) -> dict[str, str]:
    limit = params.get("limit")
    if limit is not None and not (limit.isdigit() and 1 <= int(limit) <= MAX_PAGE_LIMIT):
        raise InputError(
            f"limit {limit} is out of range", hint=f"use 1..{MAX_PAGE_LIMIT} (default 20)"
        )
    return params


def _request_id(request_id: str) -> str:
    if not isinstance(request_id, str) or not _HEX.fullmatch(request_id):
        raise InputError(
            f"request id {request_id!r} is not hex", hint="request ids look like 0x + 64 hex"
        )
    return request_id


_ENGINE = RetryEngine(RESEND_RULES, unreadable=(MalformedResponseError,), error_code=error_code)
