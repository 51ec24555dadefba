"""ServiceClient against a real HTTP server: the contract's shapes, headers and pagination."""

from __future__ import annotations

from typing import Any

import pytest

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import CursorLoopError, MalformedResponseError
from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.models import QuoteRequest, RequestsQuery, StatusV1, StatusV3

from . import fixtures as fx
from .server import Reply, ScriptedServer, Seen


def withdrawal_request() -> QuoteRequest:
    return QuoteRequest.build(
        user=fx.USER,
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency=fx.PERPS_USDC,
        destination_currency=fx.BASE_USDC,
        amount="1000000000",
        trade_type="EXACT_INPUT",
        protocol_version="v2",
    )


async def test_quote_posts_the_body_and_parses_the_spec_shape(server: ScriptedServer) -> None:
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote()))
    request = withdrawal_request()
    async with ServiceClient(server.url) as client:
        quote = await client.quote(request)

    (seen,) = server.requests_to("POST", "/quote/v2")
    assert seen.json() == request.to_body()
    assert seen.json()["protocolVersion"] == "v2"
    assert seen.headers["content-type"] == "application/json"
    assert [s.id for s in quote.steps] == ["authorize", "deposit"]
    assert quote.request_id == fx.REQUEST_ID
    assert quote.payment_details is not None
    assert quote.payment_details.amount == 1_000_000_000
    assert quote.payment_details.depository == fx.SOLVER
    deposit = quote.steps[1].items[0].as_venue_deposit()
    assert deposit.nonce == fx.NONCE
    assert deposit.action is not None and deposit.action.nonce == fx.NONCE
    authorize = quote.steps[0].items[0].as_signature()
    assert authorize.post is not None and authorize.post.endpoint == "/authorize"
    assert quote.fees is not None and quote.fees.relayer is not None
    assert quote.fees.relayer.amount == 20000
    sponsorship = quote.fee_sponsorship
    assert sponsorship is not None and sponsorship.actual is not None
    assert sponsorship.actual.sponsor_payment is not None
    assert quote.details is not None and quote.details.currency_in is not None
    assert quote.details.currency_in.amount == 1_000_000_000
    # nothing the server sent is lost
    assert quote.to_wire() == fx.venue_withdrawal_quote()


async def test_quote_accepts_a_dict_and_validates_it_before_sending(
    server: ScriptedServer,
) -> None:
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote()))
    async with ServiceClient(server.url) as client:
        with pytest.raises(InputError) as info:
            await client.quote({**withdrawal_request().to_body(), "amount": "1.5"})
        assert "amount" in str(info.value)
        assert server.count("POST", "/quote/v2") == 0
        quote = await client.quote(withdrawal_request().to_body())
    assert quote.request_id == fx.REQUEST_ID


async def test_api_key_header_is_sent_only_when_configured(server: ScriptedServer) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains()))
    async with ServiceClient(server.url, api_key=Secret("k-123")) as client:
        await client.chains()
        assert "k-123" not in repr(client)
        assert "**" in repr(client)
    async with ServiceClient(server.url, api_key="k-456") as client:
        await client.chains()
        assert "k-456" not in repr(client)
    async with ServiceClient(server.url) as client:
        await client.chains()
    keys = [s.headers.get("x-api-key") for s in server.requests_to("GET", "/chains")]
    assert keys == ["k-123", "k-456", None]


async def test_chains_parse(server: ScriptedServer) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains()))
    async with ServiceClient(server.url) as client:
        chains = await client.chains()
    base = chains.by_id(8453)
    assert base is not None and base.find_currency(fx.BASE_USDC) is not None
    assert base.find_currency(fx.BASE_USDC).decimals == 6  # type: ignore[union-attr]
    assert chains.venue is not None and chains.venue.depository == fx.SOLVER
    assert chains.to_wire() == fx.chains()


async def test_status_v1_and_v3_send_request_id_and_parse(server: ScriptedServer) -> None:
    server.on("GET", "/intents/status", Reply(200, fx.status_v1("pending")))
    server.on("GET", "/intents/status/v3", Reply(200, fx.status_v3("refund")))
    async with ServiceClient(server.url) as client:
        v1 = await client.status(fx.REQUEST_ID)
        v3 = await client.status_v3(fx.REQUEST_ID)
        with pytest.raises(InputError):
            await client.status("not-hex")
    assert v1.status == "pending" and v1.time == 1732000000
    assert v3.status == "refund" and v3.is_final and v3.fail_reason == "N/A"
    assert v3.updated_at == 1732000010000
    for path in ("/intents/status", "/intents/status/v3"):
        (seen,) = server.requests_to("GET", path)
        assert seen.query == {"requestId": fx.REQUEST_ID}


async def test_check_follows_a_step_endpoint_under_the_base_path(server: ScriptedServer) -> None:
    server.on("GET", "/api/intents/status", Reply(200, fx.status_v1("success")))
    server.on("GET", "/api/intents/status/v3", Reply(200, fx.status_v3("pending")))
    server.on("GET", "/api/other", Reply(200, {"anything": 1}))
    quote = fx.venue_withdrawal_quote()
    endpoint = quote["steps"][0]["items"][0]["check"]["endpoint"]
    async with ServiceClient(server.url + "/api") as client:
        v1 = await client.check(endpoint)
        v3 = await client.check(f"/intents/status/v3?requestId={fx.REQUEST_ID}")
        other = await client.check(f"{server.url}/api/other?x=1")
        with pytest.raises(MalformedResponseError, match="refusing"):
            await client.check("http://elsewhere.example/intents/status?requestId=0x1")
    assert isinstance(v1, StatusV1) and v1.status == "success"
    assert isinstance(v3, StatusV3) and v3.status == "pending"
    assert other == {"anything": 1}
    assert server.requests_to("GET", "/api/intents/status")[0].query == {"requestId": fx.REQUEST_ID}
    assert server.requests_to("GET", "/api/other")[0].query == {"x": "1"}


def paged(pages: dict[str | None, tuple[list[int], str | None]]):
    """A handler serving `continuation -> (record numbers, next continuation)`."""

    def handle(seen: Seen) -> Reply:
        numbers, cursor = pages[seen.query.get("continuation")]
        body: dict[str, Any] = {"requests": [fx.request_record(n) for n in numbers]}
        if cursor is not None:
            body["continuation"] = cursor
        return Reply(200, body)

    return handle


async def test_iter_requests_follows_continuation_until_absent(server: ScriptedServer) -> None:
    server.on(
        "GET",
        "/requests/v2",
        paged({None: ([1, 2], "c1"), "c1": ([3, 4], "c2"), "c2": ([5], "")}),
    )
    query = RequestsQuery.build(limit=2, user=fx.USER, status="success")
    async with ServiceClient(server.url) as client:
        records = [r async for r in client.iter_requests(query)]
    assert [r.id for r in records] == ["0x" + f"{n:064x}" for n in (1, 2, 3, 4, 5)]
    assert records[0].extra_fields["moonpayId"].startswith("7f0c")
    assert records[0].in_tx_hashes == ["0x" + f"{1:064x}"]
    seen = server.requests_to("GET", "/requests/v2")
    assert [s.query.get("continuation") for s in seen] == [None, "c1", "c2"]
    assert all(s.query["limit"] == "2" and s.query["user"] == fx.USER for s in seen)
    assert all(s.query["status"] == "success" for s in seen)


async def test_iter_pages_ends_with_an_error_when_a_cursor_repeats(server: ScriptedServer) -> None:
    # a quiet stop would show a listing that may have a gap as if it were whole
    server.on("GET", "/requests/v2", paged({None: ([1], "c1"), "c1": ([2], "c1")}))
    pages = []
    async with ServiceClient(server.url) as client:
        with pytest.raises(CursorLoopError) as info:
            async for page in client.iter_pages():
                pages.append(page)
    assert len(pages) == 2  # every page read before the loop was found is still yielded
    assert info.value.cursor == "c1" and info.value.path == "/requests/v2"
    assert "narrow the filters" in str(info.value)
    assert server.count("GET", "/requests/v2") == 2


async def test_iter_pages_stops_on_an_empty_page_and_at_max_pages(server: ScriptedServer) -> None:
    server.on(
        "GET",
        "/requests/v2",
        paged({None: ([1], "a"), "a": ([], "b"), "b": ([2], "c"), "c": ([3], None)}),
    )
    async with ServiceClient(server.url) as client:
        assert len([p async for p in client.iter_pages()]) == 2
        assert len([p async for p in client.iter_pages(max_pages=1)]) == 1
    assert server.count("GET", "/requests/v2") == 3


async def test_page_limit_is_checked_before_sending(server: ScriptedServer) -> None:
    server.on("GET", "/requests/v2", Reply(200, {"requests": []}))
    async with ServiceClient(server.url) as client:
        for bad in (0, 51):
            with pytest.raises(InputError, match="limit"):
                await client.requests(RequestsQuery.model_construct(limit=bad))
            with pytest.raises(InputError, match="limit"):
                RequestsQuery.build(limit=bad)
        assert server.count("GET", "/requests/v2") == 0
        page = await client.requests(RequestsQuery.build(limit=50))
    assert page.requests == [] and not page.has_more
    assert server.requests_to("GET", "/requests/v2")[0].query == {"limit": "50"}


async def test_post_signed_sends_signature_as_query_and_body_as_json(
    server: ScriptedServer,
) -> None:
    server.on("POST", "/authorize", Reply(200, {"message": "ok"}))
    server.on("POST", "/execute/permits", Reply(200, {"steps": []}))
    server.on("POST", "/transactions/index", Reply(200, {}))
    quote = fx.venue_withdrawal_quote()
    body = quote["steps"][0]["items"][0]["data"]["post"]["body"]
    signature = "0x" + "12" * 65
    async with ServiceClient(server.url, api_key="k") as client:
        assert await client.authorize(body, signature) == {"message": "ok"}
        permit = {"kind": "eip3009", "requestId": fx.REQUEST_ID}
        assert await client.submit_permit(permit, signature) == {"steps": []}
        assert await client.index_transaction("0x" + "aa" * 32, 8453) == {}
        with pytest.raises(InputError):
            await client.authorize(body, "not-a-signature")
        with pytest.raises(InputError):
            await client.index_transaction("0x12", 8453)
    (auth,) = server.requests_to("POST", "/authorize")
    assert auth.query == {"signature": signature}
    assert auth.json() == body
    assert auth.headers["x-api-key"] == "k"
    (permit_seen,) = server.requests_to("POST", "/execute/permits")
    assert permit_seen.query == {"signature": signature}
    assert permit_seen.json() == {"kind": "eip3009", "requestId": fx.REQUEST_ID}
    (index,) = server.requests_to("POST", "/transactions/index")
    assert index.json() == {"txHash": "0x" + "aa" * 32, "chainId": 8453}


async def test_base_url_must_be_http() -> None:
    with pytest.raises(InputError):
        ServiceClient("ftp://example.com")
    with pytest.raises(InputError):
        ServiceClient("not a url")
