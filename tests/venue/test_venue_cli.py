"""`crossdeck venue balance` against the world's venue."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from eth_account.signers.local import LocalAccount

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from helpers.fault_proxy import Fault

from .conftest import KEY_0, WorldVenue


@pytest.fixture
def world(
    venue: WorldVenue, wallet: LocalAccount, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_VENUE__URL"):
        monkeypatch.delenv(name, raising=False)
    # no service here: `venue balance` says once that it cannot name the HIP-3 DEXes
    monkeypatch.setenv("CROSSDECK_SERVICE__MAX_RETRIES", "0")
    path = tmp_path / "world.json"
    path.write_text(
        json.dumps(
            {
                "service_url": "http://127.0.0.1:9",
                "venue_url": venue.url,
                "rpc": {"8453": "http://127.0.0.1:9"},
                "wallet": {"address": wallet.address, "private_key": KEY_0},
                "api_key": "k",
            }
        )
    )
    return path


async def run(world: Path, *args: str) -> Result:
    runner = CliRunner()
    return await asyncio.to_thread(
        runner.invoke, main, ["--world", str(world), *args], catch_exceptions=False
    )


async def test_balance_of_the_wallet_in_words(
    venue: WorldVenue, wallet: LocalAccount, world: Path
) -> None:
    venue.fund(wallet.address, perps="1234.5", USDC="7.25", USDe="3")
    result = await run(world, "venue", "balance")
    assert result.exit_code == 0, result.output
    assert f"venue account {wallet.address}" in result.stdout
    assert "account mode  standard (default)" in result.stdout
    assert "  perps        1,234.5 USDC" in result.stdout
    assert "  spot         7.25 USDC" in result.stdout
    assert "spot USDE    3 USDE" in result.stdout  # the name as the venue writes it
    assert "withdrawable  1,234.5 USDC from perps" in result.stdout
    assert "max withdraw  1,233.5 USDC (first-send fee 1 USDC" in result.stdout
    bodies = [json.loads(raw) for raw in venue.received["/info"]]
    # the mode first (as the public UI kit reads it), then the books and the rest of the account
    assert sorted(b["type"] for b in bodies) == sorted(
        ["userAbstraction", "clearinghouseState", "spotClearinghouseState", "subAccounts",
         "userVaultEquities", "userNonFundingLedgerUpdates"]
    )  # fmt: skip
    assert all(b["user"] == wallet.address for b in bodies)


async def test_balance_of_another_address_as_json(
    venue: WorldVenue, other_wallet: LocalAccount, world: Path
) -> None:
    venue.fund(other_wallet.address, perps="0.5")
    result = await run(world, "venue", "balance", other_wallet.address, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["address"] == other_wallet.address
    assert data["perps"]["withdrawable"] == "0.5"
    assert data["spot"]["balances"] == []
    # no service to name the HIP-3 DEXes: unknown (null), said once on stderr, not "none"
    assert data["dexes"] is None
    assert "HIP-3 DEX balances left out" in result.stderr


async def test_balance_errors(venue: WorldVenue, world: Path) -> None:
    bad = await run(world, "venue", "balance", "0x1234")
    assert bad.exit_code == ExitCode.INVALID_INPUT
    assert venue.received["/info"] == []
    venue.fail("/info", Fault(422, "Failed to deserialize the JSON body"))
    refused = await run(world, "venue", "balance")
    assert refused.exit_code == ExitCode.SERVICE_ERROR
    assert "HTTP 422" in refused.stderr and "Failed to deserialize" in refused.stderr
