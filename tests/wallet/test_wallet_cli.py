"""`crossdeck wallet ...` and `crossdeck apikey ...` through click: keys go in, never out."""

from __future__ import annotations

import json
import select
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from eth_account import Account

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.wallet import keystore
from helpers.keys import DEV_KEYS

KEY = DEV_KEYS[1]
ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
OTHER_KEY = DEV_KEYS[2]
OTHER_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"


def run(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, args, input=input)


def assert_no_secret(result: Result, *secrets: str) -> None:
    for secret in secrets:
        body = secret.removeprefix("0x")
        assert body not in result.output
        assert body.upper() not in result.output


def test_import_from_hidden_prompt_then_show(cli_env: Path) -> None:
    result = run(["wallet", "import"], input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == ADDRESS
    assert "Private key (hex)" in result.output  # the prompt, without the typed value
    assert_no_secret(result, KEY)

    shown = run(["wallet", "show"])
    assert shown.exit_code == 0
    assert shown.stdout.splitlines()[0] == ADDRESS
    assert f"keyring: encrypted file (AES-256, keyrings.alt) at {cli_env}" in shown.stdout
    as_json = json.loads(run(["--json", "wallet", "show"]).stdout)
    assert as_json == {
        "profile": "mainnet",
        "address": ADDRESS,
        "solanaAddress": None,
        "bitcoinAddress": None,
        "source": "keyring",
        "keyring": f"encrypted file (AES-256, keyrings.alt) at {cli_env}",
    }
    assert KEY[2:] not in cli_env.read_text()


def test_import_from_stdin_into_a_named_profile(cli_env: Path) -> None:
    cli_env.parent.joinpath("config.toml").write_text('[profiles.mine]\nextends = "mainnet"\n')
    result = run(["--profile", "mine", "--json", "wallet", "import", "--stdin"], input=KEY)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"profile": "mine", "address": ADDRESS}
    assert_no_secret(result, KEY)
    stored = keystore.load_wallet_key("mine")
    assert stored is not None and stored.get_secret_value() == KEY
    assert keystore.load_wallet_key("mainnet") is None


def test_import_from_an_encrypted_keystore(
    cli_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyfile = tmp_path / "key.json"
    encrypted = Account.encrypt(KEY, "keystore pass", kdf="pbkdf2", iterations=1000)
    keyfile.write_text(json.dumps(encrypted))
    monkeypatch.setenv("MY_KEYSTORE_PASSWORD", "keystore pass")
    result = run(
        ["wallet", "import", "--keystore", str(keyfile), "--password-env", "MY_KEYSTORE_PASSWORD"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == ADDRESS
    assert_no_secret(result, KEY)

    keystore.remove_wallet_key("mainnet")
    result = run(["wallet", "import", "--keystore", str(keyfile)], input="wrong pass\n")
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "wrong password" in result.stderr
    assert "wrong pass\n" not in result.output.replace("wrong password", "")
    assert keystore.load_wallet_key("mainnet") is None


def test_bad_key_is_refused_without_echoing_it(cli_env: Path) -> None:
    bad = KEY[:-2] + "zz"
    result = run(["wallet", "import", "--stdin"], input=bad)
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "64 hex characters" in result.stderr
    assert_no_secret(result, bad)
    result = run(["wallet", "import", "--stdin", "--password-env", "X"], input=KEY)
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "--password-env only goes with --keystore" in result.stderr


def test_replacing_a_wallet_needs_confirmation(cli_env: Path) -> None:
    assert run(["wallet", "import", "--stdin"], input=KEY).exit_code == 0
    declined = run(["wallet", "import", "--stdin"], input=OTHER_KEY + "\nn\n")
    # --stdin reads the first line; the confirmation reads the next one.
    assert declined.exit_code == ExitCode.ABORTED, declined.output
    assert f"already has wallet {ADDRESS}" in declined.output
    assert keystore.load_wallet_address("mainnet") == ADDRESS
    replaced = run(["wallet", "import", "--stdin", "--yes"], input=OTHER_KEY)
    assert replaced.exit_code == 0
    assert replaced.stdout.strip() == OTHER_ADDRESS
    assert_no_secret(declined, KEY, OTHER_KEY)
    assert_no_secret(replaced, KEY, OTHER_KEY)


def test_new_prints_only_the_address(cli_env: Path) -> None:
    result = run(["wallet", "new"])
    assert result.exit_code == 0, result.output
    address = result.stdout.strip()
    assert len(result.stdout.splitlines()) == 1
    key = keystore.load_wallet_key("mainnet")
    assert key is not None
    assert Account.from_key(key.get_secret_value()).address == address
    assert_no_secret(result, key.get_secret_value())


def test_remove_asks_first(cli_env: Path) -> None:
    run(["wallet", "import", "--stdin"], input=KEY)
    declined = run(["wallet", "remove"], input="n\n")
    assert declined.exit_code == ExitCode.ABORTED
    assert "funds are lost" in declined.output
    assert keystore.load_wallet_address("mainnet") == ADDRESS
    removed = run(["wallet", "remove"], input="y\n")
    assert removed.exit_code == 0, removed.output
    assert keystore.load_wallet_key("mainnet") is None
    again = run(["wallet", "remove", "--yes"])
    assert again.exit_code == ExitCode.INVALID_INPUT
    assert "has no wallet key" in again.stderr
    nothing = run(["--json", "wallet", "show"])
    assert json.loads(nothing.stdout)["address"] is None


def test_world_wallet_is_shown_from_the_world_file(cli_env: Path, tmp_path: Path) -> None:
    demo_key = DEV_KEYS[0]
    world = tmp_path / "world.json"
    world.write_text(
        json.dumps(
            {
                "service_url": "http://127.0.0.1:1",
                "venue_url": "http://127.0.0.1:2",
                "rpc": {"8453": "http://127.0.0.1:3"},
                "wallet": {
                    "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                    "private_key": demo_key,
                },
                "api_key": None,
                "solver": None,
            }
        )
    )
    result = run(["--world", str(world), "wallet", "show"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    assert "source: world file" in result.stdout
    assert_no_secret(result, demo_key)


def test_apikey_set_and_remove(cli_env: Path) -> None:
    secret = "sk-live-4f9c2e1d"
    result = run(["apikey", "set"], input=secret + "\n")
    assert result.exit_code == 0, result.output
    assert secret not in result.output
    stored = keystore.load_api_key("mainnet")
    assert stored is not None and stored.get_secret_value() == secret
    assert secret not in cli_env.read_text()

    result = run(["--json", "apikey", "set", "--stdin"], input="sk-second\n")
    assert json.loads(result.stdout) == {"profile": "mainnet", "api_key": "<set>"}
    assert "sk-second" not in result.output

    assert run(["apikey", "remove"], input="n\n").exit_code == ExitCode.ABORTED
    assert keystore.load_api_key("mainnet") is not None
    removed = run(["apikey", "remove", "--yes"])
    assert removed.exit_code == 0
    assert keystore.load_api_key("mainnet") is None
    assert run(["apikey", "remove", "--yes"]).exit_code == ExitCode.INVALID_INPUT
    empty = run(["apikey", "set", "--stdin"], input="\n")
    assert empty.exit_code == ExitCode.INVALID_INPUT


def test_locked_keyring_is_a_clear_error(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(["wallet", "import", "--stdin"], input=KEY)
    monkeypatch.delenv(keystore.ENV_PASSWORD)
    keystore.set_keyring_password(None)
    result = run(["wallet", "show"])
    assert result.exit_code == ExitCode.NO_SECRET
    assert keystore.ENV_PASSWORD in result.stderr


def _run_on_a_terminal(args: list[str], answers: list[str], env: dict[str, str]) -> tuple[str, int]:
    """Run the real `crossdeck` on a pseudo-terminal and type each answer at a hidden prompt:
    once echo is off and a new prompt (ending in ': ') has appeared since the last answer, as
    getpass discards whatever was typed before it turned echo off."""
    import os
    import pty
    import shutil
    import signal
    import termios
    import time

    exe = shutil.which("crossdeck", path=str(Path(sys.executable).parent))
    assert exe is not None
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(exe, [exe, *args], env)
    output = b""
    answered_at = 0
    pending = list(answers)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            prompt_waiting = len(output) > answered_at and output.endswith(b": ")
            if pending and prompt_waiting and not termios.tcgetattr(fd)[3] & termios.ECHO:
                os.write(fd, pending.pop(0).encode() + b"\n")
                answered_at = len(output)
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
    finally:
        if time.monotonic() >= deadline:  # stuck at a prompt nobody answers
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return output.decode(errors="replace"), os.waitstatus_to_exitcode(status)


def test_interactive_password_prompt_on_a_terminal(cli_env: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != keystore.ENV_PASSWORD}
    output, code = _run_on_a_terminal(["wallet", "import"], [KEY, "pw-on-tty", "pw-on-tty"], env)
    assert code == 0, output
    assert "New password for the crossdeck keyring" in output
    assert "Repeat the password" in output
    assert ADDRESS in output
    assert KEY[2:] not in output and "pw-on-tty" not in output
    output, code = _run_on_a_terminal(["wallet", "show"], ["pw-on-tty"], env)
    assert code == 0, output
    assert ADDRESS in output
    output, code = _run_on_a_terminal(["wallet", "show"], ["not-it"], env)
    assert code == ExitCode.NO_SECRET
    assert "wrong password" in output


def test_first_start_on_a_terminal_asks_no_password(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh machine: `wallet show` on a terminal asks no password for a keyring that does
    not exist, and says so; without a terminal, the first save says the keyring is new."""
    import os

    env = {k: v for k, v in os.environ.items() if k != keystore.ENV_PASSWORD}
    output, code = _run_on_a_terminal(["wallet", "show"], [], env)
    assert code == 0, output
    assert "Password for" not in output and "New password" not in output
    assert "no wallet stored for profile 'mainnet'" in output
    assert f"{cli_env} (not created yet: the first save creates it)" in output
    assert not cli_env.exists()
    monkeypatch.delenv(keystore.ENV_PASSWORD)
    keystore.set_keyring_password(None)
    saved = run(["wallet", "import", "--stdin"], input=KEY)
    assert saved.exit_code == ExitCode.NO_SECRET, saved.output
    assert "does not exist yet: saving creates it, with a password you choose" in saved.stderr
    assert not cli_env.exists()
