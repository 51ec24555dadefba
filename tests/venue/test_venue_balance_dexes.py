"""`crossdeck venue balance` shows each HIP-3 DEX's balance beside perps and spot, in words and
in `--json`, for the DEXes the service's /chains lists (as the app's Venue screen does):
against the whole world (its service and its venue)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from eth_account import Account

from crossdeck.cli import main
from crossdeck.sim.venue import HIP3_DEXES, PERPS_USDC_ADDRESS, USDC_DECIMALS, hip3_address


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(path))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD", "CROSSDECK_VENUE__URL"):
        monkeypatch.delenv(name, raising=False)


def _balance(world_file: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--world", str(world_file), "venue", "balance", *args])


@pytest.mark.usefixtures("config")
def test_every_hip3_dex_in_words_and_json(world: Any, world_file: Path) -> None:
    user = Account.create().address
    [dex] = HIP3_DEXES
    unit = 10**USDC_DECIMALS
    world.ledger.credit(user, PERPS_USDC_ADDRESS, 12 * unit)
    world.ledger.credit(user, hip3_address(dex.collateral.token_id, dex.name), 3 * unit // 2)

    words = _balance(world_file, user)
    assert words.exit_code == 0, words.output
    assert "  perps        12 USDC" in words.stdout
    assert f"  HIP-3 {dex.name:<6} 1.5 USDC" in words.stdout

    as_json = _balance(world_file, user, "--json")
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    assert data["perps"]["withdrawable"] == "12.0"
    assert list(data["dexes"]) == [dex.name]
    assert data["dexes"][dex.name]["withdrawable"] == "1.5"
    assert as_json.stderr == ""
