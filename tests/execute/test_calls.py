"""Calls (`txs`): `crossdeck bridge --call TO,VALUE,DATA` / `--txs-file` against the world,
which executes them on the destination chain after the fill (paid out of the output) and fails
and refunds a request whose call reverts; the `order-calls` guard holds the order's
`output.calls` to exactly the calls asked for, so a call not asked for is refused before
anything is signed; bad --call values and hostile txs files are refused (exit 3) naming the
option.

The destination contract is deployed by the test (contracts/CallTarget.vy): it records its
caller, the value and a note, and refuses on demand.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_utils.crypto import keccak
from execute_support import ETH, NATIVE, Cli, fund, new_address, new_key
from tampering_proxy import TamperingProxy

from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute.guards.calls import decode_call

CONTRACT = Path(__file__).parent / "contracts" / "CallTarget.vy"
REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata"
DESTINATION = 999
CALL_VALUE = ETH // 100  # 0.01 ETH of the 0.1 ETH bridged


def _selector(signature: str) -> str:
    return "0x" + keccak(text=signature)[:4].hex()


def poke_data(note: int) -> str:
    return _selector("poke(uint256)") + note.to_bytes(32, "big").hex()


def _rpc(url: str, method: str, *params: Any) -> Any:
    answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    body = answer.json()
    assert "error" not in body, body
    return body["result"]


def _wait_receipt(url: str, tx_hash: str) -> dict[str, Any]:
    import time

    for _ in range(600):
        receipt = _rpc(url, "eth_getTransactionReceipt", tx_hash)
        if receipt:
            return dict(receipt)
        time.sleep(0.05)
    raise AssertionError(f"no receipt for {tx_hash}")


def deploy_target(world: Any) -> str:
    """CallTarget on the destination chain, from a fresh account; its address."""
    import vyper

    bytecode = vyper.compile_code(CONTRACT.read_text(), output_formats=["bytecode"])["bytecode"]
    key = new_key()
    deployer = Account.from_key(key)
    asyncio.run(fund(world, deployer.address, native={DESTINATION: ETH}))
    url = world.rpc[DESTINATION]
    base_fee = int(_rpc(url, "eth_getBlockByNumber", "latest", False)["baseFeePerGas"], 16)
    signed = Account.sign_transaction(
        {
            "chainId": DESTINATION,
            "nonce": 0,
            "data": bytecode,
            "gas": 1_000_000,
            "maxFeePerGas": 2 * base_fee + 10**9,
            "maxPriorityFeePerGas": 10**9,
            "value": 0,
        },
        key,
    )
    tx_hash = _rpc(url, "eth_sendRawTransaction", "0x" + signed.raw_transaction.hex())
    receipt = _wait_receipt(url, tx_hash)
    assert int(receipt["status"], 16) == 1
    return str(receipt["contractAddress"])


def read(world: Any, target: str, getter: str) -> int:
    call = {"to": target, "data": _selector(getter)}
    result = _rpc(world.rpc[DESTINATION], "eth_call", call, "latest")
    return int(result, 16)


def balance(world: Any, address: str) -> int:
    return int(_rpc(world.rpc[DESTINATION], "eth_getBalance", address, "latest"), 16)


def bridge(recipient: str, *extra: str) -> list[str]:
    return [
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", str(DESTINATION), "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", recipient, *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def py_target(world: Any) -> str:
    return deploy_target(world)


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    made = Cli(world, tmp_path)
    asyncio.run(fund(world, made.address, native={8453: ETH}))
    return made


def _finished(stdout: str) -> dict[str, Any]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    [last] = [e for e in events if e["event"] == "Finished"]
    return last


# -- the world runs the calls ----------------------------------------------------------------


def test_a_bridge_with_a_call_makes_the_contract_see_it(any_world: Any, tmp_path: Path) -> None:
    running = any_world
    target = deploy_target(running)
    cli = Cli(running, tmp_path)
    asyncio.run(fund(running, cli.address, native={8453: ETH}))
    recipient = new_address()
    result = cli.invoke(
        *bridge(recipient, "--call", f"{target},{CALL_VALUE},{poke_data(42)}", "--yes", "--json")
    )
    assert result.exit_code == 0, result.output
    assert _finished(result.stdout)["status"] == "success"
    [checked] = [
        json.loads(line)
        for line in result.stdout.splitlines()
        if json.loads(line)["event"] == "GuardsChecked"
    ]
    [calls] = [r for r in checked["results"] if r["name"] == "order-calls"]
    assert calls["ok"] and "exactly the 1 call(s) you asked for" in calls["message"]
    # the contract saw the call, its value and its argument
    assert read(running, target, "calls()") == 1
    assert read(running, target, "last_value()") == CALL_VALUE
    assert read(running, target, "last_note()") == 42
    assert balance(running, target) == CALL_VALUE
    # the value came out of the output: the recipient got the rest
    record = running.state.get(_finished(result.stdout)["request_id"])
    assert balance(running, recipient) == record.amount_out - CALL_VALUE > 0


def test_a_reverting_call_fails_the_request_and_refunds_it(
    cli: Cli, world: Any, py_target: str
) -> None:
    before = read(world, py_target, "calls()")
    recipient = new_address()
    result = cli.invoke(
        *bridge(recipient, "--call", f"{py_target},0,{_selector('refuse()')}", "--yes", "--json")
    )
    assert result.exit_code == ExitCode.REFUNDED, result.output
    assert _finished(result.stdout)["status"] == "refund"
    assert read(world, py_target, "calls()") == before
    assert balance(world, recipient) == 0  # nothing paid out


def test_a_txs_file_and_calls_in_order(cli: Cli, world: Any, py_target: str) -> None:
    path = cli.home / "txs.json"
    path.write_text(json.dumps([{"to": py_target, "value": "0", "data": poke_data(7)}]))
    before = read(world, py_target, "calls()")
    result = cli.invoke(
        *bridge(
            new_address(), "--txs-file", str(path),
            "--call", f"{py_target},{CALL_VALUE},{poke_data(8)}", "--yes", "--json",
        )
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert read(world, py_target, "calls()") == before + 2
    assert read(world, py_target, "last_note()") == 8  # the --call ran after the file's call
    assert read(world, py_target, "last_value()") == CALL_VALUE


# -- the guard -------------------------------------------------------------------------------


@pytest.fixture
def proxy(world: Any) -> Iterator[TamperingProxy]:
    with TamperingProxy(world.service_url) as running:
        yield running


def _nonce(world: Any, address: str) -> int:
    return int(_rpc(world.rpc[8453], "eth_getTransactionCount", address, "latest"), 16)


def _encoded(to: str, value: int, data: str) -> str:
    raw = bytes.fromhex(data[2:])
    padded = raw + b"\0" * (-len(raw) % 32)
    words = [bytes(12) + bytes.fromhex(to[2:])]
    words += [n.to_bytes(32, "big") for n in (0x60, value, 0x20, len(raw))]
    return "0x" + (b"".join(words) + padded).hex()


def _add_call(to: str) -> Any:
    def tamper(quote: dict[str, Any]) -> None:
        output = quote["protocol"]["v2"]["orderData"]["output"]
        output["calls"].append(_encoded(to, ETH // 20, "0x"))

    return tamper


def _change_value(quote: dict[str, Any]) -> None:
    output = quote["protocol"]["v2"]["orderData"]["output"]
    call = decode_call(output["calls"][0])
    assert call is not None
    output["calls"][0] = _encoded(call.to, call.value * 2, call.data)


@pytest.mark.parametrize(
    ("asked", "tamper", "words"),
    [
        (False, "add", "call(s) you did not ask for"),
        (True, "add", "the order makes 2 call(s), you asked for 1"),
        (True, "value", f"with {2 * CALL_VALUE} wei"),
        (True, "garbled", "cannot be read"),
    ],
)
def test_a_call_not_asked_for_is_refused_before_signing(
    cli: Cli,
    world: Any,
    proxy: TamperingProxy,
    py_target: str,
    asked: bool,
    tamper: str,
    words: str,
) -> None:
    thief = new_address()
    if tamper == "add":
        proxy.tamper = _add_call(thief)
    elif tamper == "value":
        proxy.tamper = _change_value
    else:
        proxy.tamper = lambda q: q["protocol"]["v2"]["orderData"]["output"]["calls"].append("0x12")
    extra = ["--call", f"{py_target},{CALL_VALUE},{poke_data(1)}"] if asked else []
    result = cli.invoke(
        *bridge(new_address(), *extra, "--yes", "--json"), CROSSDECK_SERVICE__URL=proxy.url
    )
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    assert proxy.tampered == 1
    assert "order-calls" in result.output and words in result.output
    assert _nonce(world, cli.address) == 0  # nothing signed


def test_the_recorded_public_call_decodes() -> None:
    quote = json.loads(
        (REALDATA / "quote" / "docs-calling-integration-guide-2026-08-21-1.json").read_text()
    )
    [encoded] = quote["protocol"]["v2"]["orderData"]["output"]["calls"]
    call = decode_call(encoded)
    assert call is not None
    assert call.to == "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"  # WETH
    assert call.value == 10**17 and call.data == "0xd0e30db0"  # deposit(), 0.1 ETH
    assert _encoded(call.to, call.value, call.data) == encoded
    for broken in (encoded[:-2], encoded + "00" * 32, "0x" + "11" * 12 + encoded[26:], "0xzz"):
        assert decode_call(broken) is None


# -- bad input -------------------------------------------------------------------------------

GOOD = "0x" + "ab" * 20


def _write(path: Path, content: bytes | str) -> Path:
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (f"{GOOD},1", "is not TO,VALUE,DATA"),
        (f"{GOOD},1,0x,extra", "is not TO,VALUE,DATA"),
        ("0x12,0,0x", "--call 1: to "),
        ("0xAbababababababababababababababababababab,0,0x", "checksum"),
        (f"{GOOD},-1,0x", "--call 1: value"),
        (f"{GOOD},1.5,0x", "--call 1: value"),
        (f"{GOOD},{2**256},0x", "--call 1: value of 78 digits is larger than a uint256"),
        (f"{GOOD},{'9' * 83},0x", "--call 1: value of 83 digits is larger than a uint256"),
        (f"{GOOD},٣,0x", "--call 1: value"),
        (f"{GOOD},0,0xabc", "--call 1: data"),
        (f"{GOOD},0,deadbeef", "--call 1: data"),
    ],
)
def test_a_malformed_call_is_refused_naming_it(
    cli: Cli, proxy: TamperingProxy, value: str, words: str
) -> None:
    result = cli.invoke(
        "quote", *bridge(new_address(), "--call", value)[1:], CROSSDECK_SERVICE__URL=proxy.url
    )
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert words in result.stderr and "Traceback" not in result.output
    assert proxy.quote_bodies == []


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (json.dumps({"to": GOOD}), "holds a JSON object, not an array"),
        ("7", "holds a JSON int, not an array"),
        ("[{", "is not valid JSON"),
        (b"\xff\xfe[]", "is not UTF-8"),
        ("[" * 5000 + "]" * 5000, "nests deeper"),
        (json.dumps(["0x12"]), "[0] is not an object"),
        (json.dumps([{"to": GOOD, "gas": 1}]), "fields other than to, value, data"),
        (json.dumps([{"to": GOOD, "value": 1.5}]), "[0]: value '1.5' is not wei"),
        (json.dumps([{"to": GOOD, "data": "0x1"}]), "[0]: data"),
        (json.dumps([{"to": GOOD}] * 17), "at most 16"),
        (" " * (1024 * 1024 + 1), "larger than 1024 KiB"),
    ],
)
def test_a_hostile_txs_file_is_refused_naming_the_option(
    cli: Cli, proxy: TamperingProxy, content: str | bytes, words: str
) -> None:
    path = _write(cli.home / "txs.json", content)
    result = cli.invoke(
        "quote",
        *bridge(new_address(), "--txs-file", str(path))[1:],
        CROSSDECK_SERVICE__URL=proxy.url,
    )
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert "--txs-file" in result.stderr and words in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert proxy.quote_bodies == []


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_a_txs_file_that_is_not_a_file(cli: Cli, kind: str) -> None:
    path = cli.home / "nothing.json"
    if kind == "directory":
        path.mkdir()
    result = cli.invoke("quote", *bridge(new_address(), "--txs-file", str(path))[1:])
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert "--txs-file" in result.stderr
    assert ("does not exist" if kind == "missing" else "is a directory") in result.stderr


def test_calls_and_extra_txs_clash(cli: Cli) -> None:
    result = cli.invoke(
        "quote", *bridge(new_address(), "--call", f"{GOOD},0,0x", "--extra", "txs=[]")[1:]
    )
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "already sets" in result.stderr


def test_the_quote_shows_each_call_in_words(cli: Cli, py_target: str) -> None:
    result = cli.invoke(
        "quote", *bridge(new_address(), "--call", f"{py_target},{CALL_VALUE},{poke_data(3)}")[1:]
    )
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert f"1. to {py_target.lower()}" in flat, result.stdout
    # in the destination's native currency (chain 999's is HYPE), out of the output
    assert f"value 0.01 HYPE ({CALL_VALUE}) out of what arrives" in flat
    assert f"data {poke_data(3)}" in flat
    assert "order-calls: ok: the order makes exactly the 1 call(s) you asked for" in flat


def test_the_recorded_public_calls_are_described() -> None:
    from crossdeck.execute.describe import quote_sections, text_lines
    from crossdeck.models import Quote

    quote = Quote.from_wire(
        json.loads(
            (REALDATA / "quote" / "docs-calling-integration-guide-2026-08-21-1.json").read_text()
        )
    )
    flat = " ".join(" ".join(text_lines(quote_sections(quote))).split())
    assert "1. to 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2" in flat
    assert f"({10**17}) out of what arrives" in flat and "data 0xd0e30db0" in flat


def _public_calling(to_router: bool = True) -> tuple[Any, Any, Any]:
    """The recorded public calling quote, the request it answers (WETH deposit() with 0.1 ETH
    on Base), and a /chains naming Base's router as the recorded answer names Optimism's."""
    from crossdeck.models import ChainsResponse, Quote, QuoteRequest

    raw = json.loads(
        (REALDATA / "quote" / "docs-calling-integration-guide-2026-08-21-1.json").read_text()
    )
    quote = Quote.from_wire(raw)
    user = raw["details"]["sender"]
    request = QuoteRequest.build(
        user=user, originChainId=1, destinationChainId=8453, originCurrency=NATIVE,
        destinationCurrency=NATIVE, amount=str(10**17), tradeType="EXPECTED_OUTPUT",
        txs=[{"to": "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "value": str(10**17),
              "data": "0xd0e30db0"}],
    )  # fmt: skip
    recorded = json.loads((REALDATA / "chains" / "docs-quickstart-2026-07-21-1.json").read_text())
    [optimism] = recorded["chains"]
    contracts = (
        optimism["contracts"]
        if to_router
        else {"multicall3": optimism["contracts"]["v3"]["erc20Router"]}
    )
    chains = ChainsResponse.from_wire(
        {"chains": [{"id": 8453, "name": "base", "vmType": "evm", "contracts": contracts}]}
    )
    return quote, request, chains


def test_the_public_calling_quote_pays_the_router_that_makes_the_calls() -> None:
    from crossdeck.execute.guards.base import PaymentChain
    from crossdeck.execute.guards.request import request_guards

    quote, request, chains = _public_calling()
    results = {
        r.name: r for r in request_guards(quote, request, None, PaymentChain("ethereum", 1), chains)
    }
    assert results["order-calls"].ok, results["order-calls"]
    recipient = results["request-recipient"]
    assert recipient.ok, recipient
    assert "through the service's v3.erc20Router" in recipient.message
    # without /chains naming it (or naming it only as Multicall3), the router is a stranger
    for chains_given in (None, _public_calling(to_router=False)[2]):
        refused = {
            r.name: r
            for r in request_guards(quote, request, None, PaymentChain("ethereum", 1), chains_given)
        }["request-recipient"]
        assert not refused.ok and "0xb92fe925dc43a0ecde6c8b1a2709c170ec4fff4f" in refused.message
    # and without calls asked for, paying the router is refused too
    plain = request.replace(txs=None)
    refused = {
        r.name: r for r in request_guards(quote, plain, None, PaymentChain("ethereum", 1), chains)
    }
    assert not refused["request-recipient"].ok and not refused["order-calls"].ok


def test_a_same_chain_swap_with_a_call_goes_through_an_order(cli: Cli, py_target: str) -> None:
    """The router's self-executed swap makes no calls: with one asked for, the world quotes the
    swap as an order (through the depository) that carries it, never dropping it."""
    usdc = cli.world.chains[DESTINATION].usdc
    result = cli.invoke(
        "quote",
        "--origin-chain", str(DESTINATION), "--origin-currency", NATIVE,
        "--destination-chain", str(DESTINATION), "--destination-currency", usdc,
        "--amount", str(ETH // 10), "--call", f"{py_target},0,{poke_data(4)}", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    quote = json.loads(result.stdout)
    [call] = quote["protocol"]["v2"]["orderData"]["output"]["calls"]
    decoded = decode_call(call)
    assert decoded is not None and decoded.to == py_target.lower() and decoded.value == 0
    assert [s["id"] for s in quote["steps"]] == ["deposit"]


@pytest.mark.parametrize(
    "contracts",
    [
        {"relayReceiver": "ROUTER"},  # forwards what it gets to the solver
        {"multicaller": "ROUTER"},  # runs calls for anyone
        {"onlyOwnerMulticaller": "ROUTER"},
        {"approvalProxy": "ROUTER"},
        {"v3": {"erc20Router": "ROUTER"}, "multicall3": "ROUTER"},  # a router also Multicall3
    ],
    ids=["relayReceiver", "multicaller", "onlyOwnerMulticaller", "approvalProxy", "also-mc3"],
)
def test_only_a_router_of_the_destination_may_receive_a_calling_order(
    contracts: dict[str, Any],
) -> None:
    """The output may go to a router /chains names on the destination and nothing else there:
    not a receiver or multicaller (each would hand it to someone else), nor a router named on
    another chain only."""
    from crossdeck.execute.guards.base import PaymentChain
    from crossdeck.execute.guards.request import request_guards
    from crossdeck.models import ChainsResponse

    quote, request, _ = _public_calling()
    router = "0xb92fe925dc43a0ecde6c8b1a2709c170ec4fff4f"
    named = json.loads(json.dumps(contracts).replace("ROUTER", router))
    chains = ChainsResponse.from_wire(
        {"chains": [{"id": 8453, "name": "base", "vmType": "evm", "contracts": named}]}
    )
    elsewhere = ChainsResponse.from_wire(
        {
            "chains": [
                {"id": 8453, "name": "base", "vmType": "evm", "contracts": {}},
                {"id": 1, "name": "ethereum", "vmType": "evm",
                 "contracts": {"v3": {"erc20Router": router}}},
            ]
        }
    )  # fmt: skip
    paid = PaymentChain("ethereum", 1)
    for given in (chains, elsewhere):
        refused = {r.name: r for r in request_guards(quote, request, None, paid, given)}[
            "request-recipient"
        ]
        assert not refused.ok and router in refused.message
