"""`crossdeck config path|show`: the file in use, and settings with secrets redacted."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner
from config_support import DEMO_ADDRESS, DEMO_API_KEY, DEMO_KEY

from crossdeck.cli import main
from crossdeck.exitcodes import ExitCode
from crossdeck.wallet import keystore

WriteConfig = Callable[[str], Path]


def test_config_path_prints_the_file_in_use(config_file: WriteConfig) -> None:
    path = config_file("")
    result = CliRunner().invoke(main, ["config", "path"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(path)
    result = CliRunner().invoke(main, ["--json", "config", "path"])
    assert json.loads(result.stdout) == {"path": str(path), "exists": True}


def test_config_show_text_is_toml_of_the_profile(config_file: WriteConfig) -> None:
    config_file("[profiles.mainnet.service]\ntimeout_seconds = 7\n")
    result = CliRunner().invoke(main, ["config", "show"])
    assert result.exit_code == 0, result.output
    shown = tomllib.loads(result.stdout)
    assert shown["profile"] == "mainnet"
    assert shown["service"] == {
        "url": "https://api.relay.link",
        "timeout_seconds": 7.0,
        "max_retries": 4,
    }
    assert shown["rpc"]["8453"] == "https://mainnet.base.org"
    assert "# keyring: encrypted file" in result.stdout


def test_config_show_never_shows_world_or_keyring_secrets(
    config_file: WriteConfig, world_file: Path
) -> None:
    config_file("")
    keystore.store_wallet_key(
        "demo", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
    )
    keystore.store_api_key("demo", "keyring-api-key-91ab")
    runner = CliRunner()
    for args in (
        ["--world", str(world_file), "config", "show"],
        ["--world", str(world_file), "config", "show", "--json"],
        ["--world", str(world_file), "--json", "config", "show"],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        for secret in (DEMO_KEY, DEMO_KEY[2:], DEMO_API_KEY, "59c6995e998f97a5", "91ab"):
            assert secret not in result.output
        assert DEMO_ADDRESS in result.output
        assert "<set>" in result.output
    data = json.loads(
        runner.invoke(main, ["--world", str(world_file), "config", "show", "--json"]).stdout
    )
    assert data["world"]["wallet_key"] == "<set>"
    assert data["service"]["url"] == "http://127.0.0.1:41001"
    assert data["keyring"].startswith("encrypted file")


def test_config_errors_exit_with_a_message(config_file: WriteConfig) -> None:
    path = config_file("profile = [")
    result = CliRunner().invoke(main, ["config", "show"])
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert f"error: config file {path} is not valid TOML" in result.stderr
    config_file("")
    result = CliRunner().invoke(main, ["--profile", "ghost", "config", "show"])
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "unknown profile 'ghost'" in result.stderr
