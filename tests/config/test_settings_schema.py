"""The settings' own validator (`crossdeck.base.settings_schema`) and secret type
(`crossdeck.base.secret`): coercion as env strings and TOML need it, bounds, every problem at
once by dotted path, and no secret in any repr, message or pickle."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Literal

import pytest

from crossdeck.base.secret import Secret
from crossdeck.base.settings_schema import HttpUrl, SettingsError, json_ready, parse, setting
from crossdeck.config import (
    GuardSettings,
    ServiceSettings,
    Settings,
    SignerSettings,
    VenueSettings,
    WorldInfo,
)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class _Inner:
    level: int = setting(1, ge=0, le=9)
    kind: Literal["a", "b"] = "a"


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class _Outer:
    url: HttpUrl
    ratio: float = setting(1.0, gt=0)
    on: bool = False
    where: Path | None = None
    key: Secret | None = None
    urls: dict[int, HttpUrl] = dataclasses.field(default_factory=dict)
    inner: _Inner = dataclasses.field(default_factory=_Inner)


def _problems(data: object) -> list[tuple[str, str]]:
    with pytest.raises(SettingsError) as info:
        parse(_Outer, data)
    return info.value.problems


def test_values_are_coerced_as_env_strings_and_toml_give_them() -> None:
    got = parse(
        _Outer,
        {
            "url": " https://x.example/ ",
            "ratio": "0.5",
            "on": "yes",
            "where": "/tmp/a",
            "key": "k-1",
            "urls": {"8453": "http://127.0.0.1:1/"},
            "inner": {"level": "3", "kind": "b"},
        },
    )
    assert got == _Outer(
        url="https://x.example",
        ratio=0.5,
        on=True,
        where=Path("/tmp/a"),
        key=Secret("k-1"),
        urls={8453: "http://127.0.0.1:1"},
        inner=_Inner(level=3, kind="b"),
    )
    assert parse(_Outer, {"url": "http://a", "on": 0, "inner": {"level": 2.0}}).inner.level == 2
    assert parse(_Outer, {"url": "http://a", "key": None}).key is None
    defaults = parse(_Outer, {"url": "http://a"})
    assert defaults.inner == _Inner() and defaults.urls == {}
    assert defaults.urls is not parse(_Outer, {"url": "http://a"}).urls  # a fresh default


def test_every_problem_is_named_by_its_dotted_path_at_once() -> None:
    problems = dict(
        _problems(
            {
                "ratio": 0,
                "on": "perhaps",
                "urls": {"x": "http://a", "10": "ftp://b"},
                "inner": {"level": 12, "kind": "c", "extra": 1},
                "other": True,
            }
        )
    )
    assert problems == {
        "url": "is required",
        "ratio": "must be > 0 (got 0.0)",
        "on": "must be true or false (got a string)",
        "urls.x": "must be a whole number (got a string)",
        "urls.10": "must be an http:// or https:// URL",
        "inner.level": "must be <= 9 (got 12)",
        "inner.kind": "must be one of 'a', 'b'",
        "inner.extra": "is not a known key here (extra keys are not permitted)",
        "other": "is not a known key here (extra keys are not permitted)",
    }
    assert _problems(["not", "a", "table"]) == [("", "must be a table (got a list)")]
    assert "(top level): must be a table" in str(SettingsError(_problems(3)))


def test_no_string_value_is_repeated_in_a_message() -> None:
    secret = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcaf784d7bf4f2ff80"
    for data in (
        {"url": secret},
        {"url": "http://a", "ratio": secret},
        {"url": "http://a", "inner": {"kind": secret}},
        {"url": "http://a", "urls": {secret: "http://b"}},
        {"url": "http://a", "key": 5, secret: 1},
    ):
        with pytest.raises(SettingsError) as info:
            parse(_Outer, data)
        assert secret not in str(info.value) and secret[2:] not in str(info.value)


def test_extra_keys_may_be_ignored_where_a_file_has_more_than_we_read() -> None:
    got = parse(_Outer, {"url": "http://a", "chains": [1], "inner": {"x": 1}}, extra="ignore")
    assert got.url == "http://a" and got.inner == _Inner()


def test_numbers_refuse_flags_and_non_finite_values() -> None:
    problems = dict(_problems({"url": "http://a", "ratio": "nan", "inner": {"level": True}}))
    assert problems == {
        "ratio": "must be a finite number (got a string)",
        "inner.level": "must be a whole number (got True)",
    }


def test_sections_change_with_replace_and_stay_frozen() -> None:
    guards = GuardSettings()
    assert dataclasses.replace(guards, fee_cap_multiple=5).fee_cap_multiple == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        guards.fee_cap_multiple = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        GuardSettings(2.0)  # type: ignore[misc]  # keyword only
    assert parse(SignerSettings, {"kind": "browser", "browser_port": "8123"}).browser_port == 8123


def test_a_secret_never_prints_pickles_or_dumps() -> None:
    key = "0x" + "ab" * 32
    world = WorldInfo(file=Path("w.json"), wallet_address="0x1", wallet_key=Secret(key))
    settings = Settings(
        profile="demo",
        service=ServiceSettings(url="http://127.0.0.1:1"),
        venue=VenueSettings(url="http://127.0.0.1:2"),
        world=world,
    )
    for text in (repr(settings), str(settings), f"{world.wallet_key}", str(json_ready(settings))):
        assert key not in text and "ab" * 32 not in text
    assert world.wallet_key.get_secret_value() == key
    assert world.wallet_key == Secret(key) and world.wallet_key != key
    assert not Secret("") and Secret("x")
    with pytest.raises(TypeError):
        pickle.dumps(world.wallet_key)
    with pytest.raises(TypeError):
        Secret(Secret(key))  # type: ignore[arg-type]
