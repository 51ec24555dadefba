"""`crossdeck bridge` on the service's current API against the world: with the world file's API
key every route form (deposit, permit, venue deposit, venue withdrawal, self-executed swap,
calls, Solana origin, deposit address) is quoted by POST /quote/v3 and reaches success; without
a key, on a world whose /quote/v2 is retired, the first quote is one clear error (exit 6) and
nothing is signed; on a world still serving v2 the sunset date shows once a day on stderr and
in every --json answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, NATIVE, PERPS_USDC, USDC, VENUE_UNIT, Cli, fund, new_address
from execute_support import usdc_address as usdc_on

from crossdeck.base.exitcodes import ExitCode
from crossdeck.models.addresses import SOLANA_CHAIN_ID


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    made = Cli(world, tmp_path, demo_svm=True)
    asyncio.run(
        fund(world, made.address, native={8453: ETH // 2}, usdc={8453: 100 * USDC}, venue_perps=0)
    )
    world.ledger.credit(made.address, PERPS_USDC, 100 * VENUE_UNIT)
    return made


def _route(cli: Cli, form: str) -> list[str]:
    base_usdc, hyper_usdc = usdc_on(cli.world, 8453), usdc_on(cli.world, 999)

    def move(origin: str, currency: str, to: str, to_currency: str, *rest: str) -> list[str]:
        return [
            "--origin-chain", origin, "--origin-currency", currency,
            "--destination-chain", to, "--destination-currency", to_currency, *rest,
        ]  # fmt: skip

    native = move("8453", NATIVE, "999", NATIVE, "--amount", str(ETH // 20))
    native += ["--recipient", new_address()]
    usdc = ["--amount", str(5 * USDC)]
    forms = {
        "deposit": native,
        "permit": move("8453", base_usdc, "999", hyper_usdc, *usdc, "--use-permit"),
        "venue-deposit": move("8453", base_usdc, "1337", "perps:USDC", *usdc),
        "venue-withdrawal": move(
            "1337", "perps:USDC", "8453", base_usdc, "--amount", str(25 * VENUE_UNIT)
        ),
        "self-executed-swap": move("8453", NATIVE, "8453", base_usdc, "--amount", str(ETH // 100)),
        "calls": [*native, "--call", f"{new_address()},1000,0x"],
        "solana-origin": move(str(SOLANA_CHAIN_ID), "USDC", "8453", "USDC", "--amount-human", "2"),
        "deposit-address": [*native, "--use-deposit-address"],
    }
    return forms[form]


FORMS = [
    "deposit",
    "permit",
    "venue-deposit",
    "venue-withdrawal",
    "self-executed-swap",
    "calls",
    "solana-origin",
    "deposit-address",
]


@pytest.mark.parametrize("form", FORMS)
def test_each_route_form_reaches_success_through_quote_v3(cli: Cli, form: str) -> None:
    result = cli.invoke("bridge", *_route(cli, form), "--yes", "--json")
    assert result.exit_code == 0, result.output
    events = _events(result.stdout)
    [quoted] = [e for e in events if e["event"] == "Quote"]
    quote = quoted["quote"]
    # asked of /quote/v3: its fees in the /requests/v3 layout are kept beside v2's reading
    assert set(quote["feesV3"]) >= {"swap", "execution", "platform", "app", "sponsored"}
    assert "deprecation" not in quoted  # v3 is not retiring
    request_ids = {s["requestId"] for s in quote["steps"]}
    assert len(request_ids) == 1 and None not in request_ids
    assert all(len(s["items"]) == 1 for s in quote["steps"])  # one step per action
    if form == "permit":
        assert any(
            e["event"] == "Posted" and e["endpoint"] == "/execute/permits/v2" for e in events
        )
    finished = [e for e in events if e["event"] == "Finished"]
    assert finished and finished[-1]["status"] == "success", result.output


# -- without a key ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def retired_world(start_world: Any) -> Iterator[Any]:
    with start_world("py-evm", quote_v2_retired=True) as running:
        yield running


def _keyless(cli: Cli) -> Cli:
    info = json.loads(cli.world_file.read_text())
    info.pop("api_key", None)
    cli.world_file.write_text(json.dumps(info))
    return cli


def _nonce(world: Any, address: str) -> int:
    from crossdeck.wallet.gateway import EvmGateway

    async def read() -> int:
        async with EvmGateway(world.rpc[8453], 8453) as gateway:
            return await gateway.nonce(address, "latest")

    return asyncio.run(read())


def test_a_retired_v2_without_a_key_is_one_error_and_nothing_is_signed(
    retired_world: Any, tmp_path: Path
) -> None:
    cli = _keyless(Cli(retired_world, tmp_path))
    asyncio.run(fund(retired_world, cli.address, native={8453: ETH // 4}))
    result = cli.invoke(
        "bridge", "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 20), "--yes",
    )  # fmt: skip
    assert result.exit_code == ExitCode.NO_SECRET, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "need an API key" in errors[0] and "crossdeck apikey set" in errors[0]
    assert "Traceback" not in result.output
    assert _nonce(retired_world, cli.address) == 0  # nothing signed, nothing sent
    assert cli.journal().runs() == []


def test_quote_without_a_key_on_a_retired_v2_exits_6(retired_world: Any, tmp_path: Path) -> None:
    cli = _keyless(Cli(retired_world, tmp_path))
    result = cli.invoke(
        "quote", "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 20), "--json",
    )  # fmt: skip
    assert result.exit_code == ExitCode.NO_SECRET, result.output
    assert "crossdeck apikey set" in result.output and result.stdout == ""


# -- on v2, the sunset shows -----------------------------------------------------------------


def test_a_v2_quote_shows_its_sunset_once_a_day_and_in_every_json(
    world: Any, tmp_path: Path
) -> None:
    cli = _keyless(Cli(world, tmp_path))
    args = [
        "quote", "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 20), "--user", cli.address, "--json",
    ]  # fmt: skip
    first = cli.invoke(*args)
    assert first.exit_code == 0, first.output
    answer = json.loads(first.stdout)
    assert answer["deprecation"]["sunsetAt"] == "2027-02-23T00:00:00Z"
    assert answer["deprecation"]["successor"] == "/quote/v3"
    assert "feesV3" not in answer and answer["steps"][0]["items"]
    notices = [line for line in first.stderr.splitlines() if line.startswith("notice:")]
    assert notices == [
        "notice: POST /quote/v2 is deprecated and retired on 2027-02-23; its successor is "
        "/quote/v3 (an API key is needed there: crossdeck apikey set)"
    ]
    again = cli.invoke(*args)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["deprecation"]["sunsetAt"] == "2027-02-23T00:00:00Z"
    assert "notice:" not in again.stderr  # once a day on stderr


# -- an access token instead of the key ------------------------------------------------------


def _token(world: Any) -> str:
    import httpx

    answer = httpx.post(
        world.service_url + "/access-tokens",
        json={},
        headers={"x-api-key": world.api_key},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["token"])


def _quote_args(cli: Cli) -> list[str]:
    return [
        "quote", "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 20), "--user", cli.address, "--json",
    ]  # fmt: skip


def test_an_access_token_file_or_variable_quotes_on_v3(
    world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the flag sets a setting for this process; the test's own environment is put back after
    monkeypatch.setenv("CROSSDECK_SERVICE__ACCESS_TOKEN_FILE", "")
    cli = _keyless(Cli(world, tmp_path))
    token_file = tmp_path / "token"
    token_file.write_text(_token(world) + "\n")
    by_file = cli.invoke("--access-token-file", str(token_file), *_quote_args(cli))
    assert by_file.exit_code == 0, by_file.output
    assert "feesV3" in json.loads(by_file.stdout)  # asked of /quote/v3, with no key at all
    by_variable = cli.invoke(*_quote_args(cli), CROSSDECK_ACCESS_TOKEN=_token(world))
    assert by_variable.exit_code == 0, by_variable.output
    assert "feesV3" in json.loads(by_variable.stdout)


def test_a_refused_token_is_exit_6_naming_the_fix(
    world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROSSDECK_SERVICE__ACCESS_TOKEN_FILE", "")
    cli = Cli(world, tmp_path)  # the world's key is there too: the token is sent instead
    token_file = tmp_path / "token"
    token_file.write_text("cdt_not-a-token\n")
    result = cli.invoke("--access-token-file", str(token_file), *_quote_args(cli))
    assert result.exit_code == ExitCode.NO_SECRET, result.output
    assert "access token was refused" in result.output
    assert "CROSSDECK_ACCESS_TOKEN" in result.output and "apikey set" in result.output
    assert "cdt_not-a-token" not in result.output  # a secret never shows
    missing = cli.invoke("--access-token-file", str(tmp_path / "none"), *_quote_args(cli))
    assert missing.exit_code == ExitCode.NO_SECRET and "cannot be read" in missing.output
