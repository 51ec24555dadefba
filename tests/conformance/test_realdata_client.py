"""The client against the public service's own answers, as recorded in ../shared/realdata.

Every recorded file is either checked here or named below with the reason it is not. In scope
are the EVM chains and the venue: each file goes through the models (parse, and a round trip
that keeps every field, its nesting, JSON type and string form), and by kind through the
pre-sign guards, both quote renderers (the CLI's and the app's describer), the history
formatter and the real CLI against a 127.0.0.1 server that replays the recorded body.

The guards run on each whole quote made out for this test's wallet: the recorded user address is
replaced by the wallet everywhere it appears (fields and calldata). They need a /chains answer
naming the chains the quotes pay on; the recorded chains files cover optimism only, so the
answer is the recorded optimism chain plus, for each chain a quote pays on, a copy of that
recorded chain object with the public chain's id and protocol name (`PUBLIC_CHAINS`, as the
public /chains lists them).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from realdata_support import (
    json_differences,
    load,
    on_disk,
    realdata_dir,
    replay_server,
    with_wallet,
)

from crossdeck.cli import main
from crossdeck.cli.commands.service import render_quote
from crossdeck.execute import describe
from crossdeck.execute.guards import check_quote, failures
from crossdeck.history.formats import csv_line, json_line, table_line
from crossdeck.history.summary import summarize
from crossdeck.models import (
    ChainsResponse,
    ErrorBody,
    Quote,
    QuoteRequest,
    RequestsPage,
    StatusV1,
    StatusV3,
    Step,
    WebhookEvent,
    WireModel,
)
from crossdeck.models.display import shown_number
from crossdeck.models.units import to_decimal
from crossdeck.models.venue import ClearinghouseState, SpotClearinghouseState, SpotMeta
from crossdeck.tui import describe as app
from helpers.keys import DEV_KEYS

WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DEMO_KEY = DEV_KEYS[0]
# protocol.v2.chainId -> id, as the public /chains answer lists them
PUBLIC_CHAINS = {"ethereum": 1, "base": 8453, "hyperevm": 999, "hyperliquid": 1337}
# the venue's depository, as the service's public settlement config names it for Hyperliquid
# (the hyperliquid-support quote's paymentDetails.depository and sendAsset destination); its
# solver stays the recorded chain's solverAddresses (0xf70da9..., the quote's orderData.solver),
# another account. The EVM chains keep the recorded chain's depository
VENUE_DEPOSITORY = {"hyperliquid": "0x865eb9baa5492cef598adf7afb1038654fcb7081"}

# -- what each file is -------------------------------------------------------------------------

# whole EVM or venue quotes: for this wallet they pass every guard
QUOTES_PASSING = [
    "quote/docs-calling-integration-guide-2026-08-21-1.json",
    "quote/docs-deposit-addresses-2026-07-31-1.json",
    "quote/docs-deposit-addresses-2026-07-31-2.json",
    "quote/docs-gasless-execution-2026-07-31-1.json",
    "quote/docs-hyperliquid-support-2026-06-03-1.json",
    "quote/docs-lighter-support-2026-04-24-1.json",  # origin base; Lighter is only the destination
    "quote/docs-price-stabilization-2026-04-16-1.json",
    "quote/docs-price-stabilization-2026-04-16-2.json",
    "quote/docs-price-stabilization-2026-04-16-3.json",
    "quote/docs-price-stabilization-2026-04-16-4.json",
    "quote/docs-price-stabilization-2026-04-17-1.json",
    "quote/docs-price-stabilization-2026-04-17-2.json",
    "quote/docs-price-stabilization-2026-08-21-1.json",
    "quote/docs-price-stabilization-2026-08-21-2.json",
    # a self-executed USDT swap: the approve reset to 0, the approve of the input, both to the
    # v3 approvalProxy /chains names, then its call (cut to a selector in the recording:
    # undecoded, so the simulation holds it to the quote before signing, which needs a chain)
    "quote/relay-kit-swapWithZeroResetApproval.json",
]
# whole quotes of a form the guards cannot judge: refused, naming the field and why
NO_PAYMENT_DETAILS = (
    "tx-payment",
    "the quote has no protocol.v2.paymentDetails (depository, currency, amount)",
)
QUOTES_REFUSED = {
    # older route forms (a deposit to the solver or a router, a swap through a router) carry no
    # protocol.v2.paymentDetails: nothing says what the transaction may pay, or to whom
    "quote/docs-bridging-integration-guide-2026-08-21-1.json": NO_PAYMENT_DETAILS,
    "quote/docs-quickstart-2026-07-21-1.json": NO_PAYMENT_DETAILS,
    "quote/docs-swapping-integration-guide-2025-12-18-1.json": NO_PAYMENT_DETAILS,
    "quote/relay-kit-executeBridge.json": NO_PAYMENT_DETAILS,
    # same-chain swaps in the self-executed form (no protocol.v2): their router calldata would
    # be simulated, but each is refused first by what can be read without a chain
    "quote/openapi-quote-examples.json": (
        "tx-payment",
        "a same-chain swap on chain 8453, but this transaction is on chain 1",
    ),
    "quote/relay-kit-swapWithApproval.json": (
        "tx-destination",  # its router is none of the contracts the recorded /chains names
        "which is not the depository /chains names",
    ),
    "quote/docs-hyperliquid-support-2026-04-24-1.json": (
        "authorize-terms",
        "the NonceMapping has no `depositor` field (an older authorize form)",
    ),
    # the docs cut the PSBT short ("70736274ff0100fdb401...5..."): nothing crossdeck can read
    "quote/docs-bitcoin-2026-06-09-1.json": ("bitcoin-psbt", "neither hex nor base64"),
    # routes to Bitcoin and to Solana whose EVM items the docs cut to from/to/chainId (no
    # calldata, no value) and which carry no paymentDetails: nothing a wallet could sign as
    # shown; their Solana / Bitcoin recipients pass the request guards (below)
    "quote/docs-bitcoin-2026-06-09-2.json": NO_PAYMENT_DETAILS,
    "quote/docs-solana-2026-08-13-1.json": NO_PAYMENT_DETAILS,
    "quote/docs-bitcoin-2026-06-09-3.json": ("bitcoin-psbt", "neither hex nor base64"),
    # an unlimited Permit2 approve, then a Permit2 batch transfer permit, with no paymentDetails
    # to hold them to
    "quote/relay-kit-executeBridgeAuthorize.json": NO_PAYMENT_DETAILS,
}
# parsed, round-tripped and rendered, but not whole answers to run the guards on
QUOTES_MODELS_ONLY = {
    "quote/docs-app-fees-2026-08-18-1.json": "partial: only `steps`, without a requestId",
    "quote/docs-deposit-addresses-2026-03-05-1.json": "partial: only `steps`",
    "quote/docs-fee-sponsorship-2026-08-21-1.json": "partial: only `fees`, '...' for elided ones",
    "quote/docs-fees-2025-03-21-1.json": "partial: older fee strings, no requestId",
    "quote/docs-integrating-2025-07-18-1.json": "partial: only `protocol`",
    "quote/docs-integrating-2025-12-18-1.json": "partial: only `protocol`",
    "quote/docs-step-execution-2025-12-09-1.json": "partial: steps without a requestId",
    "quote/docs-step-execution-2026-04-17-1.json": "partial: steps without a requestId",
}
STEPS = sorted(
    [f"step/docs-hyperliquid-support-{d}.json" for d in ("2026-04-24-1", "2026-06-03-1")]
    + ["step/docs-hyperliquid-support-2026-06-03-2.json"]
    + [f"step/docs-step-execution-2025-12-05-{n}.json" for n in (1, 2)]
    + [f"step/docs-step-execution-2025-12-09-{n}.json" for n in (1, 2, 3, 4)]
    + [f"step/docs-step-execution-2026-04-17-{n}.json" for n in (1, 2, 3, 4, 5)]
)
POST_ANSWERS = ["post-answer/relay-kit-postSignatureExtraSteps.json"]
REQUEST_PAGES = [
    "requests/docs-deposit-addresses-2026-03-05-1.json",
    "requests/docs-deposit-addresses-2026-04-17-1.json",
    "requests/docs-deposit-addresses-2026-05-21-1.json",
    "requests/docs-deposit-addresses-2026-07-13-1.json",
    "requests/docs-deposit-addresses-2026-07-31-1.json",
    "requests/docs-deposit-addresses-2026-07-31-2.json",
    "requests/docs-migrating-to-requests-v3-2026-06-23-1.json",
    "requests/docs-migrating-to-requests-v3-2026-08-19-1.json",
    "requests/docs-migrating-to-requests-v3-2026-08-19-deprecation-fragment.json",
    "requests/openapi-requests-v1.json",
    "requests/openapi-requests-v2.json",
]
STATUSES = {
    "status/docs-bridging-integration-guide-2026-08-21-1.json": StatusV3,
    "status/docs-deposit-addresses-2026-07-31-1.json": StatusV3,
    "status/docs-quickstart-2026-07-21-1.json": StatusV3,
    "status/openapi-intents-status-v1.json": StatusV1,
    "status/openapi-intents-status-v2.json": StatusV1,
    "status/openapi-intents-status-v3.json": StatusV3,
}
WEBHOOKS = [
    "webhook/docs-webhooks-2026-03-26-1.json",
    "webhook/docs-webhooks-2026-04-17-1.json",
    "webhook/docs-webhooks-2026-04-23-1.json",
    "webhook/docs-webhooks-2026-04-23-2.json",
    "webhook/docs-webhooks-2026-05-26-1.json",
    "webhook/docs-webhooks-2026-05-27-1.json",
    "webhook/docs-webhooks-2026-07-27-1.json",
]
CHAINS = [
    "chains/docs-quickstart-2026-07-21-1.json",
    "chains/docs-supported-routes-2025-02-27-1.json",
    "chains/docs-supported-routes-2026-04-17-1.json",
    "chains/docs-supported-routes-2026-04-17-2.json",
]
# error bodies, and the code the client must read from each (None: the body carries none)
ERRORS = {
    "error/docs-gasless-execution-2026-07-31-1.json": "INVALID_SIGNATURE",  # under `error`
    "error/docs-gasless-execution-2026-07-31-2.json": None,
    "error/docs-handling-errors-2025-07-01-1.json": "AMOUNT_TOO_LOW",  # under `code`
    "error/docs-handling-errors-2026-02-18-1.json": "AMOUNT_TOO_LOW",
    "error/docs-handling-errors-2026-08-13-1.json": "INVALID_INPUT_CURRENCY",
    "error/docs-handling-errors-2026-08-13-2.json": "NO_SWAP_ROUTES_FOUND",
    "error/docs-handling-errors-2026-08-13-3.json": "DESTINATION_TX_FAILED",  # errorData text
    "error/docs-handling-errors-2026-08-13-4.json": "SOLANA_TX_TOO_LARGE",
    "error/docs-migrating-to-requests-v3-2026-08-19-1.json": None,
    "error/docs-transaction-indexing-2026-06-01-1.json": None,
    # the v3 error shape (message + errorCode), the code a placeholder as rendered
    "error/docs-create-access-token-2026-11-25-1.json": "<string>",
}
VENUE_INFO: dict[str, type[WireModel]] = {
    "venue-info/hyperevm-vault-spotMeta-2025-08.json": SpotMeta,
    "venue-info/pysdk-spotMeta-from-spotMetaAndAssetCtxs.json": SpotMeta,
    "venue-info/jkorf-clearinghouseState-2025-08.json": ClearinghouseState,
    "venue-info/pysdk-clearinghouseState-2023-03.json": ClearinghouseState,
    "venue-info/jkorf-spotClearinghouseState.json": SpotClearinghouseState,
}
OUT_OF_SCOPE = {
    "openapi/relay-openapi-2025-12-03.json": (
        "the API schema, not an answer; its examples are the openapi-* files checked here"
    ),
    "quote/docs-lighter-support-2026-04-24-2.json": (
        "pays from Lighter (a `transfer` action on chain 'lighter'), a venue crossdeck does not "
        "sign for"
    ),
    "requests-v3/docs-migrating-to-requests-v3-2026-07-09-1.json": (
        "a /requests/v3 record: checked by tests/conformance/test_requests_v3*.py"
    ),
    "requests-v3/docs-migrating-to-requests-v3-2026-08-19-1.json": (
        "a /requests/v3 record: checked by tests/conformance/test_requests_v3*.py"
    ),
    "venue-exchange/jkorf-exchange-ok-default.json": (
        "an /exchange acknowledgement the venue client reads as plain JSON (no model to round "
        "trip); the venue SDK tests post to /exchange"
    ),
}
QUOTES = [*QUOTES_PASSING, *QUOTES_REFUSED, *QUOTES_MODELS_ONLY]


def test_every_recorded_file_is_checked_or_named_out_of_scope() -> None:
    from test_quote_v3_realdata import CHECKED as QUOTE_V3_AND_WS

    assert realdata_dir().is_dir(), f"no recorded answers at {realdata_dir()}"
    checked = [
        *QUOTE_V3_AND_WS,
        *QUOTES,
        *STEPS,
        *POST_ANSWERS,
        *REQUEST_PAGES,
        *STATUSES,
        *WEBHOOKS,
        *CHAINS,
        *ERRORS,
        *VENUE_INFO,
    ]
    assert len(checked) == len(set(checked))
    assert not set(checked) & set(OUT_OF_SCOPE)
    assert on_disk() == set(checked) | set(OUT_OF_SCOPE)


# -- models: parse and round trip --------------------------------------------------------------

MODEL_CASES: list[tuple[str, type[WireModel]]] = [
    *[(name, Quote) for name in QUOTES],
    *[(name, Step) for name in STEPS],
    *[(name, Quote) for name in POST_ANSWERS],
    *[(name, RequestsPage) for name in REQUEST_PAGES],
    *STATUSES.items(),
    *[(name, WebhookEvent) for name in WEBHOOKS],
    *[(name, ChainsResponse) for name in CHAINS],
    *[(name, ErrorBody) for name in ERRORS],
    *VENUE_INFO.items(),
]


@pytest.mark.parametrize(("name", "model"), MODEL_CASES, ids=[c[0] for c in MODEL_CASES])
def test_parses_and_round_trips_every_field_and_type(name: str, model: type[WireModel]) -> None:
    raw = load(name)
    parsed = model.from_wire(raw)
    assert json_differences(parsed.to_wire(), raw) == []
    # as a client receives it: JSON text in, JSON text out
    text = (realdata_dir() / name).read_text()
    again = json.loads(json.dumps(model.from_json(text).to_wire()))
    assert json_differences(again, raw) == []
    # a copy (the executor deep-copies a quote and journals it) keeps the wire forms too
    assert json_differences(parsed.model_copy(deep=True).to_wire(), raw) == []


def test_gas_keeps_its_wire_form_and_is_the_gas_limit() -> None:
    as_number = load("step/docs-step-execution-2025-12-09-1.json")
    item = Step.from_wire(as_number).items[0].as_transaction()
    assert (
        item.gas == 21064
        and Step.from_wire(as_number).to_wire()["items"][0]["data"]["gas"] == 21064
    )
    as_text = load("quote/docs-price-stabilization-2026-04-16-1.json")
    tx = Quote.from_wire(as_text).steps[0].items[0].as_transaction()
    assert tx.gas == 73112
    assert Quote.from_wire(as_text).to_wire()["steps"][0]["items"][0]["data"]["gas"] == "73112"


def test_request_records_keep_usd_fees_as_decimal_text() -> None:
    page = RequestsPage.from_wire(load("requests/docs-deposit-addresses-2026-04-17-1.json"))
    [record] = page.requests
    assert record.data is not None and record.data.fees_usd is not None
    assert record.data.fees_usd.gas == "0.003806"
    assert str(record.data.fees_usd.decimal("gas")) == "0.003806"


def test_one_odd_field_keeps_the_page() -> None:
    raw = load("requests/docs-deposit-addresses-2026-07-31-1.json")
    odd = copy.deepcopy(raw)
    record = odd["requests"][0]
    record["createdAt"] = {"unexpected": True}
    record["data"]["inTxs"][0]["chainId"] = "base"
    page = RequestsPage.from_wire(odd)
    assert [r.id for r in page.requests] == [raw["requests"][0]["id"]]
    assert json_differences(page.to_wire(), odd) == []
    assert page.requests[0].created_at is None  # read as unknown, kept as sent


@pytest.mark.parametrize("name", list(ERRORS), ids=list(ERRORS))
def test_error_code_is_read_wherever_it_is(name: str) -> None:
    body = ErrorBody.from_wire(load(name))
    assert body.error_code == ERRORS[name]


# -- guards ------------------------------------------------------------------------------------


def chains_answer() -> ChainsResponse:
    recorded = load("chains/docs-quickstart-2026-07-21-1.json")
    template = recorded["chains"][0]
    chains = list(recorded["chains"])
    for name, chain_id in PUBLIC_CHAINS.items():
        chain = copy.deepcopy(template)
        chain.update(id=chain_id, name=name, displayName=name.capitalize())
        chain["protocol"]["v2"]["chainId"] = name
        if name in VENUE_DEPOSITORY:
            chain["protocol"]["v2"]["depository"] = VENUE_DEPOSITORY[name]
        chains.append(chain)
    return ChainsResponse.from_wire({"chains": chains})


def recorded_users(raw: dict[str, Any]) -> list[str]:
    """Who the recorded quote was made out for: the sender, each `from`, each authorize wallet."""
    users = {(raw.get("details") or {}).get("sender")}
    for step in raw.get("steps") or []:
        for item in step.get("items") or []:
            data = item.get("data") or {}
            users.add(data.get("from"))
            users.add(((data.get("sign") or {}).get("value") or {}).get("wallet"))
    return sorted(u for u in users if isinstance(u, str) and u)


def for_this_wallet(name: str) -> Quote:
    raw = load(name)
    return Quote.from_wire(with_wallet(raw, recorded_users(raw), WALLET))


# the public service's name as the mainnet profile sets it (service.name)
PUBLIC_SERVICE_NAME = "Relay"


def public_spot_meta() -> SpotMeta:
    """The venue's recorded spotMeta: the names a sendAsset token must carry."""
    return SpotMeta.model_validate(load("venue-info/pysdk-spotMeta-from-spotMetaAndAssetCtxs.json"))


@pytest.mark.parametrize("name", QUOTES_PASSING)
def test_a_real_quote_for_this_wallet_passes_every_guard(name: str) -> None:
    quote = for_this_wallet(name)
    tx_chains = {
        item.as_transaction().chain_id
        for step in quote.steps
        for item in step.items
        if item.kind_of_data == "transaction"
    }
    results = check_quote(
        quote,
        wallet=WALLET,
        rpc_chain_ids=tx_chains,
        chains=chains_answer(),
        service_name=PUBLIC_SERVICE_NAME,
        spot_meta=public_spot_meta(),
    )
    assert failures(results) == []
    names = {r.name for r in results}
    if quote.payment_details is not None and quote.steps:
        assert "payment-chain" in names
    if any(step.deposit_address for step in quote.steps):
        assert any(r.name == "tx-payment" and "deposit address" in r.message for r in results)


# the relay-kit swaps leave `from` out of their items: they name no user to hold them to
NAMING_A_USER = [
    n
    for n in QUOTES_PASSING
    if any(
        "from" in (item.get("data") or {}) or "sign" in (item.get("data") or {})
        for step in load(n).get("steps") or []
        for item in step.get("items") or []
    )
]


@pytest.mark.parametrize("name", NAMING_A_USER)
def test_the_same_quote_for_another_wallet_is_refused(name: str) -> None:
    quote = Quote.from_wire(load(name))
    refused = failures(check_quote(quote, wallet=WALLET, chains=chains_answer()))
    assert {r.name for r in refused} & {"tx-from", "authorize-terms", "tx-address"}


PAID_BY_NAME = [n for n in QUOTES_PASSING if (load(n).get("protocol") or {}).get("v2")]


@pytest.mark.parametrize("name", PAID_BY_NAME)
def test_a_chain_name_chains_does_not_know_is_refused(name: str) -> None:
    quote = for_this_wallet(name)
    payment = quote.payment_details
    assert payment is not None and payment.chain_id in PUBLIC_CHAINS
    known = chains_answer()
    unknown = ChainsResponse.from_wire(
        {"chains": [c.to_wire() for c in known.chains if c.protocol_chain_name != payment.chain_id]}
    )
    [failed, *_] = failures(check_quote(quote, wallet=WALLET, chains=unknown))
    assert failed.name == "payment-chain"
    assert f"paymentDetails.chainId {payment.chain_id!r} names no chain /chains knows" in (
        failed.message
    )
    # and without any /chains answer the name cannot be mapped either
    missing = failures(check_quote(quote, wallet=WALLET, chains=None))
    assert any("there is no /chains answer" in r.message for r in missing)


def test_the_real_paid_quotes_are_the_ones_the_issue_counts() -> None:
    evm_or_venue = [n for n in PAID_BY_NAME if load(n).get("steps")]
    assert len(evm_or_venue) == 14


def test_the_real_withdrawal_pays_the_venue_depository_and_never_the_solver() -> None:
    name = "quote/docs-hyperliquid-support-2026-06-03-1.json"
    chains = chains_answer()
    venue = chains.venue
    assert venue is not None and venue.solver_addresses
    [solver] = venue.solver_addresses
    raw = with_wallet(load(name), recorded_users(load(name)), WALLET)
    assert raw["protocol"]["v2"]["orderData"]["solver"] == solver != venue.depository
    results = check_quote(Quote.from_wire(raw), wallet=WALLET, chains=chains)
    [held] = [r for r in results if r.name == "send-asset-depository"]
    assert held.ok and "pays the venue depository 0x865e" in held.message
    assert "/chains names for chain 1337" in held.message

    def refusals(destination: str, *, pay_it_too: bool) -> list[str]:
        tampered = copy.deepcopy(raw)
        tampered["steps"][1]["items"][0]["data"]["action"]["parameters"]["destination"] = (
            destination
        )
        if pay_it_too:  # the quote's paymentDetails names the same address
            tampered["protocol"]["v2"]["paymentDetails"]["depository"] = destination
        refused = failures(check_quote(Quote.from_wire(tampered), wallet=WALLET, chains=chains))
        return [f"{r.name}: {r.message}" for r in refused]

    # to the solver: refused by name, even where the quote's paymentDetails names it
    for pay_it_too in (False, True):
        refused = refusals(solver, pay_it_too=pay_it_too)
        [by_chains] = [r for r in refused if r.startswith("send-asset-depository")]
        assert f"sendAsset pays {solver}, which is not the venue depository" in by_chains
        assert "/chains lists it as a solver" in by_chains
    # to anything else
    other = "0x" + "12" * 20
    refused = refusals(other, pay_it_too=True)
    assert any(r.startswith(f"send-asset-depository: sendAsset pays {other}") for r in refused)
    assert any(r.startswith("depository: the quote pays depository") for r in refused)


@pytest.mark.parametrize("name", list(QUOTES_REFUSED))
def test_a_form_the_guards_cannot_judge_is_refused_in_words(name: str) -> None:
    guard, words = QUOTES_REFUSED[name]
    quote = for_this_wallet(name)
    refused = failures(check_quote(quote, wallet=WALLET, chains=chains_answer()))
    assert any(r.name == guard and words in r.message for r in refused), refused


@pytest.mark.parametrize(
    "name", ["quote/docs-solana-2026-08-13-1.json", "quote/docs-bitcoin-2026-06-09-2.json"]
)
def test_solana_and_bitcoin_recipients_pass_the_request_guards(name: str) -> None:
    quote = for_this_wallet(name)
    details = quote.details
    assert details is not None and details.currency_in and details.currency_out
    inp, out = details.currency_in, details.currency_out
    assert not isinstance(inp.currency, str) and not isinstance(out.currency, str)
    request = QuoteRequest.build(
        user=WALLET,
        origin_chain_id=inp.currency.chain_id,
        destination_chain_id=out.currency.chain_id,
        origin_currency=inp.currency.address,
        destination_currency=out.currency.address,
        amount=str(inp.amount),
        trade_type="EXACT_INPUT",
        recipient=details.recipient,
    )
    results = check_quote(quote, wallet=WALLET, chains=chains_answer(), request=request)
    passed = {r.name for r in results if r.ok}
    assert {"request-recipient", "request-destination", "request-user"} <= passed
    assert not [r for r in failures(results) if r.name.startswith("request-")]


ZERO_RESET = "quote/relay-kit-swapWithZeroResetApproval.json"
USDT_INPUT = 200000  # the recorded quote's currencyIn amount


def _approve_data(spender: str, amount: int) -> str:
    return "0x095ea7b3" + spender.lower()[2:].rjust(64, "0") + hex(amount)[2:].rjust(64, "0")


def test_the_zero_reset_approve_is_read_in_words() -> None:
    results = check_quote(for_this_wallet(ZERO_RESET), wallet=WALLET, chains=chains_answer())
    reset, approve, swap = [r for r in results if r.name == "tx-payment"]  # in the steps' order
    assert reset.ok
    assert "resets the allowance of the router 3 approval proxy (v3.approvalProxy)" in (
        reset.message
    )
    assert "it grants nothing" in reset.message
    assert approve.ok and "approve exactly the swap's input" in approve.message
    assert swap.ok and "simulated before signing" in swap.message
    [steps] = [r.message for r in results if r.name == "steps"]
    assert "(2 approve, 1 swap through the service's router)" in steps
    assert "deposit" not in steps


def _zero_reset_steps(wire: dict[str, Any], change: str) -> None:
    """The recorded zero-reset quote's steps made looser in one way."""
    reset, approve, swap = wire["steps"]
    spender = "0xccc88a9d1b4ed6b0eaba998850414b24f1c315be"
    if change == "reset-to-another-spender":
        other = "0xbbbfd134e9b44bfb5123898ba36b01de7ab93d98"  # approvalProxy, also named
        reset["items"][0]["data"]["data"] = _approve_data(other, 0)
    elif change == "reset-after-the-approve":
        wire["steps"] = [approve, reset, swap]
    elif change == "reset-not-to-zero":
        reset["items"][0]["data"]["data"] = _approve_data(spender, 1)
    elif change == "swap-between":
        wire["steps"] = [reset, swap, approve]
    elif change == "two-resets":
        wire["steps"] = [reset, copy.deepcopy(reset), approve, swap]
    elif change == "reset-with-value":
        reset["items"][0]["data"]["value"] = "1"


@pytest.mark.parametrize(
    "change",
    [
        "reset-to-another-spender",
        "reset-after-the-approve",
        "reset-not-to-zero",
        "swap-between",
        "two-resets",
        "reset-with-value",
    ],
)
def test_a_looser_zero_reset_is_refused(change: str) -> None:
    """Only an approve(0) to the same spender right before the approve of exactly the input is
    the zero-reset form; anything else keeps the single-approve rule."""
    raw = with_wallet(load(ZERO_RESET), recorded_users(load(ZERO_RESET)), WALLET)
    _zero_reset_steps(raw, change)
    refused = failures(check_quote(Quote.from_wire(raw), wallet=WALLET, chains=chains_answer()))
    names = {r.name for r in refused}
    assert names & {"tx-payment", "steps"}, refused
    assert not [r for r in refused if "resets the allowance" in r.message]


def test_a_permit2_permit_is_not_signed_blind() -> None:
    quote = for_this_wallet("quote/relay-kit-executeBridgeAuthorize.json")
    refused = failures(check_quote(quote, wallet=WALLET, chains=chains_answer()))
    [permit] = [r for r in refused if r.where and "authorize1" in r.where]
    assert "Permit2 PermitBatchWitnessTransferFrom" in permit.message


def test_a_deposit_to_another_address_than_the_steps_is_refused() -> None:
    raw = with_wallet(
        load("quote/docs-deposit-addresses-2026-07-31-1.json"),
        recorded_users(load("quote/docs-deposit-addresses-2026-07-31-1.json")),
        WALLET,
    )
    raw["steps"][0]["items"][0]["data"]["to"] = "0x" + "22" * 20
    refused = failures(check_quote(Quote.from_wire(raw), wallet=WALLET, chains=chains_answer()))
    assert [r.name for r in refused] == ["tx-payment", "tx-destination"]
    assert "neither the step's depositAddress" in refused[0].message


# -- renderers ---------------------------------------------------------------------------------

REQUEST = {
    "user": WALLET,
    "originChainId": 8453,
    "destinationChainId": 999,
    "originCurrency": "0x" + "0" * 40,
    "destinationCurrency": "0x" + "0" * 40,
    "amount": "1",
    "tradeType": "EXACT_INPUT",
}


USD_FIGURE = re.compile(r"\$[0-9,]+(\.[0-9]+)?")


@pytest.mark.parametrize("name", [*QUOTES, *POST_ANSWERS])
def test_the_describer_says_every_step_in_units(name: str) -> None:
    """The one describer (what the CLI prints and the app renders) over every recorded quote:
    each step and item said, each amount in units beside its integer, USD to the cent, JSON
    where a payload is shown, and the CLI's text exactly the describer's."""
    quote = Quote.from_wire(load(name))
    chains = chains_answer()
    request = QuoteRequest.from_body(REQUEST)
    sections = describe.quote_sections(quote, chains, request)
    text = "\n".join(render_quote(quote, request, chains))
    assert text.splitlines() == describe.text_lines(sections)
    [steps] = [s for s in sections if s.title.startswith("Steps")]
    for number, step in enumerate(quote.steps, start=1):
        assert any(line.label == f"{number}. {step.id}" for line in steps.lines)
        for item_number in range(1, len(step.items) + 1):
            head = f"{number}.{item_number} "
            assert any(line.label.strip().startswith(head) for line in steps.lines)
    lines = [line for section in sections for line in section.lines]
    for line in lines:
        if line.kind == "amount" and line.raw is not None and line.raw.isdigit():
            # the integer beside its units (or said to be of unknown decimals: a bare symbol)
            assert f"({line.raw}" in line.value or "decimals unknown" in line.value, line
        for figure in USD_FIGURE.finditer(line.value):
            assert re.fullmatch(r"\$[0-9,]+\.[0-9]{2}", figure.group()), line  # to the cent
        assert "{'" not in line.value, line  # JSON, never a Python dict
    details = quote.details
    paid = details.currency_in if details else None
    if paid is not None and paid.amount is not None and paid.decimals is not None:
        shown = shown_number(to_decimal(paid.amount, paid.decimals))  # as a wallet shows it
        assert f"{shown} {paid.symbol} ({paid.amount})" in text
    summary = app.summarize_quote(quote, chains)
    assert summary.pay == describe.money(paid, describe.Currencies(quote, chains))
    if name in QUOTES_PASSING:  # an item these quotes carry is never shown as unknown
        assert "unknown" not in text
        # but for a self-executed swap's router call, which is said to be simulated
        undecoded = [line for line in text.splitlines() if "not decoded" in line]
        assert all(line.endswith(": simulated or refused") for line in undecoded), undecoded
        assert not undecoded or quote.payment_details is None


# -- history formatter and the CLI -------------------------------------------------------------


@pytest.mark.parametrize("name", REQUEST_PAGES)
def test_history_formatter_shows_every_record(name: str) -> None:
    raw = load(name)
    page = RequestsPage.from_wire(raw)
    for record, wire in zip(page.requests, raw["requests"], strict=True):
        assert json_differences(json.loads(json_line(record)), wire) == []
        row = summarize(record)
        assert row.id == wire["id"] and row.status == wire["status"]
        assert row.short_id in table_line(record)
        assert wire["id"] in csv_line(record)


def world_file(tmp_path: Path, service_url: str) -> Path:
    path = tmp_path / "world.json"
    path.write_text(
        json.dumps(
            {
                "service_url": service_url,
                "venue_url": "http://127.0.0.1:9",
                "rpc": {"8453": "http://127.0.0.1:9"},
                "wallet": {"address": WALLET, "private_key": DEMO_KEY},
                "api_key": "conformance-key",
                "solver": WALLET,
            }
        )
    )
    return path


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_SERVICE__URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def crossdeck(world: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["--world", str(world), *args], catch_exceptions=False)


@pytest.mark.parametrize("name", [n for n in REQUEST_PAGES if load(n)["requests"]])
def test_crossdeck_requests_lists_the_recorded_page(name: str, isolated: Path) -> None:
    raw = load(name)
    # /requests/v3 is not offered by this server: the client falls back to v2
    with replay_server({"/requests/v2": (200, raw)}) as url:
        result = crossdeck(world_file(isolated, url), "requests", "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [line["id"] for line in lines] == [r["id"] for r in raw["requests"]]
    for line, wire in zip(lines, raw["requests"], strict=True):
        assert json_differences(line, wire) == []


@pytest.mark.parametrize("name", list(STATUSES))
def test_crossdeck_status_shows_the_recorded_status(name: str, isolated: Path) -> None:
    raw = load(name)
    paths = ("/intents/status", "/intents/status/v2", "/intents/status/v3")
    with replay_server(dict.fromkeys(paths, (200, raw))) as url:
        world = world_file(isolated, url)
        plain = crossdeck(world, "status", "0x" + "ab" * 32)
        as_json = crossdeck(world, "status", "--v3", "--json", "0x" + "ab" * 32)
    assert plain.exit_code == 0, plain.output
    assert raw["status"] in plain.stdout
    assert as_json.exit_code == 0, as_json.output
    assert json_differences(json.loads(as_json.stdout), raw) == []


@pytest.mark.parametrize("name", [n for n, code in ERRORS.items() if code])
def test_crossdeck_names_the_error_code_wherever_the_body_carries_it(
    name: str, isolated: Path
) -> None:
    raw = load(name)
    with replay_server({"/intents/status/v3": (400, raw)}) as url:
        result = crossdeck(world_file(isolated, url), "status", "--v3", "0x" + "ab" * 32)
    assert result.exit_code != 0
    assert ERRORS[name] in result.output
    assert "Traceback" not in result.output
    if isinstance(raw.get("errorData"), str):
        assert raw["errorData"] in result.output


def test_the_real_withdrawal_is_held_to_the_venues_and_the_services_words() -> None:
    """The public withdrawal passes the venue-words guards with the venue's recorded spotMeta and
    the public service's name; each word changed as a service in the middle would is refused
    before signing, naming its guard."""
    name = "quote/docs-hyperliquid-support-2026-06-03-1.json"
    raw = with_wallet(load(name), recorded_users(load(name)), WALLET)

    def verdicts(change: Any = None, service: str = PUBLIC_SERVICE_NAME) -> dict[str, str]:
        wire = copy.deepcopy(raw)
        if change is not None:
            change(wire)
        results = check_quote(
            Quote.from_wire(wire),
            wallet=WALLET,
            chains=chains_answer(),
            service_name=service,
            spot_meta=public_spot_meta(),
        )
        return {r.name: r.message for r in results if not r.ok}

    assert verdicts() == {}
    deposit = ("steps", 1, "items", 0, "data")

    def at(wire: dict[str, Any], path: tuple[Any, ...]) -> Any:
        for key in path:
            wire = wire[key]
        return wire

    def params(wire: dict[str, Any]) -> dict[str, Any]:
        return at(wire, deposit)["action"]["parameters"]

    def rename(wire: dict[str, Any]) -> None:
        p = params(wire)
        p["destDex"] = p.pop("destinationDex")
        fields = at(wire, deposit)["eip712Types"]["HyperliquidTransaction:SendAsset"]
        for field in fields:
            if field["name"] == "destinationDex":
                field["name"] = "destDex"

    token_id = "0x6d1e7cde53ba9467b783cb7c530ce054"
    cases: list[tuple[Any, str, str]] = [
        (lambda w: params(w).update(token=f"USDH:{token_id}"), "send-asset-token", "'USDH:0x6d1e"),
        (lambda w: params(w).update(token=token_id), "send-asset-token", "is not 'USDC:0x6d1e"),
        (lambda w: params(w).update(token=f":{token_id}"), "send-asset-token", "':0x6d1e"),
        (lambda w: params(w).update(destinationDex="spot"), "send-asset-dex", "'spot' is not ''"),
        (lambda w: params(w).update(sourceDex="xyz"), "send-asset-dex", "sourceDex 'xyz'"),
        (lambda w: params(w).update(memo="hi"), "send-asset-shape", "['memo']"),
        (lambda w: params(w).pop("fromSubAccount"), "send-asset-shape", "['fromSubAccount']"),
        (rename, "send-asset-shape", "destDex string"),
        (
            lambda w: at(w, ("steps", 0, "items", 0, "data"))["sign"]["domain"].update(
                name="OtherNonceMapping"
            ),
            "authorize-domain",
            "'OtherNonceMapping' is not 'RelayNonceMapping'",
        ),
    ]
    for change, guard, words in cases:
        refused = verdicts(change)
        assert guard in refused and words in refused[guard], (guard, refused)
    # another service's name (the setting) reads the public domain as not its own
    assert "is not 'ServiceNonceMapping'" in verdicts(service="Service")["authorize-domain"]
