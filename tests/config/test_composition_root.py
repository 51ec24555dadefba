"""The composition root (`crossdeck.compose`): one reading of the settings for the CLI and the app.

Each setting that shapes a client has one default (in `Settings`), and the clients the CLI's
commands and the app's `Services` use are the ones `compose` builds: same retry policy, same
timeouts, same answer to a fault of the world on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from crossdeck import compose
from crossdeck.api.errors import ServiceUnavailableError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.cli.support import service_client
from crossdeck.config import (
    DEFAULT_MAX_RETRIES,
    ServiceSettings,
    Settings,
    VenueSettings,
    load_settings,
)
from crossdeck.retry import NO_RETRY
from crossdeck.tui.services import Services


def _default(section: type[Any], name: str) -> Any:
    return next(f.default for f in dataclasses.fields(section) if f.name == name)


DEFAULT_RETRIES = _default(ServiceSettings, "max_retries")


def test_the_service_and_the_venue_share_one_default_retry_count() -> None:
    assert DEFAULT_RETRIES == _default(VenueSettings, "max_retries")
    assert DEFAULT_RETRIES == DEFAULT_MAX_RETRIES


@pytest.fixture(autouse=True)
def empty_config(config_file: Callable[[str], Path]) -> None:
    config_file("")  # every setting at its default


def live_world_file(world: Any, directory: Path) -> Path:
    path = directory / "live-world.json"
    path.write_text(json.dumps(world.info))
    return path


async def run_cli(world_file: Path, *args: str) -> Result:
    # the CLI calls asyncio.run itself, so it runs in a thread while this loop serves
    runner = CliRunner()
    return await asyncio.to_thread(
        runner.invoke, main, ["--world", str(world_file), *args], catch_exceptions=False
    )


async def test_one_default_for_max_retries_in_the_cli_and_the_app(world_file: Path) -> None:
    settings = load_settings(None, world_file)
    assert isinstance(DEFAULT_RETRIES, int) and settings.service.max_retries == DEFAULT_RETRIES
    app = Services(settings, compose.read_secrets(settings))
    async with service_client(settings) as cli_client:
        assert cli_client.retry.max_attempts == DEFAULT_RETRIES + 1
        assert app.service.retry == cli_client.retry == compose.retry_policy(settings)
        assert app.service.base_url == cli_client.base_url
        assert app.service.has_api_key and cli_client.has_api_key  # the world's key, read once
        async with compose.venue_client(settings) as venue:
            assert venue.retry == app.venue.retry
            assert venue.retry.max_attempts == DEFAULT_RETRIES + 1
    await app.aclose()


async def test_a_configured_retry_count_reaches_every_client(
    world_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROSSDECK_SERVICE__MAX_RETRIES", "1")
    monkeypatch.setenv("CROSSDECK_VENUE__MAX_RETRIES", "0")
    settings = load_settings(None, world_file)
    app = Services(settings, compose.read_secrets(settings))
    async with service_client(settings) as cli_client:
        assert cli_client.retry.max_attempts == 2 == app.service.retry.max_attempts
        assert app.venue.retry.max_attempts == 1  # each section its own count
        # the tracker paces 429s for every request at once: its client never sleeps one out
        async with compose.service_client(settings, None, for_tracker=True) as tracking:
            assert tracking.retry == NO_RETRY
    await app.aclose()


async def test_cli_and_app_clients_meet_a_world_fault_the_same_way(
    world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROSSDECK_SERVICE__MAX_RETRIES", "1")
    path = live_world_file(world, tmp_path)
    settings: Settings = load_settings(None, path)

    # one 503 is within the one retry the settings allow: both read /chains
    world.faults.inject("503", 1, path="/chains")
    result = await run_cli(path, "chains")
    assert result.exit_code == 0, result.output
    world.faults.inject("503", 1, path="/chains")
    app = Services(settings, compose.read_secrets(settings))
    try:
        chains = await app.chains()
        assert chains.by_id(1337) is not None

        # two are one more than allowed: both give up with the service's word
        world.faults.inject("503", 2, path="/chains")
        result = await run_cli(path, "chains")
        assert result.exit_code == ExitCode.SERVICE_ERROR, result.output
        assert "HTTP 503" in result.stderr
        world.faults.inject("503", 2, path="/chains")
        with pytest.raises(ServiceUnavailableError):
            await app.chains(refresh=True)
    finally:
        await app.aclose()


async def test_the_app_s_tracker_and_executor_are_built_from_the_settings(
    world: Any, tmp_path: Path
) -> None:
    from crossdeck.execute import approve_all

    settings = load_settings(None, live_world_file(world, tmp_path))
    app = Services(settings, compose.read_secrets(settings))
    try:
        tracker = await app.start_tracking(lambda problem: None)
        assert tracker.policy == compose.poll_policy(settings)
        executor = await app.executor(approve_all)
        try:
            assert executor.service is app.service and executor.venue is app.venue
            assert executor.follower is tracker  # one poller for the app, not two
            # the EVM chains; Solana's RPC is the Solana gateway's, Bitcoin's the Bitcoin one's,
            # and so is the world's second SVM chain's (Eclipse) once /chains says it is one
            executor.gateways.adopt(await app.service.chains())
            evm = frozenset(settings.rpc) - {792703809, 8253038, 9286185}
            assert executor.gateways.chain_ids == evm
            assert executor.journal.path.parent == settings.data_dir
        finally:
            await app.close_executor(executor)
    finally:
        await app.aclose()


def test_a_bad_timeout_is_refused_before_anything_is_built(world_file: Path) -> None:
    from crossdeck.base.errors import InputError

    settings = load_settings(None, world_file)
    with pytest.raises(InputError, match="--timeout"):
        compose.poll_policy(settings, timeout=0)
    assert compose.poll_policy(settings, timeout=7).timeout == 7
