"""The signers of the command line against the world: a Foundry keystore (`--account`,
`--keystore`, `--password-file` or a prompt) and a read-only address (`--from`). Each takes the
place of the world file's wallet; the keystore's password and key reach no output or file."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_keyfile import create_keyfile_json
from execute_support import ETH, Cli, fund, new_address, new_key
from execute_support import native_bridge as native

from crossdeck.base.exitcodes import ExitCode
from crossdeck.wallet.gateway import EvmGateway

PASSWORD = "correct horse battery staple 7f3a"


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


def nonce(world: Any, address: str) -> int:
    async def read() -> int:
        async with EvmGateway(world.rpc[8453], 8453) as gateway:
            return await gateway.nonce(address, "latest")

    return asyncio.run(read())


def write_keystore(path: Path, key: str, *, kdf: str = "pbkdf2", address: bool = True) -> str:
    """A V3 keystore of `key` at `path`; pbkdf2 with few rounds keeps the tests quick, scrypt
    is what cast writes."""
    iterations = 2 if kdf == "scrypt" else 1000
    data = create_keyfile_json(
        bytes.fromhex(key[2:]), PASSWORD.encode(), kdf=kdf, iterations=iterations
    )
    if not address:
        data.pop("address", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return Account.from_key(key).address


def every_file_text(root: Path) -> str:
    return "\n".join(
        path.read_bytes().decode("latin-1") for path in root.rglob("*") if path.is_file()
    )


def test_account_with_password_file_bridges_from_the_keystore_address(
    cli: Cli, tmp_path: Path
) -> None:
    key = new_key()
    home = tmp_path / "home"
    address = write_keystore(home / ".foundry" / "keystores" / "trader", key, kdf="scrypt")
    password_file = tmp_path / "password.txt"
    password_file.write_text(PASSWORD + "\n")
    asyncio.run(fund(cli.world, address, native={8453: ETH // 5}))

    result = cli.invoke(
        "--account", "trader", "--password-file", str(password_file),
        *native(new_address(), "--yes"), HOME=str(home),
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "executing request 0x" in out and f"as {address}:" in out
    assert f"Signer       the keystore {home / '.foundry' / 'keystores' / 'trader'}" in out
    assert any(ln.startswith("finished: success") for ln in out.splitlines())
    assert nonce(cli.world, address) == 1
    assert nonce(cli.world, cli.address) == 0  # the world file's wallet signed nothing
    # neither the password nor the key reaches the output or the data directory
    assert PASSWORD not in result.output and key[2:] not in result.output.lower()
    stored = every_file_text(cli.home / "data").lower()
    assert PASSWORD.lower() not in stored and key[2:] not in stored


def test_keystore_path_json_names_the_signer(cli: Cli, tmp_path: Path) -> None:
    key = new_key()
    keystore = tmp_path / "keys" / "hot.json"
    address = write_keystore(keystore, key, address=False)  # the address is learnt by decrypting
    password_file = tmp_path / "pw"
    password_file.write_text(PASSWORD)
    asyncio.run(fund(cli.world, address, native={8453: ETH // 5}))

    result = cli.invoke(
        "--keystore", str(keystore), "--password-file", str(password_file),
        *native(new_address(), "--yes"), "--json",
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["signer"] == {"kind": "keystore", "address": address, "where": str(keystore)}
    started = next(line for line in lines if line["event"] == "RunStarted")
    assert started["wallet"] == address
    assert lines[-1]["event"] == "Finished" and lines[-1]["status"] == "success"
    assert PASSWORD not in result.stdout and key[2:] not in result.stdout.lower()


def test_wrong_password_exits_3_and_sends_nothing(cli: Cli, tmp_path: Path) -> None:
    keystore = tmp_path / "k.json"
    address = write_keystore(keystore, new_key())
    password_file = tmp_path / "pw"
    password_file.write_text("not the password\n")
    asyncio.run(fund(cli.world, address, native={8453: ETH // 5}))

    result = cli.invoke(
        "--keystore", str(keystore), "--password-file", str(password_file),
        *native(new_address(), "--yes"),
    )  # fmt: skip

    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert f"wrong password for the keystore {keystore}" in result.output
    assert "not the password" not in result.output
    assert nonce(cli.world, address) == 0
    assert not (cli.home / "data" / "journal.sqlite3").exists() or "executing" not in result.output


def test_no_password_and_stdin_closed_exits_11_naming_the_option(cli: Cli, tmp_path: Path) -> None:
    from execute_support import CROSSDECK

    keystore = tmp_path / "k.json"
    write_keystore(keystore, new_key(), address=False)
    done = subprocess.run(
        [CROSSDECK, "--world", str(cli.world_file), "--keystore", str(keystore),
         *native(new_address(), "--yes")],
        env=cli.env(None), stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip

    assert done.returncode == ExitCode.ABORTED, done.stderr
    assert "--keystore" in done.stderr and "pass --password-file FILE" in done.stderr
    assert "Traceback" not in done.stderr


def test_keystore_problems_are_input_errors(cli: Cli, tmp_path: Path) -> None:
    missing = cli.invoke("--account", "nobody", *native(new_address(), "--yes"), HOME=str(tmp_path))
    assert missing.exit_code == ExitCode.INVALID_INPUT
    assert "--account: no keystore at" in missing.output

    not_json = tmp_path / "junk"
    not_json.write_text("hello")
    junk = cli.invoke("--keystore", str(not_json), *native(new_address(), "--yes"))
    assert junk.exit_code == ExitCode.INVALID_INPUT
    assert "is not a JSON keystore" in junk.output

    sneaky = cli.invoke("--account", "../x", *native(new_address(), "--yes"))
    assert sneaky.exit_code == ExitCode.INVALID_INPUT

    both = cli.invoke("--account", "a", "--keystore", str(not_json), "chains")
    assert both.exit_code == 2 and "give one" in both.output


def test_from_quotes_for_that_address_and_refuses_to_sign(cli: Cli) -> None:
    watched = new_address()
    asyncio.run(fund(cli.world, watched, native={8453: ETH // 5}))

    quoted = cli.invoke("--from", watched, "quote", *native(new_address())[1:], "--json")
    assert quoted.exit_code == 0, quoted.output
    quote = json.loads(quoted.stdout)
    senders = {
        item["data"].get("from", "").lower()
        for step in quote["steps"]
        for item in step["items"]
        if isinstance(item.get("data"), dict)
    }
    assert senders == {watched.lower()}

    refused = cli.invoke("--from", watched, *native(new_address(), "--yes"))
    assert refused.exit_code == ExitCode.INVALID_INPUT
    assert refused.output.startswith(f"error: read-only: {watched}")
    # the hint's command is one that runs (--from is global: `quote --from` is no option)
    assert f"`crossdeck --from {watched} quote`" in refused.output
    assert nonce(cli.world, watched) == 0 and nonce(cli.world, cli.address) == 0

    balance = cli.invoke("--from", watched, "venue", "balance", "--json")
    assert balance.exit_code == 0, balance.output
    assert watched.lower() in balance.stdout.lower()


def test_from_with_a_signer_must_match_it(cli: Cli, tmp_path: Path) -> None:
    keystore = tmp_path / "k.json"
    write_keystore(keystore, new_key())
    password_file = tmp_path / "pw"
    password_file.write_text(PASSWORD)
    other = new_address()
    result = cli.invoke(
        "--keystore", str(keystore), "--password-file", str(password_file), "--from", other,
        *native(new_address(), "--yes"),
    )  # fmt: skip
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert f"not {other} (--from)" in result.output


def test_bad_from_is_refused(cli: Cli) -> None:
    result = cli.invoke("--from", "0x1234", "chains")
    assert result.exit_code in (2, 3)
    assert "not an EVM address" in result.output
    assert os.environ.get("ETH_FROM") is None


@pytest.mark.parametrize(
    ("address", "family"),
    [
        ("GSzRRMq3WCnqTceBNVHpTYnAJVbo9RcHLZa3nW5GZCcn", "a Solana address"),
        ("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "a Bitcoin address"),
    ],
)
def test_from_of_another_family_says_which_it_is(cli: Cli, address: str, family: str) -> None:
    result = cli.invoke("--from", address, "venue", "balance")
    assert result.exit_code in (2, 3)
    assert f"is not an EVM address ('0x' and 40 hex digits) but {family}" in result.output
    assert "Traceback" not in result.output


def test_from_with_a_wrong_checksum_is_refused(cli: Cli) -> None:
    good = Account.create().address
    flipped = good[:2] + (good[2].swapcase() if good[2].isalpha() else good[2]) + good[3:]
    if flipped == good:  # the first digit is a number: flip the first letter instead
        i = next(i for i, c in enumerate(good) if i > 1 and c.isalpha())
        flipped = good[:i] + good[i].swapcase() + good[i + 1 :]
    result = cli.invoke("--from", flipped, "venue", "balance")
    assert result.exit_code in (2, 3)
    assert "wrong EIP-55 checksum" in result.output and "Traceback" not in result.output
