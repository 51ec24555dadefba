"""The status-tracking section is `[track]` (issue 37: `[track] websocket = true|false`);
`[tracking]`, its earlier name, is still read, with a note; both at once are refused."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from crossdeck.config import ConfigError, load_settings, redacted_dump

WriteConfig = Callable[[str], Path]


def test_track_sets_the_websocket_and_the_polls(config_file: WriteConfig) -> None:
    config_file("[track]\nwebsocket = false\npoll_interval_seconds = 0.5\n")
    settings = load_settings()
    assert settings.tracking.websocket is False
    assert settings.tracking.poll_interval_seconds == 0.5
    # the mainnet profile's own URL is kept: a section set in the file goes key by key
    assert settings.tracking.websocket_url == "wss://ws.relay.link"
    dumped = redacted_dump(settings)
    assert dumped["track"]["websocket"] is False and "tracking" not in dumped


def test_the_old_name_is_read_with_a_note(
    config_file: WriteConfig, caplog: pytest.LogCaptureFixture
) -> None:
    config_file("[tracking]\nwebsocket = false\n[profiles.mainnet.track]\ntimeout_seconds = 90\n")
    with caplog.at_level(logging.WARNING, logger="crossdeck.config"):
        settings = load_settings()
    assert settings.tracking.websocket is False
    assert settings.tracking.timeout_seconds == 90  # the profile's [track] over the shared one
    assert any("[tracking] at top level is read as [track]" in r.message for r in caplog.records)


def test_both_names_in_one_table_are_refused(config_file: WriteConfig) -> None:
    config_file("[track]\nwebsocket = true\n[tracking]\nwebsocket = false\n")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "both [track] and [tracking]" in str(caught.value)


def test_the_environment_names_it_either_way(
    config_file: WriteConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file("[track]\nwebsocket = false\ntimeout_seconds = 90\n")
    monkeypatch.setenv("CROSSDECK_TRACK__WEBSOCKET", "true")
    monkeypatch.setenv("CROSSDECK_TRACKING__TIMEOUT_SECONDS", "30")
    settings = load_settings()
    assert settings.tracking.websocket is True  # the environment over the file
    assert settings.tracking.timeout_seconds == 30
