"""The demo world's answers have the public service's shapes, field by field.

Each world answer (public brand, py-evm) is compared with recorded public answers of the same
kind under ../shared/realdata (see its SOURCES.md):

- every path the world writes (keys, nesting; list items as ``[]``) must occur in some recorded
  answer of that kind, with a JSON form the recorded answers use there (object, array, bool,
  int, null, and for strings: address, bytes32, other hex, digit string, decimal string, empty,
  other text; a zero "0" / "0.000000" counts as both digit and decimal string, since the public
  service writes zero both ways);
- every path of the chosen reference answers must occur in the world's answer, except the
  omissions listed in OMITTED with the reason the world leaves each out.

Kinds: quotes (native bridge, ERC-20 deposit to the venue, deposit-address quote, venue
withdrawal), /chains, status v3, request records (GET /requests/v2), error bodies, webhooks.
/chains' Solana and Bitcoin entries are compared with the recorded (EVM) entries with their
addresses checked in their family first (no recorded answer holds an svm or bvm entry). Out of
scope, and so never references here: Bitcoin, Solana and Lighter quotes, the calling guide's
destination calls and the older /quote answers with ``breakdown``/``balances`` (an endpoint the
world does not serve). test_drift_is_caught proves a
drifted answer fails.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.conformance.realdata_support import form, load

NATIVE = "0x0000000000000000000000000000000000000000"

QUOTE_SCOPE = [  # EVM and venue quotes: the names and forms a world quote may use
    "quote/docs-gasless-execution-2026-07-31-1.json",
    "quote/docs-calling-integration-guide-2026-08-21-1.json",
    "quote/docs-quickstart-2026-07-21-1.json",
    "quote/docs-bridging-integration-guide-2026-08-21-1.json",
    "quote/docs-price-stabilization-2026-04-16-1.json",
    "quote/docs-price-stabilization-2026-04-16-4.json",
    "quote/docs-price-stabilization-2026-04-17-1.json",
    "quote/docs-price-stabilization-2026-08-21-1.json",
    "quote/docs-deposit-addresses-2026-07-31-1.json",
    "quote/docs-deposit-addresses-2026-07-31-2.json",
    "quote/docs-hyperliquid-support-2026-04-24-1.json",
    "quote/docs-hyperliquid-support-2026-06-03-1.json",
    "quote/relay-kit-executeBridge.json",
    "quote/relay-kit-swapWithApproval.json",
]
QUOTE_REFERENCES = {  # each world quote must carry every path of these
    "native-bridge": ["quote/docs-gasless-execution-2026-07-31-1.json"],
    "erc20-to-venue": ["quote/docs-price-stabilization-2026-04-16-4.json"],
    "deposit-address": [
        "quote/docs-deposit-addresses-2026-07-31-1.json",
        "quote/docs-deposit-addresses-2026-07-31-2.json",
    ],
    "venue-withdrawal": [
        "quote/docs-hyperliquid-support-2026-04-24-1.json",
        "quote/docs-hyperliquid-support-2026-06-03-1.json",
    ],
}
CHAINS_SCOPE = [
    "chains/docs-quickstart-2026-07-21-1.json",
    "chains/docs-supported-routes-2026-04-17-1.json",
]
STATUS_SCOPE = [
    "status/openapi-intents-status-v3.json",
    "status/docs-quickstart-2026-07-21-1.json",
    "status/docs-bridging-integration-guide-2026-08-21-1.json",
    "status/docs-deposit-addresses-2026-07-31-1.json",
]
REQUESTS_SCOPE = [
    "requests/docs-deposit-addresses-2026-07-31-1.json",
    "requests/docs-deposit-addresses-2026-07-31-2.json",
    "requests/docs-migrating-to-requests-v3-2026-08-19-1.json",
    "requests/openapi-requests-v2.json",
]
ERROR_SCOPE = [
    "error/docs-handling-errors-2026-08-13-1.json",
    "error/docs-handling-errors-2026-08-13-2.json",
    "error/docs-handling-errors-2026-08-13-3.json",
    "error/docs-handling-errors-2026-08-13-4.json",
    "error/docs-handling-errors-2026-02-18-1.json",
]
WEBHOOK_SCOPE = [
    "webhook/docs-webhooks-2026-07-27-1.json",
    "webhook/docs-webhooks-2026-05-27-1.json",
    "webhook/docs-webhooks-2026-05-26-1.json",
    "webhook/docs-webhooks-2026-04-23-1.json",
    "webhook/docs-webhooks-2026-04-23-2.json",
]

# Recorded paths the world leaves out, and why (prefix match).
OMITTED = {
    "$.protocol.v2.orderData.output.calls[]": "the world runs no destination calls",
    "$.chains[].baseChainId": "the world has no settlement chain (no chain 1) to name",
    "$.chains[].contracts.": "the world deploys Multicall3 only, none of the other public "
    "helper contracts (routers, receiver): deposits and approvals go to the depository",
    "$.requests[].data.fees.gateway": "the world routes through no gateway",
    "$.requests[].data.feesUsd.gateway": "the world routes through no gateway",
    "$.requests[].data.inTxs[].stateChanges": "the world's chains keep no traces to diff",
    "$.requests[].data.outTxs[].stateChanges": "the world's chains keep no traces to diff",
    "$.requests[].depositAddress.": "the checked request pays no deposit address (null)",
    "$.data.depositAddress.": "the checked request pays no deposit address (null)",
}

# Forms the world may use beyond the recorded ones, and why.
EXTRA_FORMS = {
    "$.data.depositAddress": {"null"},  # 6.1: null when the request has no deposit address
    "$.requests[].depositAddress": {"null"},
    "$.errorData": {"object"},  # fact 6 of the issue: errorData may be a string or an object
    "$.chains[].wsRpcUrl": {"empty"},  # the world's chains serve no websocket
    "$.chains[].httpRpcUrl": {"empty"},  # the venue (1337) is no EVM chain: no RPC
    # the world's venue has no block explorer (as the README says): the client links none
    "$.chains[].explorerUrl": {"empty"},
}

# Paths the contract (../shared/spec/service-api.md) requires that no recorded answer shows.
CONTRACT_EXTRAS = {
    # spec quote-v3.md section 8 (the changelog, seen): /chains names router 3.2's pair under
    # contracts["v3.2"]; its inner names by analogy with contracts.v3 (inferred)
    "$.chains[].contracts.v3.2",
    "$.chains[].contracts.v3.2.erc20Router",
    # 4.4: the venue deposit item's data carries check too
    "$.steps[].items[].data.check",
    "$.steps[].items[].data.check.endpoint",
    "$.steps[].items[].data.check.method",
    # 2.1 details members the contract lists
    "$.details.currencyGasTopup",
    "$.details.fallbackType",
    "$.details.fixedRateFee",
    "$.details.fixedRateFee.usd",
    "$.details.route.origin.includedSwapSources",
    "$.details.route.destination.includedSwapSources",
    "$.details.expandedPriceImpact.sponsored",
    "$.details.expandedPriceImpact.sponsored.usd",
    # 2.3: the history record's child linkage and protocol order id
    "$.requests[].parentRequestId",
    "$.requests[].data.orderId",
    "$.requests[].data.requestKind",
    # 4.3: status v3 carries details, failReason, refundFailReason (and the quote's time)
    "$.details",
    "$.failReason",
    "$.refundFailReason",
    "$.quoteCreatedAt",
    # errorData as an object names the field at fault
    "$.errorData.field",
    # /chains in the public OpenAPI schema (no recorded example shows them)
    "$.chains[].explorerPaths",
    # the recorded webhook examples have empty txHashes
    "$.data.txHashes[]",
}


def shape(value: Any, path: str = "$", out: dict[str, set[str]] | None = None) -> dict:
    """path -> the forms seen there; list items share the path ``<list>[]``."""
    out = {} if out is None else out
    out.setdefault(path, set()).add(form(value))
    if isinstance(value, dict):
        for key, item in value.items():
            shape(item, f"{path}.{key}", out)
    elif isinstance(value, list):
        for item in value:
            shape(item, f"{path}[]", out)
    return out


def merged(names: list[str], wrap: str | None = None) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name in names:
        answer = load(name)
        if wrap is not None and wrap not in answer:
            answer = {wrap: [answer]}
        for path, forms in shape(answer).items():
            out.setdefault(path, set()).update(forms)
    return out


def compatible(world_forms: set[str], recorded: set[str]) -> bool:
    allowed = set(recorded)
    if allowed & {"digits", "decimal"}:
        allowed.add("zero")
    if "zero" in allowed:
        allowed |= {"digits", "decimal"}
    if "address" in allowed:  # the venue's 16-byte token addresses are hex of another length
        allowed.add("hex")
    if "hex" in allowed:
        allowed.add("address")
    if "placeholder" in allowed:
        allowed |= {"address", "bytes32", "hex"}
    return world_forms <= allowed


def drift(world: Any, scope: dict[str, set[str]], references: list[dict[str, set[str]]]) -> list:
    """What in `world` is not in the recorded shape (empty when it conforms)."""
    got = shape(world)
    problems = []
    for path, forms in sorted(got.items()):
        if path not in scope:
            if path.endswith((".metadata.isNative", ".includedSwapSources")):
                continue  # 2.1 lists both (a currency's isNative, a route leg's sources)
            if path not in CONTRACT_EXTRAS and not any(
                path.startswith(extra + ".") for extra in CONTRACT_EXTRAS
            ):
                problems.append(f"{path}: no recorded answer has it ({sorted(forms)})")
        elif not compatible(forms, scope[path] | EXTRA_FORMS.get(path, set())):
            problems.append(f"{path}: {sorted(forms)} where recorded is {sorted(scope[path])}")
    for reference in references:
        for path in sorted(reference):
            if path not in got and not any(path.startswith(o) for o in OMITTED):
                problems.append(f"{path}: recorded, missing from the world")
    return problems


def assert_conforms(
    world: Any, scope: dict[str, set[str]], references: list[dict[str, set[str]]]
) -> None:
    problems = drift(world, scope, references)
    assert not problems, "the world drifted from the recorded shape:\n" + "\n".join(problems)


# ---- the world's answers --------------------------------------------------------------------


@pytest.fixture(scope="module")
def public_world(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm", brand="public") as world:
        yield world


@pytest.fixture(scope="module")
def service(public_world: Any) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=public_world.service_url,
        headers={"x-api-key": public_world.api_key},
        timeout=30,
    ) as client:
        yield client


@pytest.fixture(scope="module")
def chains(service: httpx.Client) -> dict[int, dict[str, Any]]:
    return {c["id"]: c for c in service.get("/chains").json()["chains"]}


def _usdc(chains: dict[int, dict[str, Any]], chain_id: int) -> str:
    return next(c["address"] for c in chains[chain_id]["erc20Currencies"] if c["symbol"] == "USDC")


@pytest.fixture(scope="module")
def quotes(
    public_world: Any, service: httpx.Client, chains: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    user = public_world.wallet_address
    base = {"user": user, "recipient": user, "tradeType": "EXACT_INPUT"}
    native = {"originCurrency": NATIVE, "destinationCurrency": NATIVE}
    bodies = {
        "native-bridge": {
            **base, **native, "originChainId": 8453, "destinationChainId": 999,
            "amount": str(10**16),
        },
        "erc20-to-venue": {
            **base, "originChainId": 8453, "destinationChainId": 1337,
            "originCurrency": _usdc(chains, 8453),
            "destinationCurrency": chains[1337]["currency"]["address"], "amount": "10000000",
        },
        "deposit-address": {
            **base, **native, "originChainId": 8453, "destinationChainId": 999,
            "amount": str(10**16), "useDepositAddress": True,
        },
        "venue-withdrawal": {
            **base, "originChainId": 1337, "destinationChainId": 8453,
            "originCurrency": chains[1337]["currency"]["address"],
            "destinationCurrency": _usdc(chains, 8453), "amount": "1000000000",
            "protocolVersion": "v2",
        },
    }  # fmt: skip
    out = {}
    for kind, body in bodies.items():
        answer = service.post("/quote/v2", json=body)
        assert answer.status_code == 200, (kind, answer.text)
        out[kind] = answer.json()
    return out


@pytest.mark.parametrize("kind", list(QUOTE_REFERENCES))
def test_quote_has_the_recorded_shape(quotes: dict[str, Any], kind: str) -> None:
    references = [shape(load(name)) for name in QUOTE_REFERENCES[kind]]
    assert_conforms(quotes[kind], merged(QUOTE_SCOPE), references)


def test_quote_values_in_the_public_forms(quotes: dict[str, Any]) -> None:
    """What a shape cannot see: chain names, the deposit address's place, no needless checks."""
    names = {"native-bridge": "base", "deposit-address": "base", "venue-withdrawal": "hyperliquid"}
    for kind, name in names.items():
        assert quotes[kind]["protocol"]["v2"]["paymentDetails"]["chainId"] == name
    steps = quotes["deposit-address"]["steps"]
    to = steps[0]["items"][0]["data"]["to"]
    assert steps[0]["depositAddress"] == to
    assert quotes["deposit-address"]["protocol"]["v2"]["paymentDetails"]["depository"] != to
    for quote in quotes.values():
        assert "feeSponsorship" not in quote
        for step in quote["steps"]:
            for item in step["items"]:
                assert ("check" in item) == (step["id"] == "deposit"), step["id"]
                if "from" in item["data"]:
                    assert item["data"]["gas"].isdigit()
    approve = quotes["erc20-to-venue"]["steps"][0]
    assert approve["id"] == "approve"


def _family_address(vm_type: str, value: str) -> bool:
    """A Solana key (base58, 32 bytes) or a Bitcoin address (bech32/bech32m, base58check)."""
    from solders.pubkey import Pubkey

    from crossdeck.sim.bitcoin import is_bitcoin_address

    if vm_type == "svm":
        try:
            return str(Pubkey.from_string(value)) == value
        except ValueError:
            return False
    # the BTC currency's address is the public service's placeholder, no payable address
    return is_bitcoin_address(value) or value == "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"


def _evm_forms(entry: Any, vm_type: str, path: str = "") -> Any:
    """A non-EVM chain entry with its family's addresses written as EVM ones, so its shape is
    compared with the recorded (EVM) entries; each address is checked in its family first.
    Recorded /chains answers hold no svm or bvm entry, so only the shape can be compared."""
    if isinstance(entry, dict):
        return {k: _evm_forms(v, vm_type, f"{path}.{k}") for k, v in entry.items()}
    if isinstance(entry, list):
        return [_evm_forms(v, vm_type, path) for v in entry]
    names_address = (
        path.endswith((".address", ".depository")) and not path.startswith(".explorerPaths")
    ) or path == ".solverAddresses"
    if isinstance(entry, str) and entry and names_address:
        assert _family_address(vm_type, entry), f"{path}: {entry!r} is no {vm_type} address"
        return "0x" + "00" * 20
    return entry


def test_chains_have_the_recorded_shape(chains: dict[int, dict[str, Any]]) -> None:
    scope = merged(CHAINS_SCOPE, wrap="chains")
    reference = merged(CHAINS_SCOPE[:1], wrap="chains")
    # Bitcoin has no tokens: its erc20Currencies is empty, so its items' paths cannot occur
    no_tokens = {k: v for k, v in reference.items() if "erc20Currencies[]" not in k}
    for chain in chains.values():
        if chain["vmType"] in ("svm", "bvm"):
            chain = _evm_forms(chain, chain["vmType"])
        references = [no_tokens if chain["vmType"] == "bvm" else reference]
        assert_conforms({"chains": [chain]}, scope, references)
        assert set(chain) == set(chains[8453]), "every entry has the same fields"
    assert {c["protocol"]["v2"]["chainId"] for c in chains.values()} == {
        "base",
        "hyperevm",
        "hyperliquid",
        "solana",
        "eclipse",
        "bitcoin",
    }


def test_chains_list_solana_and_bitcoin_as_the_public_service_does(
    chains: dict[int, dict[str, Any]],
) -> None:
    solana, bitcoin = chains[792703809], chains[8253038]
    assert solana["vmType"] == "svm" and bitcoin["vmType"] == "bvm"
    assert solana["currency"]["address"] == "11111111111111111111111111111111"
    assert solana["currency"]["symbol"] == "SOL" and solana["currency"]["decimals"] == 9
    [usdc] = [c for c in solana["erc20Currencies"] if c["symbol"] == "USDC"]
    assert usdc["address"] == "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"  # case kept
    assert usdc["decimals"] == 6
    assert solana["protocol"]["v2"]["depository"] == "99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2"
    assert solana["httpRpcUrl"].startswith("http://127.0.0.1:")
    assert bitcoin["currency"]["address"] == "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"
    assert bitcoin["currency"]["symbol"] == "BTC" and bitcoin["currency"]["decimals"] == 8
    # the world's Bitcoin node (an Esplora-style API, the world file's rpc["8253038"])
    assert bitcoin["httpRpcUrl"].startswith("http://127.0.0.1:")


@pytest.fixture(scope="module")
def finished(public_world: Any, service: httpx.Client, quotes: dict[str, Any]) -> str:
    """A native bridge the demo wallet really sends; its request id once the solver is done."""
    from eth_account import Account
    from web3 import Web3

    quote = service.post(
        "/quote/v2",
        json={
            "user": public_world.wallet_address,
            "recipient": public_world.wallet_address,
            "tradeType": "EXACT_INPUT",
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(10**16),
            "referrer": "conformance",
        },
    ).json()
    tx = dict(quote["steps"][0]["items"][0]["data"])
    w3 = Web3(Web3.HTTPProvider(public_world.rpc[8453]))
    signed = Account.sign_transaction(
        {
            "to": tx["to"],
            "data": tx["data"],
            "value": int(tx["value"]),
            "gas": int(tx["gas"]),
            "maxFeePerGas": int(tx["maxFeePerGas"]),
            "maxPriorityFeePerGas": int(tx["maxPriorityFeePerGas"]),
            "chainId": tx["chainId"],
            "nonce": w3.eth.get_transaction_count(public_world.wallet_address),
        },
        public_world.wallet_key,
    )
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    request_id = quote["steps"][0]["requestId"]
    for _ in range(60):  # the solver sees the deposit within a few polls; bounded
        public_world.wait_idle()
        status = service.get("/intents/status/v3", params={"requestId": request_id}).json()
        if status["status"] == "success":
            break
        time.sleep(0.5)
    return request_id


def test_status_v3_has_the_recorded_shape(service: httpx.Client, finished: str) -> None:
    status = service.get("/intents/status/v3", params={"requestId": finished}).json()
    assert status["status"] == "success"
    scope = merged(STATUS_SCOPE)
    assert_conforms(status, scope, [shape(load("status/openapi-intents-status-v3.json"))])


def test_request_record_has_the_recorded_shape(service: httpx.Client, finished: str) -> None:
    page = service.get("/requests/v2", params={"id": finished}).json()
    (record,) = page["requests"]
    scope = merged(REQUESTS_SCOPE)
    reference = shape({"requests": load(REQUESTS_SCOPE[0])["requests"][:1]})
    assert_conforms({"requests": [record]}, scope, [reference])
    assert re.fullmatch(r"\d+\.\d{6}", record["data"]["feesUsd"]["gas"])


def test_error_body_has_the_recorded_shape(service: httpx.Client) -> None:
    answer = service.post("/quote/v2", json={"user": "nobody"})
    assert answer.status_code == 400
    body = answer.json()
    assert isinstance(body["errorCode"], str) and isinstance(body["message"], str)
    scope = merged(ERROR_SCOPE)
    assert_conforms(body, scope, [shape(load("error/docs-handling-errors-2026-08-13-1.json"))])


def test_webhook_has_the_recorded_shape(public_world: Any, finished: str) -> None:
    payload = json.loads(json.dumps(public_world.status_payload(public_world.state.find(finished))))
    assert payload["data"]["referrer"] == "conformance"
    scope = merged(WEBHOOK_SCOPE)
    assert_conforms(payload, scope, [shape(load(WEBHOOK_SCOPE[0]))])


def test_drift_is_caught(quotes: dict[str, Any]) -> None:
    drifted = json.loads(json.dumps(quotes["native-bridge"]))
    drifted["steps"][0]["items"][0]["data"]["gas"] = 60000  # a number, not a digit string
    drifted["protocol"]["v2"]["paymentDetails"]["chainID"] = "base"  # a misspelt name
    del drifted["details"]["rate"]  # a recorded field lost
    references = [shape(load(n)) for n in QUOTE_REFERENCES["native-bridge"]]
    problems = drift(drifted, merged(QUOTE_SCOPE), references)
    assert any("data.gas" in p for p in problems)
    assert any("chainID" in p for p in problems)
    assert any("details.rate" in p for p in problems)
