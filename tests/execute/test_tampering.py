"""The real `crossdeck bridge --yes --json` against the demo world through a service in the
middle that alters each quote (tampering_proxy.py): every tampering is refused before any
signature (exit 7, GUARD_REFUSED, naming the guard), and the wallet's nonce and balances are as
before; the same flows through the same proxy, untampered, succeed (exit 0).

The flows: an EVM deposit of native ETH, an ERC-20 (USDC) deposit with its approve, a native
bridge through a deposit address, and a withdrawal from the venue.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, NATIVE, PERPS_USDC, USDC, VENUE_UNIT, Cli, fund, new_address
from execute_support import usdc_address as usdc_on
from tampering_proxy import TamperingProxy
from test_execute_guards_world import (
    DEAD,
    OTHER,
    _inflate,
    _miscased_deposit_to,
    _miscased_depository,
    _miscased_destination,
    _no_protocol_to_dead,
    _other_depository,
    _other_venue_action,
    _permit_step,
    _recipient,
    _refund_to,
    _retag,
    _second_deposit,
    deposit_params,
    item,
)

from crossdeck.base.exitcodes import ExitCode

Tamper = Callable[[dict[str, Any]], None]


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


# the world's own service URL, for tamperings that name it as "another host" (the CLI talks
# to the proxy), and the world (for its token addresses): set by the proxy fixture
WORLD_SERVICE: list[str] = [""]
WORLD: list[Any] = [None]


# every tampering against an answer of each quote API: /quote/v2's steps-with-items and
# /quote/v3's flat steps (the proxy alters a v3 answer seen as a v2 one, tests/execute/v3_view.py)
QUOTE_APIS = ["v2", "v3"]


@pytest.fixture(params=QUOTE_APIS)
def proxy(world: Any, request: pytest.FixtureRequest) -> Iterator[TamperingProxy]:
    WORLD_SERVICE[0] = world.service_url
    WORLD[0] = world
    with TamperingProxy(world.service_url, api=request.param) as running:
        yield running


def _native(cli: Cli) -> list[str]:
    return [
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(),
    ]  # fmt: skip


def _usdc(cli: Cli) -> list[str]:
    return [
        "--origin-chain", "8453", "--origin-currency", usdc_on(cli.world, 8453),
        "--destination-chain", "999", "--destination-currency", usdc_on(cli.world, 999),
        "--amount", str(10 * USDC), "--recipient", new_address(),
    ]  # fmt: skip


def _deposit_address(cli: Cli) -> list[str]:
    return [*_native(cli), "--use-deposit-address"]


def _withdrawal(cli: Cli) -> list[str]:
    return [
        "--origin-chain", "1337", "--origin-currency", PERPS_USDC,
        "--destination-chain", "8453", "--destination-currency", usdc_on(cli.world, 8453),
        "--amount", str(25 * VENUE_UNIT), "--recipient", new_address(),
    ]  # fmt: skip


FLOWS: dict[str, Callable[[Cli], list[str]]] = {
    "native": _native,
    "usdc": _usdc,
    "deposit-address": _deposit_address,
    "withdrawal": _withdrawal,
}


def _tip(gwei: int) -> Tamper:
    """A tip of `gwei` (max fee raised with it, as a consistent quote would)."""

    def tamper(wire: dict[str, Any]) -> None:
        deposit = item(wire, "deposit")
        deposit["maxPriorityFeePerGas"] = str(gwei * 10**9)
        deposit["maxFeePerGas"] = str((gwei + 1) * 10**9)

    return tamper


def _unlimited_approve(wire: dict[str, Any]) -> None:
    approve = item(wire, "approve")
    approve["data"] = approve["data"][:74] + "f" * 64


def _to_other_deposit_address(wire: dict[str, Any]) -> None:
    """The transfer sent elsewhere than the step's deposit address. (Both replaced together
    cannot be told from an honest quote: a deposit address is made for each quote, and nothing
    but the service names it; that is a service lying consistently, which no guard can see.)"""
    item(wire, "deposit")["to"] = OTHER


def _post_to(endpoint: Callable[[Any], str]) -> Tamper:
    """The authorize step's post endpoint replaced by `endpoint(world)`."""

    def tamper(wire: dict[str, Any]) -> None:
        item(wire, "authorize")["post"]["endpoint"] = endpoint(wire)

    return tamper


def _check_at(endpoint: str) -> Tamper:
    """The deposit item's check endpoint replaced (the status it is read from)."""

    def tamper(wire: dict[str, Any]) -> None:
        deposit = next(s for s in wire["steps"] if s["id"] == "deposit")
        deposit["items"][0]["check"] = {"endpoint": endpoint, "method": "GET"}

    return tamper


def _no_request_id(wire: dict[str, Any]) -> None:
    for step in wire["steps"]:
        step.pop("requestId", None)


def _no_steps(wire: dict[str, Any]) -> None:
    wire["steps"] = []


def _unknown_item(wire: dict[str, Any]) -> None:
    wire["steps"][-1]["items"][0]["data"] = {"program": "ix", "accounts": []}


def _message_step(message: str, endpoint: str = "/login") -> Tamper:
    """An extra signature step asking for an EIP-191 personal message, posted back."""

    def tamper(wire: dict[str, Any]) -> None:
        wire["steps"].insert(
            0,
            {
                "id": "login",
                "action": "Log in",
                "description": "Sign in to continue",
                "kind": "signature",
                "requestId": wire["steps"][0]["requestId"],
                "items": [
                    {
                        "status": "incomplete",
                        "data": {
                            "sign": {"signatureKind": "eip191", "message": message},
                            "post": {"endpoint": endpoint, "method": "POST", "body": {}},
                        },
                    }
                ],
            },
        )

    return tamper


def _authorize_as_message(wire: dict[str, Any]) -> None:
    """The NonceMapping replaced by a message of the order id (a 'claim'-like raw hash)."""
    item(wire, "authorize")["sign"] = {
        "signatureKind": "eip191",
        "message": wire["protocol"]["v2"]["orderId"],
    }


def _order(**changes: Any) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        wire["protocol"]["v2"]["orderData"].update(changes)

    return tamper


def _no_order(wire: dict[str, Any]) -> None:
    del wire["protocol"]["v2"]["orderData"]


def _gas(step_id: str, gas: int) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        item(wire, step_id)["gas"] = str(gas)

    return tamper


SPOT_USDC_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"


def _send_asset_types(wire: dict[str, Any]) -> list[dict[str, str]]:
    deposit = item(wire, "deposit")
    return deposit["eip712Types"][deposit["eip712PrimaryType"]]


def _rename_field(old: str, new: str, *, in_types: bool) -> Tamper:
    """An action field renamed (and, `in_types`, in the eip712Types too)."""

    def tamper(wire: dict[str, Any]) -> None:
        params = deposit_params(wire)
        params[new] = params.pop(old)
        if in_types:
            for field in _send_asset_types(wire):
                if field["name"] == old:
                    field["name"] = new

    return tamper


def _extra_field(wire: dict[str, Any]) -> None:
    deposit_params(wire)["memo"] = "hello"


def _extra_signed_field(wire: dict[str, Any]) -> None:
    deposit_params(wire)["vaultAddress"] = OTHER
    _send_asset_types(wire).append({"name": "vaultAddress", "type": "string"})


def _domain(**changes: Any) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        item(wire, "authorize")["sign"]["domain"].update(changes)

    return tamper


def _word(value: int | str) -> str:
    if isinstance(value, str):
        return value.removeprefix("0x").lower().rjust(64, "0")
    return f"{value:064x}"


def _pays_usdc_instead(wire: dict[str, Any]) -> None:
    """An ETH request answered with a USDC deposit of the same number of units: the deposit
    (depositErc20 of USDC, no value), paymentDetails and currencyIn all agree on USDC; only the
    request says the user asked to send ETH."""
    from crossdeck.execute.guards.calldata import SELECTORS

    usdc = usdc_on(WORLD[0], 8453)
    deposit = item(wire, "deposit")
    units = int(deposit["value"])
    data = deposit["data"]
    depositor, order_id = data[10:74], data[74:138]
    deposit["data"] = SELECTORS["depositErc20"] + depositor + _word(usdc) + _word(units) + order_id
    deposit["value"] = "0"
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = usdc
    wire["details"]["currencyIn"]["currency"]["address"] = usdc


def _pays_eth_instead(wire: dict[str, Any]) -> None:
    """A USDC request answered with an ETH deposit of the same units (the approve dropped),
    paymentDetails agreeing."""
    from crossdeck.execute.guards.calldata import SELECTORS

    wire["steps"] = [s for s in wire["steps"] if s["id"] != "approve"]
    deposit = item(wire, "deposit")
    units = int(deposit["data"][138:202], 16)
    depositor, order_id = deposit["data"][10:74], deposit["data"][202:266]
    deposit["data"] = SELECTORS["depositNative"] + depositor + order_id
    deposit["value"] = str(units)
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = NATIVE


def _sends_spot_usdc_instead(wire: dict[str, Any]) -> None:
    """A withdrawal of perps USDC answered with the same amount of spot USDC (another book's
    currency on the venue): paymentDetails, currencyIn and the sendAsset's book all agree."""
    spot = SPOT_USDC_ID
    deposit_params(wire).update(sourceDex="spot")
    wire["protocol"]["v2"]["paymentDetails"]["currency"] = spot
    wire["details"]["currencyIn"]["currency"]["address"] = spot


# (the figure itself is 57,860 while the depository holds no USDC yet, 40,760 after that)
USDC_DEPOSIT_GAS_WORDS = (
    "the gas limit is 20,000,000 where chain 8453's node, running it after the steps before it "
    "(eth_simulateV1), finds it uses "
)

# (flow, tamper, guard that must refuse it, words the refusal must contain)
CASES: list[tuple[str, Tamper, str, str]] = [
    # the signature posted to another host: here the world's own service, which would take it
    (
        "withdrawal",
        _post_to(lambda w: WORLD_SERVICE[0] + "/authorize"),
        "endpoint-host",
        "is an absolute URL (scheme 'http')",
    ),
    ("withdrawal", _post_to(lambda w: "//evil.example/authorize"), "endpoint-host", "names a host"),
    (
        "withdrawal",
        _post_to(lambda w: "/authorize?signature=0x" + "00" * 65),
        "endpoint-host",
        "sets the query parameter 'signature'",
    ),
    ("withdrawal", _post_to(lambda w: "/quote/../authorize"), "endpoint-host", "'..' or '.'"),
    ("withdrawal", _post_to(lambda w: "/x/%2e%2E/authorize"), "endpoint-host", "'..' or '.'"),
    ("withdrawal", _post_to(lambda w: "https:/authorize"), "endpoint-host", "absolute URL"),
    ("withdrawal", _post_to(lambda w: "/authorize#x"), "endpoint-host", "carries a fragment"),
    (
        "native",
        _check_at("http://evil.example/intents/status?requestId=0x" + "ab" * 32),
        "endpoint-host",
        "check endpoint",
    ),
    (
        "native",
        _check_at("/intents/status/v3?requestId=0x" + "ab" * 32),
        "endpoint-host",
        "not this step's request",
    ),
    # the venue's words: the token's name, the books, the action's fields, the domain's name
    (
        "withdrawal",
        lambda w: deposit_params(w).update(token=f"USDH:{SPOT_USDC_ID}"),
        "send-asset-token",
        f"sendAsset token 'USDH:{SPOT_USDC_ID}' is not 'USDC:{SPOT_USDC_ID}'",
    ),
    (
        "withdrawal",
        lambda w: deposit_params(w).update(token=SPOT_USDC_ID),
        "send-asset-token",
        "the venue's NAME:tokenId (spotMeta)",
    ),
    (
        "withdrawal",
        lambda w: deposit_params(w).update(token=f":{SPOT_USDC_ID}"),
        "send-asset-token",
        f"sendAsset token ':{SPOT_USDC_ID}'",
    ),
    (
        "withdrawal",
        lambda w: deposit_params(w).update(destinationDex="spot"),
        "send-asset-dex",
        "destinationDex 'spot' is not ''",
    ),
    (
        "withdrawal",
        lambda w: deposit_params(w).update(sourceDex="spot"),
        "send-asset-dex",
        "sourceDex 'spot' is not ''",
    ),
    (
        "withdrawal",
        _rename_field("destinationDex", "destDex", in_types=False),
        "send-asset-shape",
        "the action carries field(s) ['destDex'] its eip712Types do not sign",
    ),
    (
        "withdrawal",
        _rename_field("destinationDex", "destDex", in_types=True),
        "send-asset-shape",
        "not the venue's SendAsset fields",
    ),
    ("withdrawal", _extra_field, "send-asset-shape", "['memo']"),
    ("withdrawal", _extra_signed_field, "send-asset-shape", "vaultAddress string"),
    (
        "withdrawal",
        _domain(name="RelayNonceMapping"),
        "authorize-domain",
        "'RelayNonceMapping' is not 'ServiceNonceMapping'",
    ),
    ("withdrawal", _domain(version="1"), "authorize-domain", "domain version '1' is not '2'"),
    # a personal message, in any flow, wherever the step is
    ("native", _message_step("Log in to crossdeck.example"), "message-signature", "'Log in"),
    ("withdrawal", _message_step("I agree"), "message-signature", "(EIP-191) 'I agree'"),
    ("usdc", _message_step("0x" + "ab" * 32, "/execute/permits"), "message-signature", "0xab"),
    ("withdrawal", _authorize_as_message, "message-signature", "personal message"),
    # an order of a version crossdeck cannot read, or none at all
    ("native", _order(version="v2"), "order-version", "orderData.version 'v2'"),
    ("withdrawal", _order(version="v9"), "order-version", "orderData.version 'v9'"),
    ("native", _order(version=None), "order-version", "orderData.version None"),
    ("usdc", _no_order, "order-version", "but no orderData"),
    # a gas limit far above what the node expects the transaction to use
    ("native", _gas("deposit", 20_000_000), "gas-limit", "the gas limit is 20,000,000 where"),
    ("deposit-address", _gas("deposit", 1_000_000), "gas-limit", "(eth_estimateGas)"),
    ("usdc", _gas("approve", 5_000_000), "gas-limit", "the gas limit is 5,000,000 where"),
    # the deposit spends its approve's allowance, so it cannot be estimated before the approve
    # is mined: it is held to its gas when run after the approve, before the approve is signed
    ("usdc", _gas("deposit", 20_000_000), "gas-limit", USDC_DEPOSIT_GAS_WORDS),
    # a quote that cannot be executed as given is a guard refusal (exit 7), not a failure
    ("native", _no_request_id, "request-id", "no step carries a requestId"),
    ("withdrawal", _no_request_id, "request-id", "no step carries a requestId"),
    ("native", _no_steps, "steps", "the quote has no steps"),
    ("native", _unknown_item, "step-kind", "item data of an unknown shape"),
    ("native", _no_protocol_to_dead, "tx-destination", f"goes to {DEAD}"),
    ("native", _inflate, "request-amount", "but you asked to send exactly 0.1 ETH"),
    # the same number of units of another currency is not what was asked (one payment rule)
    ("native", _pays_usdc_instead, "payment-request", "not the ETH you asked to send"),
    ("usdc", _pays_eth_instead, "payment-request", "not the USDC you asked to send"),
    ("withdrawal", _sends_spot_usdc_instead, "payment-request", "you asked to send"),
    ("native", _recipient, "request-recipient", f"the quote pays out to {OTHER}"),
    ("native", _refund_to, "request-refund", f"a refund would go to {OTHER}"),
    ("native", _other_depository, "depository", f"the quote pays depository {OTHER}"),
    ("native", _permit_step, "typed-data", "refusing to sign an EIP-2612 Permit"),
    ("native", _second_deposit, "steps", "2 payments"),
    ("native", _retag, "order-id", "does not carry orderId"),
    ("native", _miscased_deposit_to, "address-checksum", "wrong EIP-55 checksum"),
    # the 100,000 gwei tip costs more than the wallet holds: refused with the quote
    ("native", _tip(100_000), "funds", "ETH of gas (4.600045 ETH) on chain 8453"),
    # one the wallet can pay is still far above the chain's fee market
    ("native", _tip(100), "fee-market", "the limit is 3x"),
    ("usdc", _unlimited_approve, "tx-payment", f"approves {2**256 - 1} of"),
    ("usdc", _miscased_depository, "address-checksum", "paymentDetails.depository: 0x"),
    ("deposit-address", _to_other_deposit_address, "tx-destination", f"goes to {OTHER}"),
    ("withdrawal", _other_venue_action, "typed-data", "'VenueTransaction:UsdSend'"),
    (
        "withdrawal",
        lambda w: deposit_params(w).update(destinationDex="xyz"),
        "send-asset-dex",
        "destinationDex 'xyz'",
    ),
    (
        "withdrawal",
        lambda w: item(w, "authorize")["sign"]["domain"].update(name="OtherThing"),
        "authorize-domain",
        "domain name 'OtherThing'",
    ),
    ("withdrawal", _miscased_destination, "address-checksum", "wrong EIP-55 checksum"),
]


def _fund(cli: Cli) -> None:
    # a quarter ETH: the flows send 0.1 ETH plus gas; the world's demo wallet, which funds
    # every test of this worker's world, holds 100 ETH in all
    asyncio.run(
        fund(
            cli.world, cli.address, native={8453: ETH // 4}, usdc={8453: 100 * USDC}, venue_perps=0
        )
    )
    cli.world.ledger.credit(cli.address, PERPS_USDC, 100 * VENUE_UNIT)


def _wallet(cli: Cli) -> tuple[int, int, int, int]:
    """(nonce on 8453, wei, USDC units on 8453, venue perps USDC): what a signature would move."""
    from crossdeck.wallet.gateway import EvmGateway

    async def read() -> tuple[int, int, int]:
        async with EvmGateway(cli.world.rpc[8453], 8453) as gateway:
            return (
                await gateway.nonce(cli.address, "latest"),
                await gateway.balance(cli.address),
                await gateway.erc20_balance(usdc_on(cli.world, 8453), cli.address),
            )

    nonce, wei, usdc = asyncio.run(read())
    return nonce, wei, usdc, cli.world.ledger.balance(cli.address, PERPS_USDC)


def _said(failed: dict[str, Any]) -> str:
    """The refusal's words: its error (which shortens a long reason) and each failure whole."""
    return "\n".join([failed["error"], *(json.dumps(f) for f in failed["failures"])])


def _bridge(cli: Cli, proxy: TamperingProxy, flow: str) -> Any:
    result = cli.invoke(
        "bridge",
        *FLOWS[flow](cli),
        "--yes",
        "--json",
        CROSSDECK_SERVICE__URL=proxy.url,
        CROSSDECK_SERVICE__QUOTE_API=proxy.api,
    )
    assert set(proxy.quote_paths) == {f"/quote/{proxy.api}"}  # asked of the API under test
    return result


@pytest.mark.parametrize(
    ("flow", "tamper", "guard", "words"),
    CASES,
    ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)],
)
def test_a_tampered_quote_is_refused_before_any_signature(
    cli: Cli, proxy: TamperingProxy, flow: str, tamper: Tamper, guard: str, words: str
) -> None:
    _fund(cli)
    before = _wallet(cli)
    proxy.tamper = tamper
    result = _bridge(cli, proxy, flow)

    assert proxy.tampered == 1
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    failed = events[-1]
    assert failed["event"] == "Failed", failed
    assert guard in {f["name"] for f in failed["failures"]}, failed["error"]
    assert words in _said(failed)
    assert not any(e["event"] in ("Signed", "TxSent", "Posted", "VenueSubmitted") for e in events)
    assert _wallet(cli) == before


@pytest.mark.parametrize("flow", sorted(FLOWS))
def test_the_same_flows_untampered_through_the_proxy_succeed(
    cli: Cli, proxy: TamperingProxy, flow: str
) -> None:
    _fund(cli)
    result = _bridge(cli, proxy, flow)

    assert result.exit_code == 0, result.output
    assert proxy.tampered == 0
    events = [json.loads(line) for line in result.stdout.splitlines()]
    [checked] = [e for e in events if e["event"] == "GuardsChecked"]
    assert checked["results"] and all(r["ok"] for r in checked["results"])
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success"


@pytest.fixture
def cli_anvil(world_anvil: Any, tmp_path: Path) -> Cli:
    return Cli(world_anvil, tmp_path)


@pytest.fixture
def proxy_anvil(world_anvil: Any) -> Iterator[TamperingProxy]:
    with TamperingProxy(world_anvil.service_url) as running:
        yield running


@pytest.mark.anvil
# honest again after a deposit: the depository then holds USDC, and the deposit uses less
@pytest.mark.parametrize(
    "tampered", [False, True, False], ids=["honest", "deposit-gas-20M", "honest-again"]
)
def test_on_anvil_the_usdc_deposit_gas_is_held_before_its_approve_is_signed(
    cli_anvil: Cli, proxy_anvil: TamperingProxy, tampered: bool
) -> None:
    """On the other backend too, the deposit after its approve is held to what it uses then:
    the world's honest 70,000 passes, the tampered 20,000,000 is refused before the approve."""
    cli, proxy = cli_anvil, proxy_anvil
    _fund(cli)
    before = _wallet(cli)
    proxy.tamper = _gas("deposit", 20_000_000) if tampered else None
    result = _bridge(cli, proxy, "usdc")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    if not tampered:
        assert result.exit_code == 0, result.output
        [checked] = [e for e in events if e["event"] == "GuardsChecked"]
        [held] = [
            r for r in checked["results"] if r["name"] == "gas-limit" and "simul" in r["message"]
        ]
        assert held["ok"] and "gas limit 70,000, within 2x of the " in held["message"], held
        return
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    failed = events[-1]
    assert "gas-limit" in {f["name"] for f in failed["failures"]}, failed["error"]
    assert USDC_DEPOSIT_GAS_WORDS in _said(failed)
    assert not any(e["event"] in ("Signed", "TxSent", "Posted", "VenueSubmitted") for e in events)
    assert _wallet(cli) == before
