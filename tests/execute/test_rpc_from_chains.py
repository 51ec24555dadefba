"""RPCs from /chains: where the settings name no RPC for a chain, crossdeck uses the service's
/chains `httpRpcUrl` for it and says which URL (stderr); an RPC the settings name wins."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from execute_support import ETH, NATIVE, Cli, fund, new_address

from crossdeck.execute.gateways import rpc_from_chains
from crossdeck.models import ChainsResponse


def _without_rpc(cli: Cli, chain_id: int, replacement: str | None = None) -> None:
    info = json.loads(cli.world_file.read_text())
    if replacement is None:
        info["rpc"].pop(str(chain_id))
    else:
        info["rpc"][str(chain_id)] = replacement
    cli.world_file.write_text(json.dumps(info))


def native(*extra: str) -> list[str]:
    return [
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(), *extra,
    ]  # fmt: skip


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    made = Cli(world, tmp_path)
    asyncio.run(fund(world, made.address, native={8453: ETH}))
    return made


def test_bridge_uses_the_chains_rpc_and_says_which(cli: Cli, world: Any) -> None:
    _without_rpc(cli, 8453)
    chains = httpx.get(f"{world.service_url}/chains").json()["chains"]
    [base] = [c for c in chains if c["id"] == 8453]
    result = cli.invoke("bridge", *native("--yes", "--json"))
    assert result.exit_code == 0, result.output
    note = f"chain 8453: RPC {base['httpRpcUrl']} (the service's /chains httpRpcUrl"
    assert note in result.stderr
    assert "take the service's node's word: set your own with CROSSDECK_RPC__8453" in result.stderr
    assert base["httpRpcUrl"] == world.rpc[8453]  # the world's own node, as its /chains says


def test_quote_checks_with_the_chains_rpc(cli: Cli) -> None:
    _without_rpc(cli, 8453)
    result = cli.invoke("quote", *native())
    assert result.exit_code == 0, result.output
    assert "chain 8453: RPC http" in result.stderr
    assert "rpc-configured: FAILED" not in result.stdout
    assert "funds: ok: the wallet holds 1 ETH on chain 8453" in result.stdout


def test_the_settings_rpc_wins(cli: Cli) -> None:
    dead = "http://127.0.0.1:9"  # nothing listens: the settings' word is kept even so
    _without_rpc(cli, 8453, replacement=dead)
    result = cli.invoke("quote", *native(), CROSSDECK_SERVICE__MAX_RETRIES="0")
    assert "/chains httpRpcUrl" not in result.stderr
    assert "funds: ok" not in result.stdout


def test_only_evm_chains_with_a_web_url_are_taken() -> None:
    chains = ChainsResponse.from_wire(
        {
            "chains": [
                {"id": 1, "name": "one", "httpRpcUrl": "https://one.example", "vmType": "evm"},
                {"id": 2, "name": "two", "httpRpcUrl": "https://two.example", "vmType": "evm"},
                {"id": 3, "name": "sol", "httpRpcUrl": "https://sol.example", "vmType": "svm"},
                {"id": 6, "name": "hyp", "httpRpcUrl": "https://hyp.example", "vmType": "hypevm"},
                {"id": 4, "name": "bad", "httpRpcUrl": "file:///etc/passwd", "vmType": "evm"},
                {"id": 5, "name": "none", "vmType": "evm"},
            ]
        }
    )
    assert rpc_from_chains({2: "http://mine"}, chains) == {
        1: "https://one.example",
        6: "https://hyp.example",
    }
