"""The service's public TypeScript SDK (npm @relayprotocol/relay-sdk with viem, pinned in
tools/package.json) runs three transfers against the demo world in its public brand:

- a USDC deposit to the venue (8453 -> 1337: approve, then deposit),
- a venue withdrawal (1337 -> 8453, protocolVersion v2: authorize, then the signed sendAsset),
- a native bridge (8453 -> 999).

Each is driven by our own script, relay_sdk_flows.mjs (the SDK's public API only: createClient,
configureDynamicChains on the world's /chains, getQuote, execute, a viem wallet client on the
world's RPC), and confirmed with GET /intents/status/v3 reaching success, polled every 1 s
within a bounded time. The SDK sends a venue withdrawal's sendAsset to the venue's public host,
which it hard-codes: the script redirects that one URL to the world's venue.

The SDK waits on every item's `check` until the request succeeds; an item whose completion the
service cannot see (the approve, the authorize) must carry none or the SDK stalls on it.

The SDK's websocket mode runs on a world paced like a chain (a stage every 0.5 s): the socket
pushes only what changes after a subscription (the world's reading, which the SDK's design
shares: it subscribes while it sends the last transaction and never reads the status itself),
and at speed 0 the world can see the deposit, fill it and publish success before the SDK's
subscribe frame is read, which no real chain's block time allows. The SDK then waits for an
event that has already gone (seen once in CI on anvil, and 1 run in 10 under load).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"
SCRIPT = Path(__file__).with_name("relay_sdk_flows.mjs")
SOCKET_WORLD_SPEED = 2.0
"""0.5 s between pending, submitted and success: a second from the deposit to success, against
the tens of milliseconds the SDK takes to open its socket and subscribe (0.05 s seen under load)."""
FLOW_TIMEOUT_S = 90  # the script's own bound on a flow; the process gets 60 s more
FLOWS = ("usdc-deposit", "venue-withdrawal", "native-bridge", "same-chain-swap")
EXPECTED_STEPS = {
    "usdc-deposit": ["approve", "deposit"],
    # the SDK turns the venue transfer step into its own 'hyperliquid-signature' step
    "venue-withdrawal": ["authorize", "hyperliquid-signature"],
    "native-bridge": ["deposit"],
    # self-executed through the world's router, as the public service quotes it by default
    "same-chain-swap": ["swap"],
}


def _require_sdk() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the SDK tests (CI installs it)", pytrace=False)
    if not (TOOLS / "node_modules" / "@relayprotocol" / "relay-sdk").is_dir():
        pytest.fail(
            "the TypeScript SDK is not installed: run ./scripts/bootstrap.sh --tools",
            pytrace=False,
        )
    return node


@pytest.fixture(scope="module", params=["py-evm", pytest.param("anvil", marks=pytest.mark.anvil)])
def public_world(request: pytest.FixtureRequest, start_world: Any) -> Iterator[Any]:
    with start_world(request.param, brand="public") as world:
        yield world


@pytest.fixture(scope="module", params=["py-evm", pytest.param("anvil", marks=pytest.mark.anvil)])
def paced_public_world(request: pytest.FixtureRequest, start_world: Any) -> Iterator[Any]:
    with start_world(request.param, brand="public", speed=SOCKET_WORLD_SPEED) as world:
        yield world


def run_flow(world: Any, flow: str, *, websocket: bool = False) -> dict[str, Any]:
    node = _require_sdk()
    args: dict[str, Any] = {
        "tools_dir": str(TOOLS),
        "service_url": world.service_url,
        "venue_url": world.venue_url,
        "rpc": world.info["rpc"],
        "private_key": world.wallet_key,
        "flow": flow,
        "timeout_s": FLOW_TIMEOUT_S,
    }
    if websocket:  # the SDK's websocket mode, on the world's status socket
        args["websocket_url"] = world.ws_url
    done = subprocess.run(
        [node, str(SCRIPT), json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=FLOW_TIMEOUT_S + 60,
        check=False,
    )
    assert done.returncode == 0, f"{flow}: exit {done.returncode}\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def status_v3(world: Any, request_id: str) -> dict[str, Any]:
    import httpx

    answer = httpx.get(
        f"{world.service_url}/intents/status/v3", params={"requestId": request_id}, timeout=10
    )
    answer.raise_for_status()
    return answer.json()


@pytest.mark.parametrize("flow", FLOWS)
def test_sdk_flow_reaches_success(public_world: Any, flow: str) -> None:
    result = run_flow(public_world, flow)
    assert result["status"] == "success", result
    assert [s["id"] for s in result["steps"]] == EXPECTED_STEPS[flow]
    assert all(item == "complete" for s in result["steps"] for item in s["items"]), result
    # the world agrees, and names the origin of the request the SDK executed
    status = status_v3(public_world, result["requestId"])
    assert status["status"] == "success"
    assert status["inTxHashes"] and status["txHashes"]
    origin = {"venue-withdrawal": 1337}.get(flow, 8453)
    assert status["originChainId"] == origin


@pytest.mark.parametrize("flow", ["native-bridge", "usdc-deposit"])
def test_sdk_websocket_mode_follows_the_world_socket_to_success(
    paced_public_world: Any, flow: str
) -> None:
    hub = paced_public_world.status_socket
    before = hub.subscriptions
    result = run_flow(paced_public_world, flow, websocket=True)
    assert result["status"] == "success", result
    assert [s["id"] for s in result["steps"]] == EXPECTED_STEPS[flow]
    assert all(item == "complete" for s in result["steps"] for item in s["items"]), result
    # the SDK subscribed on the world's socket (it opens one per request, for the last step)
    assert hub.subscriptions > before
