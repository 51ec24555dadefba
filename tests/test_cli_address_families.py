"""The CLI takes each address option in its chain's family (EVM, Solana, Bitcoin), against the
demo world on 127.0.0.1: an address of the wrong family, or with a checksum that does not hold,
is an input error (exit 3) naming the option, refused before any quote is asked for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from crossdeck.api.client import ServiceClient
from crossdeck.cli import main

INVALID_INPUT = 3
EVM = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SOLANA_WALLET = "27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL"
SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
BC1 = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
BTC = "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


@pytest.fixture
def home(world_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "config.toml").write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("CROSSDECK_DATA_DIR", str(tmp_path / "data"))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_SERVICE__URL"):
        monkeypatch.delenv(name, raising=False)

    async def no_quote(*args: object, **kwargs: object) -> None:
        raise AssertionError("a quote was asked for")

    monkeypatch.setattr(ServiceClient, "quote", no_quote)
    yield world_file


def quote(home: Path, destination: tuple[int, str], *extra: str) -> Result:
    args = [
        "--world", str(home), "quote",
        "--origin-chain", "8453", "--origin-currency", BASE_USDC,
        "--destination-chain", str(destination[0]), "--destination-currency", destination[1],
        "--amount", "1000000", *extra,
    ]  # fmt: skip
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize(
    ("destination", "recipient", "said"),
    [
        ((792703809, SOLANA_USDC), EVM, "takes a Solana address"),
        ((8253038, BTC), SOLANA_WALLET, "takes a Bitcoin address"),
        ((8453, BASE_USDC), BC1, "takes an EVM address"),
        ((1337, "0x" + "0" * 32), SOLANA_WALLET, "takes an EVM address"),
        ((8253038, BTC), BC1[:-1] + "5", "checksum is wrong"),
        ((792703809, SOLANA_USDC), SOLANA_WALLET[:-3], "a key is 32"),
        ((792703809, SOLANA_USDC), SOLANA_WALLET.replace("q", "0"), "not base58"),
    ],
)
def test_a_recipient_of_the_wrong_family_or_checksum_is_exit_3_naming_the_option(
    home: Path, destination: tuple[int, str], recipient: str, said: str
) -> None:
    result = quote(home, destination, "--recipient", recipient)
    assert result.exit_code == INVALID_INPUT, result.output
    assert "--recipient" in result.output
    assert said in result.output
    assert "Traceback" not in result.output


def test_a_lower_cased_solana_mint_is_exit_3_naming_the_currency_option(home: Path) -> None:
    result = quote(home, (792703809, SOLANA_USDC.lower()), "--recipient", SOLANA_WALLET)
    assert result.exit_code == INVALID_INPUT, result.output
    assert "--destination-currency" in result.output


def test_a_solana_user_for_an_evm_origin_is_exit_3_naming_user(home: Path) -> None:
    result = quote(home, (792703809, SOLANA_USDC), "--user", SOLANA_WALLET)
    assert result.exit_code == INVALID_INPUT, result.output
    assert "--user" in result.output and "takes an EVM address" in result.output


def test_history_filters_take_any_family_and_check_the_checksum(home: Path) -> None:
    bad = CliRunner().invoke(main, ["--world", str(home), "requests", "--user", BC1[:-1] + "5"])
    assert bad.exit_code == INVALID_INPUT, bad.output
    assert "--user" in bad.output and "checksum" in bad.output
