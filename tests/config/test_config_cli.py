"""`crossdeck config path|show`: the file in use, and settings with secrets redacted."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner
from config_support import DEMO_ADDRESS, DEMO_API_KEY, DEMO_KEY

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.wallet import keystore
from helpers.keys import DEV_KEYS

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
        "name": "Relay",
        "timeout_seconds": 7.0,
        "max_retries": 4,
        "quote_api": "auto",  # /quote/v3 with a credential, else /quote/v2
    }
    assert shown["rpc"]["8453"] == "https://mainnet.base.org"
    assert "# keyring: encrypted file" in result.stdout


def test_config_show_never_shows_world_or_keyring_secrets(
    config_file: WriteConfig, world_file: Path
) -> None:
    config_file("")
    keystore.store_wallet_key("demo", DEV_KEYS[1])
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


def test_config_show_marks_the_theme_the_app_remembers(
    config_file: WriteConfig, tmp_path: Path
) -> None:
    from crossdeck.tui.ui_state import UiState, save_ui_state, state_path

    data_dir = tmp_path / "data"
    config_file(f'data_dir = "{data_dir}"\n')
    line = "# theme remembered by the app (not from the config file): "
    result = CliRunner().invoke(main, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert line + "none, the config's theme is used\n" in result.stdout

    # the app's own writer, as picking a theme in the app saves it
    state_file = state_path(data_dir)
    save_ui_state(state_file, UiState(theme="crossdeck-light", config_theme="crossdeck-dark"))
    result = CliRunner().invoke(main, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert (
        f"{line}crossdeck-light, kept in {state_file}; "
        "the app starts with it instead of the config's theme\n"
    ) in result.stdout
    assert tomllib.loads(result.stdout)["theme"] == "crossdeck-dark"  # the file's, not the app's
    shown = json.loads(CliRunner().invoke(main, ["config", "show", "--json"]).stdout)
    assert shown["theme"] == "crossdeck-dark"
    assert shown["remembered_theme"] == {
        "theme": "crossdeck-light",
        "in_effect": True,
        "file": str(state_file),
    }

    # a theme edited into the config after the pick wins: the remembered one is not used
    config_file(f'data_dir = "{data_dir}"\ntheme = "nord"\n')
    result = CliRunner().invoke(main, ["--json", "config", "show"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["remembered_theme"]["in_effect"] is False
    result = CliRunner().invoke(main, ["config", "show"])
    assert "crossdeck-light, kept in" in result.stdout
    assert "not used, the config's theme changed since it was picked" in result.stdout
