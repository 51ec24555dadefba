"""No input ends in a traceback: every hostile file, option, argument and prompt answer found in
the field (issue 16) and more, run through the real command line, each asserting its exit code
(README "Exit codes"), its message, that no traceback shows, and where it matters that nothing
was sent.

Most cases run in this process (click's runner); those that need a real closed standard input
or real non-UTF-8 bytes in argv run `crossdeck` as a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from crossdeck.cli import main

CROSSDECK = str(Path(sys.executable).parent / "crossdeck")
NATIVE = "0x" + "00" * 20
USER = "0x" + "11" * 20
GOOD_ID = "0x" + "ab" * 32
INVALID_INPUT, ABORTED, USAGE = 3, 11, 2


@dataclass
class Home:
    """An isolated config, data dir and keyring file; the mainnet profile aims at a closed
    port, so a case that wrongly sends anything fails with exit 5, never reaches a network."""

    root: Path

    @property
    def env(self) -> dict[str, str | None]:
        env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("CROSSDECK_")}
        env.update(
            CROSSDECK_CONFIG=str(self.root / "config.toml"),
            CROSSDECK_DATA_DIR=str(self.root / "data"),
            CROSSDECK_KEYRING_FILE=str(self.root / "keyring.cfg"),
            CROSSDECK_KEYRING_PASSWORD="hostile-test",
            CROSSDECK_PROFILE="mainnet",
            CROSSDECK_SERVICE__URL="http://127.0.0.1:9",
            CROSSDECK_SERVICE__MAX_RETRIES="0",
            CROSSDECK_VENUE__URL="http://127.0.0.1:9",
            PYTHON_KEYRING_BACKEND="crossdeck.wallet.keystore.EncryptedFileKeyring",
        )
        return env

    def invoke(self, *args: str, input: str | bytes | None = None, **env: str) -> Result:
        runner = CliRunner(env={**self.env, **env})
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)

    def run(
        self, *args: str | bytes, close_stdin: bool = False, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """`crossdeck` in a child process; `close_stdin`: its fd 0 is closed, as with `<&-`."""
        environment = {k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")}
        environment.update({k: v for k, v in self.env.items() if v is not None})
        environment.update(env)
        return subprocess.run(
            [CROSSDECK, *args],
            env=environment,
            stdin=subprocess.DEVNULL,
            preexec_fn=(lambda: os.close(0)) if close_stdin else None,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=120,
            check=False,
        )


@pytest.fixture
def home(tmp_path: Path) -> Home:
    (tmp_path / "config.toml").write_text("")
    return Home(tmp_path)


def output_of(result: Result | subprocess.CompletedProcess[str]) -> str:
    if isinstance(result, Result):
        return result.output
    return result.stdout + result.stderr


def refused(result: Any, code: int, *fragments: str) -> None:
    text = output_of(result)
    exit_code = result.exit_code if isinstance(result, Result) else result.returncode
    assert exit_code == code, text
    assert "Traceback" not in text
    for fragment in fragments:
        assert fragment in text, text


QUOTE = [
    "--origin-chain", "8453", "--origin-currency", NATIVE,
    "--destination-chain", "999", "--destination-currency", NATIVE,
    "--amount", "1", "--user", USER,
]  # fmt: skip


def quote_with(**changes: str) -> list[str]:
    args = list(QUOTE)
    for option, value in changes.items():
        flag = "--" + option.replace("_", "-")
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    return args


# -- option values: one shared parser --------------------------------------------------------

NON_ASCII_DIGITS = ["١٢", "１２", "१२", "12\u0663", "\u00b2"]  # Arabic-Indic, fullwidth, ...


@pytest.mark.parametrize("digits", NON_ASCII_DIGITS)
@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("quote", "origin_chain"),
        ("quote", "destination_chain"),
        ("quote", "permit_expiry"),
        ("quote", "slippage_bps"),
        ("bridge", "deposit_amount"),
    ],
)
def test_non_ascii_digits_are_refused(home: Home, digits: str, command: str, option: str) -> None:
    result = home.invoke(command, *quote_with(**{option: digits}))
    refused(result, INVALID_INPUT, "is not a whole number (digits 0-9 only)")


@pytest.mark.parametrize("digits", NON_ASCII_DIGITS[:2])
def test_non_ascii_digits_in_other_commands(home: Home, digits: str) -> None:
    refused(home.invoke("requests", "--pages", digits), INVALID_INPUT, "--pages")
    refused(home.invoke("watch", "--webhooks", digits, GOOD_ID), INVALID_INPUT, "--webhooks")
    refused(home.invoke("watch", "--rate", digits, GOOD_ID), INVALID_INPUT, "--rate")
    refused(home.invoke("watch", "--timeout", digits, GOOD_ID), INVALID_INPUT, "--timeout")


@pytest.mark.parametrize("digits", NON_ASCII_DIGITS[:2])
@pytest.mark.parametrize(
    "args",
    [
        ["webhook", "serve", "--port"],
        ["webhook", "serve", "--count"],
        ["webhook", "serve", "--max-body-bytes"],
        ["webhook", "sign", "--timestamp"],
    ],
)
def test_non_ascii_digits_in_webhook_options(home: Home, digits: str, args: list[str]) -> None:
    refused(home.invoke(*args, digits), INVALID_INPUT, args[-1])


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
@pytest.mark.parametrize("command", ["serve", "verify"])
def test_webhook_tolerance_must_be_finite_seconds(home: Home, value: str, command: str) -> None:
    refused(home.invoke("webhook", command, "--tolerance", value), INVALID_INPUT, "--tolerance")


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "infinity", "1e999", "9" * 400])
@pytest.mark.parametrize("command", ["bridge", "resume", "watch"])
def test_non_finite_durations_are_refused(home: Home, value: str, command: str) -> None:
    extra = QUOTE if command == "bridge" else [GOOD_ID]
    result = home.invoke(command, *extra, "--timeout", value)
    refused(result, INVALID_INPUT, "Invalid value for '--timeout'")


@pytest.mark.parametrize("value", ["-1", "0", "-0.5"])
def test_a_tracking_timeout_must_be_above_zero(home: Home, value: str) -> None:
    refused(home.invoke("bridge", *QUOTE, "--timeout", value), INVALID_INPUT, "--timeout")


def test_watch_rate_nan_is_refused(home: Home) -> None:
    refused(home.invoke("watch", "--rate", "nan", GOOD_ID), INVALID_INPUT, "--rate")


@pytest.mark.parametrize("value", ["0", "-5", "abc", "1.5", ""])
def test_deposit_amount_must_be_a_positive_whole_number(home: Home, value: str) -> None:
    refused(home.invoke("bridge", *QUOTE, "--deposit-amount", value), INVALID_INPUT)


@pytest.mark.parametrize("chain", ["0", "-1", "0x2105", "8453.0", " "])
def test_chain_ids_are_positive_whole_numbers(home: Home, chain: str) -> None:
    refused(home.invoke("quote", *quote_with(origin_chain=chain)), INVALID_INPUT)


def test_slippage_is_checked_before_sending(home: Home) -> None:
    refused(home.invoke("quote", *quote_with(slippage_bps="10001")), INVALID_INPUT, "10000")


# -- request ids ---------------------------------------------------------------------------

MALFORMED_IDS = [
    "0x1234",
    "0x" + "ab" * 31,
    "0x" + "ab" * 33,
    "ab" * 32,
    "0x" + "zz" * 32,
    "0x" + "ab" * 31 + "٣٣",
    "",
    "0x " + "ab" * 32,
]


@pytest.mark.parametrize("request_id", MALFORMED_IDS)
@pytest.mark.parametrize("command", [["status"], ["status", "--v3"], ["watch"], ["resume"]])
def test_malformed_request_ids_are_refused_before_sending(
    home: Home, request_id: str, command: list[str]
) -> None:
    result = home.invoke(*command, request_id)
    refused(result, INVALID_INPUT, "is not 0x followed by 64 hex digits")


@pytest.mark.parametrize("address", ["0x1234", "0x" + "g" * 40, "not an address", "0x" + "1" * 41])
def test_malformed_addresses_are_refused_before_sending(home: Home, address: str) -> None:
    for option in ("user", "recipient", "refund_to"):
        result = home.invoke("quote", *quote_with(**{option: address}))
        refused(result, INVALID_INPUT)


CHECKSUMMED = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def _flip_case(address: str) -> str:
    """The same address with the case of its last letter flipped: a wrong EIP-55 checksum."""
    position = max(i for i, c in enumerate(address) if c.isalpha() and i > 1)
    letter = address[position]
    flipped = letter.lower() if letter.isupper() else letter.upper()
    return address[:position] + flipped + address[position + 1 :]


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("quote", "user"),
        ("quote", "recipient"),
        ("quote", "refund_to"),
        ("quote", "origin_currency"),
        ("quote", "destination_currency"),
        ("bridge", "recipient"),
        ("bridge", "refund_to"),
    ],
)
def test_a_wrong_eip55_checksum_is_refused_before_sending(
    home: Home, command: str, option: str
) -> None:
    wrong = _flip_case(CHECKSUMMED)
    result = home.invoke(command, *quote_with(**{option: wrong}))
    refused(result, INVALID_INPUT, wrong, "wrong EIP-55 checksum", "--" + option.replace("_", "-"))


@pytest.mark.parametrize("args", [["requests", "--user"], ["requests", "--deposit-address"]])
def test_history_filters_refuse_a_wrong_checksum(home: Home, args: list[str]) -> None:
    refused(home.invoke(*args, _flip_case(CHECKSUMMED)), INVALID_INPUT, "wrong EIP-55 checksum")


def test_venue_balance_refuses_a_wrong_checksum(home: Home) -> None:
    refused(
        home.invoke("venue", "balance", _flip_case(CHECKSUMMED)),
        INVALID_INPUT,
        "wrong EIP-55 checksum",
    )


@pytest.mark.parametrize(
    "address", [CHECKSUMMED, CHECKSUMMED.lower(), "0x" + CHECKSUMMED[2:].upper()]
)
def test_a_right_or_absent_checksum_passes_to_sending(home: Home, address: str) -> None:
    # the option is accepted: the quote is sent, and the closed port fails it (network, 5)
    result = home.invoke("quote", *quote_with(recipient=address))
    assert result.exit_code == 5, result.output
    assert "checksum" not in result.output


@pytest.mark.parametrize("value", ["", "   ", "US DC", "\x1b[2J", "USDC\x00", "A" * 200])
@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("quote", "origin_currency"),
        ("quote", "destination_currency"),
        ("bridge", "origin_currency"),
        ("bridge", "destination_currency"),
    ],
)
def test_a_currency_that_is_neither_address_nor_symbol(
    home: Home, value: str, command: str, option: str
) -> None:
    result = home.invoke(command, *quote_with(**{option: value}))
    refused(result, INVALID_INPUT, "--" + option.replace("_", "-"))


def test_a_symbol_without_the_service_is_a_network_error(home: Home) -> None:
    # the symbol passes its check and /chains is asked: the closed port fails it (5)
    refused(home.invoke("quote", *quote_with(origin_currency="USDC")), 5)
    refused(home.invoke("chains", "\x1b[2J"), 5)


# -- --extra ---------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [65, 1_000, 50_000])
@pytest.mark.parametrize("bracket", ["[", '{"a":'])
def test_deeply_nested_extra_is_refused(home: Home, depth: int, bracket: str) -> None:
    result = home.invoke("quote", *QUOTE, "--extra", "x=" + bracket * depth)
    refused(result, INVALID_INPUT, "nests deeper than 64 levels")


def test_extra_that_is_not_json_or_not_key_value(home: Home) -> None:
    refused(home.invoke("quote", *QUOTE, "--extra", "x={"), INVALID_INPUT, "is not JSON")
    refused(home.invoke("quote", *QUOTE, "--extra", "novalue"), INVALID_INPUT, "KEY=JSON")
    refused(home.invoke("quote", *QUOTE, "--extra", "=1"), INVALID_INPUT, "KEY=JSON")


def test_an_argument_that_is_not_utf8_is_refused(home: Home) -> None:
    # what Python makes of a byte that is not UTF-8 in argv (surrogateescape)
    result = home.invoke("quote", *QUOTE, "--extra", 'referrer="\udcff"')
    refused(result, INVALID_INPUT, "not UTF-8 text")


def test_real_non_utf8_bytes_in_argv(home: Home) -> None:
    result = home.run("quote", *QUOTE, "--extra", b'referrer="\xff\xfe"')
    refused(result, INVALID_INPUT, "not UTF-8 text")
    result = home.run("status", b"0x\xff")
    refused(result, INVALID_INPUT, "not UTF-8 text")


# -- files -----------------------------------------------------------------------------------


def config_case(home: Home, name: str, content: bytes | None) -> Path:
    path = home.root / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return path


CONFIG_CASES = {
    "binary": (bytes(range(256)) * 4, "is not UTF-8 text"),
    "utf16": ('profile = "mainnet"\n'.encode("utf-16"), "is not UTF-8 text"),
    "deep-array": (b"a = " + b"[" * 20_000 + b"]" * 20_000, "nests arrays or tables too deeply"),
    "deep-inline-table": (
        b"a = " + b"{b = " * 5_000 + b"1" + b"}" * 5_000,
        "nests arrays or tables too deeply",
    ),
    "not-toml": (b"[[[", "is not valid TOML"),
    "directory": (None, "cannot be read"),
}


@pytest.mark.parametrize("case", sorted(CONFIG_CASES))
@pytest.mark.parametrize("command", [["config", "show"], ["wallet", "show"], ["status", GOOD_ID]])
def test_hostile_config_files(home: Home, case: str, command: list[str]) -> None:
    content, message = CONFIG_CASES[case]
    path = config_case(home, f"config-{case}", content)
    result = home.invoke(*command, CROSSDECK_CONFIG=str(path))
    refused(result, INVALID_INPUT, message)


@pytest.mark.parametrize("case", ["deep-array", "deep-inline-table"])
def test_a_deep_config_where_the_recursion_limit_is_high(home: Home, case: str) -> None:
    """eth-account raises the recursion limit to 100,000 when imported: tomllib then parses a
    20,000-deep array without a RecursionError, and the parsed depth is what refuses it."""
    content, message = CONFIG_CASES[case]
    path = config_case(home, f"config-high-{case}", content)
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        result = home.invoke("config", "show", CROSSDECK_CONFIG=str(path))
    finally:
        sys.setrecursionlimit(before)
    refused(result, INVALID_INPUT, message)


def test_a_deep_config_in_a_fresh_process(home: Home) -> None:
    """tomllib's RecursionError where the default recursion limit holds (no eth-account)."""
    content, message = CONFIG_CASES["deep-array"]
    path = config_case(home, "deep.toml", content)
    refused(home.run("config", "show", CROSSDECK_CONFIG=str(path)), INVALID_INPUT, message)


WORLD_CASES = {
    "binary": (bytes(range(256)), "is not valid JSON"),
    "deep": (b"[" * 100_000, "nests deeper than 64 levels"),
    "not-json": (b"{", "is not valid JSON"),
    "wrong-shape": (b"[]", "is malformed"),
}


@pytest.mark.parametrize("case", sorted(WORLD_CASES))
def test_hostile_world_files(home: Home, case: str) -> None:
    content, message = WORLD_CASES[case]
    path = config_case(home, f"world-{case}", content)
    result = home.invoke("--world", str(path), "config", "show", CROSSDECK_PROFILE="demo")
    refused(result, INVALID_INPUT, message)


def test_a_directory_as_world_file_is_usage(home: Home) -> None:
    """--world is a file option: click's own check says so (exit 2), as for --keystore."""
    refused(home.invoke("--world", str(home.root), "config", "show"), USAGE, "is a directory")


KEYRING_CASES = {
    "binary": (bytes(range(256)) * 2, "is not a crossdeck keyring"),
    "garbage-text": (b"no section header here\n", "is not a crossdeck keyring"),
    "directory": (None, "is not a regular file"),
}


@pytest.mark.parametrize("case", sorted(KEYRING_CASES))
@pytest.mark.parametrize(
    "command", [["wallet", "show"], ["wallet", "new", "--yes"], ["apikey", "remove", "--yes"]]
)
def test_hostile_keyring_files(home: Home, case: str, command: list[str]) -> None:
    content, message = KEYRING_CASES[case]
    path = config_case(home, f"keyring-{case}", content)
    result = home.invoke(*command, CROSSDECK_KEYRING_FILE=str(path))
    refused(result, INVALID_INPUT, message)
    assert "no wallet stored" not in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)), "cannot read keystore"),
        (b"[" * 100_000, "nests deeper than 64 levels"),
        (b'{"crypto": 1}', "cannot decrypt keystore"),
        (b"[]", "cannot decrypt keystore"),
    ],
)
def test_hostile_keystore_files(home: Home, content: bytes, message: str) -> None:
    path = home.root / "keystore.json"
    path.write_bytes(content)
    result = home.invoke(
        "wallet", "import", "--keystore", str(path), "--password-env", "PW", "--yes", PW="x"
    )
    refused(result, INVALID_INPUT, message)


def test_a_directory_as_keystore_is_usage(home: Home) -> None:
    refused(home.invoke("wallet", "import", "--keystore", str(home.root), "--yes"), USAGE)


# -- prompts: EOF and a closed standard input ------------------------------------------------

PROMPTS = {
    "wallet import": ["wallet", "import"],
    "apikey set": ["apikey", "set"],
    "wallet new (overwrite confirmation)": ["wallet", "new"],
    "wallet remove": ["wallet", "remove"],
    "keystore password": ["wallet", "import", "--keystore", "KEYSTORE"],
}


@pytest.fixture
def stored(home: Home) -> Home:
    """A wallet already stored, so `wallet new` asks before replacing it."""
    assert home.invoke("wallet", "new", "--yes").exit_code == 0
    keystore = home.root / "KEYSTORE"
    keystore.write_text(json.dumps({"version": 3}))
    return home


def _prompt_args(home: Home, name: str) -> list[str]:
    return [str(home.root / a) if a == "KEYSTORE" else a for a in PROMPTS[name]]


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_eof_at_every_prompt_is_exit_11(stored: Home, name: str) -> None:
    result = stored.invoke(*_prompt_args(stored, name), input="")
    refused(result, ABORTED, "no answer to", "standard input ended")
    assert "Aborted!" not in result.output


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_closed_stdin_at_every_prompt_is_exit_11(stored: Home, name: str) -> None:
    result = stored.run(*_prompt_args(stored, name), close_stdin=True)
    refused(result, ABORTED, "standard input is closed")


def test_stdin_secret_that_is_not_utf8(home: Home) -> None:
    result = home.invoke("wallet", "import", "--stdin", input=b"\xff\xfe\n")
    refused(result, INVALID_INPUT, "is not UTF-8 text")


def test_an_empty_secret_is_refused(home: Home) -> None:
    refused(home.invoke("apikey", "set", "--stdin", input="\n"), INVALID_INPUT, "no api key")


# -- the guard -------------------------------------------------------------------------------


def test_an_unexpected_error_is_one_line_with_exit_1(home: Home, monkeypatch: Any) -> None:
    from crossdeck.cli.commands import settings

    def broken(*_args: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(settings, "_settings", broken)
    result = home.invoke("config", "show")
    refused(result, 1, "error: unexpected ZeroDivisionError: a bug")
