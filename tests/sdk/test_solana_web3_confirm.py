"""The public @solana/web3.js (pinned in tools/package.json) against the world's Solana, as the
service's SDK Solana adapter uses it: a world deposit (the quote's instructions and lookup table
compiled into a v0 message) is sent, and `confirmTransaction` on a Connection whose websocket is
the `wsRpcUrl` /chains names resolves; `onSignature`, the websocket alone, is notified too."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from solders.keypair import Keypair

TOOLS = Path(__file__).resolve().parents[2] / "tools"
SCRIPT = Path(__file__).with_name("solana_confirm.mjs")
SOLANA = 792703809
ECLIPSE = 9286185  # the world's second SVM chain: its own node and wsRpcUrl


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the SDK tests (CI installs it)", pytrace=False)
    if not (TOOLS / "node_modules" / "@solana" / "web3.js").is_dir():
        pytest.fail(
            "@solana/web3.js is not installed: run ./scripts/bootstrap.sh --tools",
            pytrace=False,
        )
    return node


@pytest.mark.parametrize("chain_id", [SOLANA, ECLIPSE], ids=["solana", "eclipse"])
def test_confirm_transaction_of_a_world_deposit_resolves_over_ws_rpc_url(
    world: Any, chain_id: int
) -> None:
    node = _node()
    keypair = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    args = {
        "tools_dir": str(TOOLS),
        "service_url": world.service_url,
        "chain_id": chain_id,
        "secret_key": list(bytes(keypair)),
        "recipient": world.wallet_address,
    }
    done = subprocess.run(
        [node, str(SCRIPT), json.dumps(args)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["confirmed"]["err"] is None
    assert result["notified"] == {"err": None}  # the signatureNotification itself
    deadline = time.monotonic() + 30
    status = None
    while time.monotonic() < deadline:
        status = httpx.get(
            world.service_url + "/intents/status/v3", params={"requestId": result["requestId"]}
        ).json()
        if status.get("status") in ("success", "failure", "refund"):
            break
        time.sleep(0.2)
    assert status is not None and status["status"] == "success", status
    assert result["signature"] in status["inTxHashes"]
