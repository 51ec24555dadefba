"""`crossdeck quote` and `crossdeck status` driven end to end against a real HTTP server."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.models.display import local_time
from helpers.keys import DEV_KEYS

from . import fixtures as fx
from .server import Reply, ScriptedServer

DEMO_KEY = DEV_KEYS[0]


@pytest.fixture
def world(server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_SERVICE__URL"):
        monkeypatch.delenv(name, raising=False)
    # the scripted answers here are /quote/v2's (tests/api/test_quote_v3.py has v3's)
    monkeypatch.setenv("CROSSDECK_SERVICE__QUOTE_API", "v2")
    # the venue is unreachable here (port 9) and the guards' reads of it fail either way: tried
    # once, not through the backoff of its retries (most of this file's 67 s)
    monkeypatch.setenv("CROSSDECK_VENUE__MAX_RETRIES", "0")
    return write_world(tmp_path / "world.json", server.url)


def write_world(path: Path, service_url: str) -> Path:
    path.write_text(
        json.dumps(
            {
                "service_url": service_url,
                "venue_url": "http://127.0.0.1:9",
                "rpc": {"8453": "http://127.0.0.1:9", "999": "http://127.0.0.1:9"},
                "wallet": {"address": fx.USER, "private_key": DEMO_KEY},
                "api_key": "world-api-key",
                "solver": fx.SOLVER,
            }
        )
    )
    return path


async def run(world: Path, *args: str) -> Result:
    # The CLI calls asyncio.run itself, so it runs in a thread while this loop serves.
    runner = CliRunner()
    return await asyncio.to_thread(
        runner.invoke, main, ["--world", str(world), *args], catch_exceptions=False
    )


def shown(result: Result) -> None:
    """`quote` showed its quote. The scripted answers here are not the world's (no /chains
    naming their depository, no order data), so its verdict may refuse them, exit 7, as
    `bridge` would; the body sent is what these tests read."""
    assert result.exit_code in (0, ExitCode.GUARD_REFUSED), result.output
    assert result.stdout.startswith("Verdict"), result.output
    assert "Quote for request 0x" in result.stdout


WITHDRAW = [
    "quote",
    "--origin-chain",
    "1337",
    "--origin-currency",
    fx.PERPS_USDC,
    "--destination-chain",
    "8453",
    "--destination-currency",
    fx.BASE_USDC,
]


async def test_quote_builds_the_body_from_options(server: ScriptedServer, world: Path) -> None:
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote()))
    result = await run(
        world,
        *WITHDRAW,
        "--amount",
        "1000000000",
        "--recipient",
        fx.SOLVER,
        "--subsidize-fees",
        "--sponsor-component",
        "execution",
        "--sponsor-component",
        "app",
        "--max-subsidization",
        "0.5",  # dollars, as the app's form takes them
        "--slippage-bps",
        "50",
        "--referrer",
        "me",
        "--no-refund-on-origin",
        "--extra",
        "useFallbacks=true",
        "--extra",
        'appFees=[{"recipient": "' + fx.SOLVER + '", "fee": "10"}]',
    )
    shown(result)
    (seen,) = server.requests_to("POST", "/quote/v2")
    assert seen.json() == {
        "user": fx.USER,  # the world's wallet by default
        "originChainId": 1337,
        "destinationChainId": 8453,
        "originCurrency": fx.PERPS_USDC,
        "destinationCurrency": fx.BASE_USDC,
        "amount": "1000000000",
        "tradeType": "EXACT_INPUT",
        "recipient": fx.SOLVER,
        "protocolVersion": "v2",  # automatic for a venue withdrawal
        "subsidizeFees": True,
        "sponsoredFeeComponents": ["execution", "app"],
        "maxSubsidizationAmount": "500000",  # the wire's millionths of a dollar
        "slippageTolerance": "50",
        "referrer": "me",
        "refundOnOrigin": False,
        "useFallbacks": True,
        "appFees": [{"recipient": fx.SOLVER, "fee": "10"}],
    }
    assert seen.headers["x-api-key"] == "world-api-key"
    text = result.stdout
    assert "world-api-key" not in result.output
    assert f"Quote for request {fx.REQUEST_ID}" in text
    # every amount in its currency's units next to the integer the wire carries, USD to cents
    flat = " ".join(text.split())
    assert "you pay 10 USDC (1000000000) on chain 1337, $10.00" in flat
    assert "you get 9.98 USDC (9980000) on chain 8453, $9.98" in flat
    assert f"recipient {fx.USER}" in flat  # what the quote's details say
    assert f"refund to {fx.SOLVER}" in flat  # rule 3: refundTo else recipient
    assert "relayer total 0.02 USDC (20000) on chain 8453, $0.02" in flat
    assert "components execution, service, cap 1 USDC (1000000)" in flat
    # the venue transfer is named as such, not as the step's id
    assert "1. authorize signature" in flat and "2. deposit venue transfer" in flat
    assert "EIP-712 NonceMapping in domain ServiceNonceMapping (chain 1)" in flat
    # the POST body as JSON, not a Python dict
    assert 'POST /authorize {"type": "nonce-mapping"' in flat and "'type'" not in flat
    assert f"send 10 USDC:{fx.SPOT_USDC_ID} from perps to spot of {fx.SOLVER}" in flat
    assert f"submit it to the venue's /exchange with nonce {fx.NONCE}" in flat
    assert "(VenueSignTransaction)" in flat
    assert f"progress GET /intents/status?requestId={fx.REQUEST_ID}" in flat
    assert "venue-nonce: ok" in text


async def test_quote_json_prints_the_quote_as_received(server: ScriptedServer, world: Path) -> None:
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote()))
    result = await run(world, "--json", *WITHDRAW, "--amount", "1000000000")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == fx.venue_withdrawal_quote()


async def test_quote_warns_when_the_nonces_differ(server: ScriptedServer, world: Path) -> None:
    quote = fx.venue_withdrawal_quote()
    quote["steps"][1]["items"][0]["data"]["action"]["parameters"]["nonce"] = fx.NONCE + 1
    server.on("POST", "/quote/v2", Reply(200, quote))
    result = await run(world, *WITHDRAW, "--amount", "1000000000")
    # the venue-nonce guard bridge runs, not a copy of it: bridge would refuse this quote, and
    # quote says so first and exits as bridge would
    assert result.exit_code == ExitCode.GUARD_REFUSED
    assert "REFUSED" in result.stdout.splitlines()[0]
    assert "venue-nonce: FAILED" in result.stdout


async def test_amount_human_uses_the_currency_decimals(server: ScriptedServer, world: Path) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains()))
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote()))
    # EXACT_INPUT from the venue: perps USDC, 8 decimals per /chains
    result = await run(world, *WITHDRAW, "--amount-human", "10.5")
    shown(result)
    # EXACT_OUTPUT: the destination currency (Base USDC, 6 decimals)
    result = await run(world, *WITHDRAW, "--amount-human", "2.25", "--trade-type", "EXACT_OUTPUT")
    shown(result)
    # native on an EVM chain: 18 decimals without asking /chains
    native = [
        "quote",
        "--origin-chain",
        "8453",
        "--origin-currency",
        fx.ZERO,
        "--destination-chain",
        "1337",
        "--destination-currency",
        fx.PERPS_USDC,
    ]
    result = await run(world, *native, "--amount-human", "0.001")
    shown(result)
    amounts = [s.json()["amount"] for s in server.requests_to("POST", "/quote/v2")]
    assert amounts == ["1050000000", "2250000", "1000000000000000"]
    # one /chains a command: the decimals and the guards `quote` runs share it (the native
    # amount needs no decimals, its guards still ask once)
    assert server.count("GET", "/chains") == 3


async def test_amount_human_refuses_unknown_currencies_and_excess_digits(
    server: ScriptedServer, world: Path
) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains()))
    unknown = [*WITHDRAW[:-1], "0x" + "12" * 20]
    result = await run(world, *unknown, "--amount-human", "1", "--trade-type", "EXACT_OUTPUT")
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "decimals" in result.stderr and "--amount" in result.stderr
    result = await run(world, *WITHDRAW, "--amount-human", "1.123456789")
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "8" in result.stderr
    assert server.count("POST", "/quote/v2") == 0


async def test_amount_human_checks_the_other_fields_before_asking_for_decimals(
    server: ScriptedServer, world: Path
) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains()))
    result = await run(world, *WITHDRAW, "--amount-human", "1", "--recipient", "0x12")
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert "recipient" in result.stderr
    assert server.count("GET", "/chains") == 0
    assert server.count("POST", "/quote/v2") == 0


async def test_chains_lists_chains_and_currencies(server: ScriptedServer, world: Path) -> None:
    server.on("GET", "/chains", Reply(200, fx.chains()))
    result = await run(world, "chains")
    assert result.exit_code == 0, result.output
    assert "1337" in result.stdout and fx.PERPS_USDC in result.stdout
    assert "perps" in result.stdout  # the venue's currencies are labelled
    result = await run(world, "chains", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    venue = printed["chains"][1]
    labels = [
        [currency.pop(k) for k in ("venueKind", "venueDex", "venueLabel")]
        for currency in [venue["currency"], *venue["erc20Currencies"]]
    ]
    assert labels == [["perps", "", "perps"], ["spot", "spot", "spot"]]
    assert printed == fx.chains()  # otherwise the service's answer, whole


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ([], "exactly one of --amount"),
        (["--amount", "1", "--amount-human", "1"], "exactly one of --amount"),
        (["--amount", "1.5"], "amount"),
        (["--amount", "1", "--recipient", "0x12"], "recipient"),
        (["--amount", "1", "--extra", "ttl"], "KEY=JSON"),
        (["--amount", "1", "--extra", "ttl=soon"], "not JSON"),
        (["--amount", "1", "--extra", 'referrer="x"', "--referrer", "y"], "already sets"),
        (["--amount", "1", "--topup-gas-amount", "5"], "topupGas"),
        (["--amount", "0"], "--amount: 0 moves nothing"),
        (["--amount-human", "0.00"], "--amount-human: 0.00 moves nothing"),
        (["--amount", "1", "--topup-gas", "--topup-gas-amount", "2000000x"], "dollar amount"),
        (["--amount", "1", "--subsidize-fees", "--max-subsidization", "-1"], "dollar amount"),
    ],
)
async def test_bad_quote_input_is_refused_before_sending(
    server: ScriptedServer, world: Path, args: list[str], needle: str
) -> None:
    result = await run(world, *WITHDRAW, *args)
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert needle in result.stderr
    assert server.count("POST", "/quote/v2") == 0


async def test_dollar_options_send_the_wire_integer(server: ScriptedServer, world: Path) -> None:
    """--max-subsidization and --topup-gas-amount take dollars, as the app's form does."""
    server.on("POST", "/quote/v2", Reply(200, fx.venue_withdrawal_quote()))
    result = await run(
        world,
        *WITHDRAW,
        "--amount",
        "1",
        "--subsidize-fees",
        "--max-subsidization",
        "0.01",
        "--topup-gas",
        "--topup-gas-amount",
        "$2",
    )
    shown(result)
    (seen,) = server.requests_to("POST", "/quote/v2")
    assert seen.json()["maxSubsidizationAmount"] == "10000"
    assert seen.json()["topupGasAmount"] == "2000000"


async def test_service_errors_exit_with_the_service_code(
    server: ScriptedServer, world: Path
) -> None:
    server.on(
        "POST",
        "/quote/v2",
        Reply(400, {"message": "Amount too low", "errorCode": "AMOUNT_TOO_LOW"}),
    )
    result = await run(world, *WITHDRAW, "--amount", "1")
    assert result.exit_code == ExitCode.SERVICE_ERROR
    assert "AMOUNT_TOO_LOW" in result.stderr and "Amount too low" in result.stderr


async def test_status_words_and_json(server: ScriptedServer, world: Path) -> None:
    server.on("GET", "/intents/status", Reply(200, fx.status_v1("pending")))
    server.on("GET", "/intents/status/v3", Reply(200, fx.status_v3("refund")))
    v1 = await run(world, "status", fx.REQUEST_ID)
    v3 = await run(world, "status", fx.REQUEST_ID, "--v3")
    v3_json = await run(world, "status", fx.REQUEST_ID, "--v3", "--json")
    global_json = await run(world, "--json", "status", fx.REQUEST_ID)
    assert v1.exit_code == v3.exit_code == v3_json.exit_code == global_json.exit_code == 0
    assert "status    pending" in v1.stdout and "(final)" not in v1.stdout
    assert "status    refund (final)" in v3.stdout and "fail      -" in v3.stdout
    # times in local ISO 8601, the Unix milliseconds beside them
    updated = fx.status_v3("refund")["updatedAt"]
    assert f"updated   {local_time(updated)} ({updated})" in v3.stdout
    assert re.search(r"updated   \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", v3.stdout)
    assert json.loads(v3_json.stdout) == fx.status_v3("refund")
    assert json.loads(global_json.stdout) == fx.status_v1("pending")
    seen = server.requests_to("GET", "/intents/status")
    assert all(s.query == {"requestId": fx.REQUEST_ID} for s in seen)


async def test_status_of_a_bad_id_and_an_unreachable_service(
    server: ScriptedServer, world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = await run(world, "status", "nope")
    assert bad.exit_code == ExitCode.INVALID_INPUT
    assert server.seen == []
    monkeypatch.setenv("CROSSDECK_SERVICE__MAX_RETRIES", "0")  # settings reach the client
    dead = write_world(tmp_path / "dead.json", f"http://127.0.0.1:{closed_port()}")
    result = await run(dead, "status", fx.REQUEST_ID)
    assert result.exit_code == ExitCode.NETWORK
    assert "no answer from the service" in result.stderr
    assert "after 1 attempt(s)" in result.stderr


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
