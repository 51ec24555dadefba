"""Settings layering: env over file over profile defaults, custom profiles, world files."""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from config_support import DEMO_ADDRESS, DEMO_API_KEY, DEMO_KEY

from crossdeck.base.exitcodes import ExitCode
from crossdeck.config import (
    ConfigError,
    Settings,
    available_profiles,
    config_file_path,
    load_settings,
    redacted_dump,
)
from crossdeck.credentials import resolve_api_key, resolve_wallet_address, resolve_wallet_key
from crossdeck.wallet import keystore
from crossdeck.wallet.errors import NoSecretError

WriteConfig = Callable[[str], Path]


def test_mainnet_is_the_default_with_public_endpoints(config_file: WriteConfig) -> None:
    config_file("")
    settings = load_settings()
    assert settings.profile == "mainnet"
    assert settings.service.url == "https://api.relay.link"
    assert settings.venue.url == "https://api.hyperliquid.xyz"
    assert settings.rpc == {
        8453: "https://mainnet.base.org",
        999: "https://rpc.hyperliquid.xyz/evm",
        792703809: "https://api.mainnet-beta.solana.com",
    }
    assert settings.signing_chain_id == 1
    assert settings.service.timeout_seconds == 20.0 and settings.service.max_retries == 4
    assert settings.theme == "crossdeck-dark"
    assert settings.world is None


def test_env_beats_file_beats_profile_defaults(
    config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file(
        """
theme = "shared-theme"

[tracking]
timeout_seconds = 90

[profiles.mainnet]
signing_chain_id = 8453

[profiles.mainnet.service]
url = "https://file.example/"
timeout_seconds = 5

[profiles.mainnet.rpc]
8453 = "https://base-from-file.example"
"""
    )
    monkeypatch.setenv("CROSSDECK_SERVICE__URL", "https://env.example")
    monkeypatch.setenv("CROSSDECK_RPC__999", "https://hyperevm-from-env.example")
    monkeypatch.setenv("CROSSDECK_TRACKING__POLL_INTERVAL_SECONDS", "0.5")
    monkeypatch.setenv("CROSSDECK_THEME", "env-theme")
    settings = load_settings()
    assert settings.service.url == "https://env.example"  # env over file
    assert settings.service.timeout_seconds == 5  # file over default, env leaves it
    assert settings.service.max_retries == 4  # default
    assert settings.rpc == {
        8453: "https://base-from-file.example",  # file over profile
        999: "https://hyperevm-from-env.example",  # env over profile
        792703809: "https://api.mainnet-beta.solana.com",  # the profile's own
    }
    assert settings.signing_chain_id == 8453
    assert settings.tracking.timeout_seconds == 90  # shared top-level section
    assert settings.tracking.poll_interval_seconds == 0.5
    assert settings.theme == "env-theme"
    assert settings.venue.url == "https://api.hyperliquid.xyz"


def test_profile_table_beats_shared_sections(config_file: WriteConfig) -> None:
    config_file('theme = "shared"\n[profiles.mainnet]\ntheme = "mainnet-only"\n')
    assert load_settings().theme == "mainnet-only"


def test_crossdeck_config_points_at_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere.toml"
    other.write_text('[profiles.mainnet.venue]\nurl = "https://venue.example"\n')
    monkeypatch.setenv("CROSSDECK_CONFIG", str(other))
    assert config_file_path() == other
    assert load_settings().venue.url == "https://venue.example"

    monkeypatch.setenv("CROSSDECK_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match=r"missing\.toml does not exist"):
        load_settings()


def test_default_file_is_in_the_user_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CROSSDECK_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_file_path() == tmp_path / "xdg" / "crossdeck" / "config.toml"
    assert load_settings().profile == "mainnet"  # a missing default file is fine
    (tmp_path / "xdg" / "crossdeck").mkdir(parents=True)
    config_file_path().write_text('theme = "from-default-file"\n')
    assert load_settings().theme == "from-default-file"


def test_custom_profile_from_the_file(
    config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file(
        """
profile = "staging"

[profiles.staging]
extends = "mainnet"
service = { url = "https://staging.example", max_retries = 1 }

[profiles.local]
service = { url = "http://127.0.0.1:9000" }
venue = { url = "http://127.0.0.1:9001" }
rpc = { 8453 = "http://127.0.0.1:9002" }
"""
    )
    staging = load_settings()
    assert staging.profile == "staging"
    assert staging.service.url == "https://staging.example"
    assert staging.service.max_retries == 1
    assert staging.venue.url == "https://api.hyperliquid.xyz"  # from mainnet
    assert staging.rpc[999] == "https://rpc.hyperliquid.xyz/evm"

    local = load_settings("local")
    assert local.rpc == {8453: "http://127.0.0.1:9002"}
    monkeypatch.setenv("CROSSDECK_PROFILE", "local")
    assert load_settings().profile == "local"  # env over the file's `profile`
    assert load_settings("staging").profile == "staging"  # argument over env
    assert available_profiles() == ["demo", "local", "mainnet", "staging"]


def test_unknown_or_incomplete_profiles_are_clear_errors(config_file: WriteConfig) -> None:
    config_file('[profiles.half]\nvenue = { url = "https://v.example" }\n')
    with pytest.raises(ConfigError, match="unknown profile 'nope'") as info:
        load_settings("nope")
    assert "half" in str(info.value)
    with pytest.raises(ConfigError, match=r"profile 'half'.*service: is required"):
        load_settings("half")
    with pytest.raises(ConfigError, match="needs a world file"):
        load_settings("demo")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("profile = [", "not valid TOML"),
        ("[profiles.mainnet]\ntimeout = 3\n", "timeout: .*not permitted"),
        ('[profiles.mainnet.service]\nurl = "ftp://x"\n', r"service\.url: .*http://"),
        ('[profiles.mainnet]\napi_key = "sk-123"\n', "api_key: .*not permitted"),
        ('[profiles.mainnet.world]\nwallet_address = "0x0"\n', "`world` is not allowed"),
        ('[profiles.x]\nextends = "x2"\n', "extends 'x2'"),
        ("profiles = 3\n", "must hold"),
    ],
)
def test_bad_config_files(config_file: WriteConfig, text: str, expected: str) -> None:
    path = config_file(text)
    profile = "x" if "profiles.x" in text else None
    with pytest.raises(ConfigError, match=expected) as info:
        load_settings(profile)
    assert info.value.exit_code == ExitCode.INVALID_INPUT
    assert "sk-123" not in str(info.value)
    if "TOML" in expected or "allowed" in expected:
        assert str(path) in str(info.value)


def test_bad_env_value_names_the_field(
    config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file("")
    monkeypatch.setenv("CROSSDECK_SERVICE__MAX_RETRIES", "many")
    with pytest.raises(ConfigError, match=r"service\.max_retries"):
        load_settings()


def test_world_file_builds_the_demo_profile(config_file: WriteConfig, world_file: Path) -> None:
    config_file("")
    settings = load_settings(world=world_file)
    assert settings.profile == "demo"
    assert settings.service.url == "http://127.0.0.1:41001"
    assert settings.venue.url == "http://127.0.0.1:41002"  # trailing slash dropped
    assert settings.rpc == {8453: "http://127.0.0.1:41003", 999: "http://127.0.0.1:41004"}
    assert settings.world is not None
    assert settings.world.file == world_file
    assert settings.world.wallet_address == DEMO_ADDRESS
    assert settings.world.wallet_key.get_secret_value() == DEMO_KEY
    assert DEMO_KEY not in repr(settings)
    assert DEMO_API_KEY not in repr(settings)
    assert resolve_wallet_key(settings).get_secret_value() == DEMO_KEY
    api_key = resolve_api_key(settings)
    assert api_key is not None and api_key.get_secret_value() == DEMO_API_KEY
    assert resolve_wallet_address(settings) == DEMO_ADDRESS


def test_world_from_env_and_file_overrides(
    config_file: WriteConfig, world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file("[profiles.demo.service]\ntimeout_seconds = 3\n")
    monkeypatch.setenv("CROSSDECK_WORLD", str(world_file))
    settings = load_settings()
    assert settings.profile == "demo"
    assert settings.service.url == "http://127.0.0.1:41001"
    assert settings.service.timeout_seconds == 3
    monkeypatch.setenv("CROSSDECK_VENUE__URL", "http://127.0.0.1:5999")
    assert load_settings().venue.url == "http://127.0.0.1:5999"
    with pytest.raises(ConfigError, match="cannot be used with profile mainnet"):
        load_settings("mainnet")


def test_bad_world_files(config_file: WriteConfig, tmp_path: Path) -> None:
    config_file("")
    with pytest.raises(ConfigError, match=r"world file .*gone\.json does not exist"):
        load_settings(world=tmp_path / "gone.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigError, match=r"broken\.json is not valid JSON"):
        load_settings(world=broken)
    partial = tmp_path / "partial.json"
    partial.write_text(
        json.dumps(
            {
                "service_url": "http://127.0.0.1:1",
                "venue_url": "http://127.0.0.1:2",
                "rpc": {},
                "wallet": {"address": DEMO_ADDRESS},
            }
        )
    )
    with pytest.raises(ConfigError, match=r"partial\.json is malformed: wallet\.private_key"):
        load_settings(world=partial)
    bad_url = tmp_path / "bad_url.json"
    bad_url.write_text(partial.read_text().replace("}}", ', "private_key": "0x1"}}'))
    bad_url.write_text(bad_url.read_text().replace("http://127.0.0.1:1", "127.0.0.1:1"))
    with pytest.raises(ConfigError, match=r"service\.url"):
        load_settings(world=bad_url)


def test_keyring_secrets_are_resolved_per_profile(config_file: WriteConfig) -> None:
    config_file("")
    settings = load_settings()
    with pytest.raises(NoSecretError, match="crossdeck wallet import") as info:
        resolve_wallet_key(settings)
    assert info.value.exit_code == ExitCode.NO_SECRET
    assert resolve_api_key(settings) is None
    assert resolve_wallet_address(settings) is None

    address = keystore.store_wallet_key("mainnet", DEMO_KEY)
    keystore.store_api_key("mainnet", "mainnet-api-key")
    assert resolve_wallet_key(settings).get_secret_value() == DEMO_KEY
    assert resolve_wallet_address(settings) == address == DEMO_ADDRESS
    api_key = resolve_api_key(settings)
    assert api_key is not None and api_key.get_secret_value() == "mainnet-api-key"


def test_redacted_dump_hides_every_secret(config_file: WriteConfig, world_file: Path) -> None:
    config_file("")
    dumped = redacted_dump(load_settings(world=world_file))
    text = json.dumps(dumped)
    assert DEMO_KEY not in text and DEMO_KEY[2:] not in text
    assert DEMO_API_KEY not in text
    assert dumped["world"]["wallet_key"] == "<set>"
    assert dumped["world"]["api_key"] == "<set>"
    assert dumped["world"]["wallet_address"] == DEMO_ADDRESS
    assert dumped["service"]["url"] == "http://127.0.0.1:41001"

    no_key_world = json.loads(world_file.read_text())
    no_key_world["api_key"] = None
    world_file.write_text(json.dumps(no_key_world))
    assert redacted_dump(load_settings(world=world_file))["world"]["api_key"] == "<unset>"
    assert redacted_dump(load_settings("mainnet"))["world"] is None


def test_redacted_dump_hides_a_key_in_an_rpc_url(
    config_file: WriteConfig, world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file("")
    monkeypatch.setenv("CROSSDECK_RPC__8453", "https://user:PASS@base.example/v2/KEY?k=QKEY")
    monkeypatch.setenv("CROSSDECK_RPC__999", "http://127.0.0.1:8545")
    rpc = redacted_dump(load_settings(world=world_file))["rpc"]
    assert rpc["8453"] == "https://base.example/<redacted>"
    assert rpc["999"] == "http://127.0.0.1:8545"


def test_every_field_is_documented() -> None:
    # read from the source, as a reader of config.py sees them (the models do not load them)
    import ast
    import inspect

    import crossdeck.config

    tree = ast.parse(inspect.getsource(crossdeck.config))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    from crossdeck.base.settings_schema import field_types
    from crossdeck.config import WorldInfo

    sections = [Settings, WorldInfo, *field_types(Settings).values()]
    checked = 0
    for model in sections:
        if not dataclasses.is_dataclass(model) or model.__name__ not in classes:
            continue
        body = classes[model.__name__].body
        documented = {
            field.target.id
            for field, after in itertools.pairwise(body)
            if isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        }
        for name in field_types(model):
            assert name in documented, f"{model.__name__}.{name} has no docstring"
            checked += 1
    assert checked >= 30  # every section's fields were read


def test_env_tables_and_keys(config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    config_file("")
    monkeypatch.setenv("CROSSDECK_SERVICE", '{"url": "https://json.example", "max_retries": 1}')
    monkeypatch.setenv("crossdeck_service__timeout_seconds", "5")  # any case
    monkeypatch.setenv("CROSSDECK_RPC", '{"8453": "https://base.example"}')
    monkeypatch.setenv("CROSSDECK_THEME", "")  # empty: left alone
    monkeypatch.setenv("CROSSDECK_ANVIL", "/no/such/anvil")  # not a setting: left alone
    settings = load_settings()
    assert settings.service.url == "https://json.example"
    assert settings.service.max_retries == 1
    assert settings.service.timeout_seconds == 5.0
    assert settings.rpc[8453] == "https://base.example"
    assert settings.theme == "crossdeck-dark"


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("CROSSDECK_SERVICE", "not json", "CROSSDECK_SERVICE is not a JSON object"),
        ("CROSSDECK_SERVICE__BOGUS", "1", r"service\.bogus"),
        ("CROSSDECK_RPC__8453", "ftp://x", r"rpc\.8453"),
    ],
)
def test_bad_env_settings_are_clear_errors(
    config_file: WriteConfig,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    value: str,
    expected: str,
) -> None:
    config_file("")
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=expected):
        load_settings()


def test_the_gas_limit_multiple_is_a_setting(
    config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crossdeck.execute.guards.gas import DEFAULT_GAS_LIMIT_MULTIPLE

    config_file("")
    assert load_settings().guards.gas_limit_multiple == DEFAULT_GAS_LIMIT_MULTIPLE == 2
    config_file("[guards]\ngas_limit_multiple = 3\n")
    assert load_settings().guards.gas_limit_multiple == 3
    monkeypatch.setenv("CROSSDECK_GUARDS__GAS_LIMIT_MULTIPLE", "0.9")  # below what it uses
    with pytest.raises(ConfigError, match=r"guards\.gas_limit_multiple"):
        load_settings()


def test_the_fee_cap_multiple_is_a_setting(
    config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crossdeck.execute.guards.chain import DEFAULT_FEE_CAP_MULTIPLE

    config_file("")
    assert load_settings().guards.fee_cap_multiple == DEFAULT_FEE_CAP_MULTIPLE  # one default
    config_file("[guards]\nfee_cap_multiple = 5\n")
    assert load_settings().guards.fee_cap_multiple == 5
    monkeypatch.setenv("CROSSDECK_GUARDS__FEE_CAP_MULTIPLE", "1.5")
    assert load_settings().guards.fee_cap_multiple == 1.5
    monkeypatch.setenv("CROSSDECK_GUARDS__FEE_CAP_MULTIPLE", "0.5")  # would refuse every fee
    with pytest.raises(ConfigError, match=r"guards\.fee_cap_multiple"):
        load_settings()
