"""`crossdeck balances` of a fresh wallet against the in-process world, and the chains' own
answers to hold it to."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner, Result
from eth_account import Account

from helpers.funding import new_key

VENUE_DECIMALS = 8


@dataclass
class Wallet:
    """A fresh wallet with a world file and a config of its own, in `home`."""

    world: Any
    home: Path

    def __post_init__(self) -> None:
        self.key = new_key()
        self.address = Account.from_key(self.key).address
        (self.home / "config.toml").write_text("")
        self.world_file = self.write_world()

    def write_world(self, **rpc: str) -> Path:
        """The world file, with some chains' RPC URLs replaced (`rpc={"999": url}`)."""
        info = dict(self.world.info)
        info["wallet"] = {"address": self.address, "private_key": self.key}
        info["rpc"] = {**info["rpc"], **rpc}
        path = self.home / "world.json"
        path.write_text(json.dumps(info))
        return path

    def invoke(self, *args: str, **env: str) -> Result:
        environment: dict[str, str | None] = {
            k: None for k in os.environ if k.startswith("CROSSDECK_") and k != "CROSSDECK_ANVIL"
        }
        environment.update(
            CROSSDECK_CONFIG=str(self.home / "config.toml"),
            CROSSDECK_DATA_DIR=str(self.home / "data"),
            CROSSDECK_TRACKING__POLL_INTERVAL_SECONDS="0.05",
            CROSSDECK_TRACKING__POLL_INTERVAL_CAP_SECONDS="0.5",
        )
        environment.update(env)
        runner = CliRunner(env=environment)
        return runner.invoke(main_command(), ["--world", str(self.world_file), *args])

    def balances(self, *args: str, **env: str) -> dict[str, Any]:
        result = self.invoke("balances", "--json", *args, **env)
        assert result.exit_code == 0, result.output
        document: dict[str, Any] = json.loads(result.stdout)
        return document


def main_command() -> Any:
    from crossdeck.cli import main

    return main


def rpc(url: str, method: str, *params: Any) -> Any:
    reply = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return reply.json()["result"]


def chain_balance(world: Any, chain_id: int, owner: str) -> int:
    """The chain's own eth_getBalance."""
    return int(rpc(world.rpc[chain_id], "eth_getBalance", owner, "latest"), 16)


def chain_usdc(world: Any, chain_id: int, owner: str) -> int:
    """The chain's own balanceOf on its USDC."""
    data = "0x70a08231" + owner[2:].lower().rjust(64, "0")
    usdc = world.chains[chain_id].usdc
    return int(rpc(world.rpc[chain_id], "eth_call", {"to": usdc, "data": data}, "latest"), 16)


def rows(document: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    """Holdings by (chain id, lower-case currency address)."""
    return {(h["chainId"], h["currency"].lower()): h for h in document["holdings"]}
