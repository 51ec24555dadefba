"""Time to success of a transfer, whole process: `crossdeck bridge --yes` against the service's
public TypeScript SDK executing the same quote on the same world. Prints the anchor, crossdeck's
figure and the ratio; nothing here is a test (tests never assert times).

    .venv/bin/python bench/transfer_bench.py [--runs 5] [--flows native,deposit,withdraw]

Flows, each on one demo world at `--speed 0` in the public brand (so the public SDK can talk to
it) that this script starts (py-evm chains):
- native: 0.01 native 8453 -> 999;
- deposit: 10 USDC on 8453 -> the venue (chain 1337);
- withdraw: 2 perps USDC from the venue -> USDC on 8453. Its goal is not a ratio but the
  client's overhead: the whole process minus the world's configured delays (none at speed 0).

Each run is a fresh `crossdeck --world FILE bridge --yes --json ...` process (imports included),
timed from spawn to exit 0 after its `Finished` line says success. The anchor is a fresh Node
process running tests/sdk/relay_sdk_flows.mjs (the SDK's getQuote and `execute` of the same
transfer, polling every 1 s, also whole process) on the same world; crossdeck and anchor runs
alternate, so load from other processes falls on both alike; figures are medians. Each figure
also gives the process's CPU time (user + system), which load from other processes does not
inflate: on a busy machine the wall times grow with the load, the CPU times do not. Goals (issue
15): native and deposit <= 0.5x the anchor; withdrawal overhead <= 0.3 s.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))
# the Node script that runs one transfer through the public SDK against the world (tests/sdk)
SDK_SCRIPT = ROOT / "tests" / "sdk" / "relay_sdk_flows.mjs"
SDK_FLOWS = {"native": "native-bridge", "deposit": "usdc-deposit"}  # the script's flow names
SDK_TIMEOUT_S = 90
NATIVE = "0x" + "0" * 40
PERPS_USDC = "0x" + "0" * 32
RATIO_GOAL = 0.5
OVERHEAD_GOAL_S = 0.3


def _flows(usdc: str) -> dict[str, list[str]]:
    return {
        "native": [
            "--origin-chain", "8453", "--origin-currency", NATIVE,
            "--destination-chain", "999", "--destination-currency", NATIVE,
            "--amount-human", "0.01",
        ],
        "deposit": [
            "--origin-chain", "8453", "--origin-currency", usdc,
            "--destination-chain", "1337", "--destination-currency", PERPS_USDC,
            "--amount-human", "10",
        ],
        "withdraw": [
            "--origin-chain", "1337", "--origin-currency", PERPS_USDC,
            "--destination-chain", "8453", "--destination-currency", usdc,
            "--amount-human", "2",
        ],
    }  # fmt: skip


class Took(NamedTuple):
    wall: float
    """Spawn to exit."""
    cpu: float
    """User + system CPU of the process (and its children): what load from other processes
    does not inflate, unlike `wall`."""


def _run(command: list[str], **kwargs: Any) -> tuple[subprocess.CompletedProcess[str], Took]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, Took(wall, cpu)


def _crossdeck_env(config: Path) -> dict[str, str]:
    """The environment of a crossdeck process: its own config, and bytecode written (an
    installed crossdeck has it, compiled at install; with PYTHONDONTWRITEBYTECODE inherited,
    every module edited since the last write would be compiled again in every run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "CROSSDECK_CONFIG": str(config)}


def _crossdeck(world_file: Path, config: Path, options: list[str]) -> Took:
    env = _crossdeck_env(config)
    done, took = _run(
        [CROSSDECK, "--world", str(world_file), "bridge", "--yes", "--json", *options],
        env=env,
        timeout=120,
    )
    last = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    if done.returncode != 0 or last.get("status") != "success":
        tail = done.stdout[-2000:] + done.stderr[-2000:]
        raise SystemExit(f"crossdeck bridge failed ({done.returncode}):\n{tail}")
    return took


def _sdk(info: dict, flow: str) -> Took | None:
    """The SDK's run of `flow`, whole Node process, or None when it has no anchor here."""
    node = shutil.which("node")
    if node is None or flow not in SDK_FLOWS:
        return None
    args = {
        "tools_dir": str(ROOT / "tools"),
        "service_url": info["service_url"],
        "venue_url": info["venue_url"],
        "rpc": info["rpc"],
        "private_key": info["wallet"]["private_key"],
        "flow": SDK_FLOWS[flow],
        "timeout_s": SDK_TIMEOUT_S,
    }
    done, took = _run([node, str(SDK_SCRIPT), json.dumps(args)], timeout=SDK_TIMEOUT_S + 30)
    last = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    if done.returncode != 0 or last.get("status") != "success":
        raise SystemExit(f"SDK {flow} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--flows", default="native,deposit,withdraw")
    parser.add_argument(
        "--world-file", type=Path, help="use this running world (`sim serve --speed 0`)"
    )
    args = parser.parse_args()

    from crossdeck.sim.world import World

    met = True
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        world_file = args.world_file
        if world_file is None:
            world = stack.enter_context(World(speed=0, brand="public"))
            world_file = Path(tmp) / "world.json"
            world_file.write_text(json.dumps(world.info))
        config = Path(tmp) / "config.toml"
        config.write_text(f'data_dir = "{Path(tmp) / "data"}"\n')
        chains = subprocess.run(
            [CROSSDECK, "--world", str(world_file), "chains", "--json"],
            capture_output=True, text=True, check=True, env=_crossdeck_env(config),
        )  # fmt: skip
        listing = json.loads(chains.stdout)
        usdc = next(
            c["address"]
            for chain in listing["chains"] if chain["id"] == 8453
            for c in [*chain.get("erc20Currencies", []), *chain.get("featuredTokens", [])]
            if c.get("symbol") == "USDC"
        )  # fmt: skip
        flows = _flows(usdc)
        info = json.loads(world_file.read_text())
        print(f"runs: {args.runs} each, interleaved; demo world at --speed 0 (py-evm, public)")
        if shutil.which("node") is None:
            print("  anchor missing: node is not on PATH")
        for flow in args.flows.split(","):
            options = flows[flow]
            _crossdeck(world_file, config, options)  # warm caches (bytecode included)
            _sdk(info, flow)
            ours: list[Took] = []
            anchors: list[Took] = []
            for _ in range(args.runs):
                ours.append(_crossdeck(world_file, config, options))
                anchor = _sdk(info, flow)
                if anchor is not None:
                    anchors.append(anchor)
            mine = statistics.median(t.wall for t in ours)
            mine_cpu = statistics.median(t.cpu for t in ours)
            if flow == "withdraw":
                # the world's configured delays are zero at --speed 0: all of it is the client's
                print(
                    f"  {flow:8}  crossdeck {mine:.3f} s (CPU {mine_cpu:.3f} s), client "
                    f"overhead {mine:.3f} s (goal <= {OVERHEAD_GOAL_S} s)"
                )
                met = met and mine <= OVERHEAD_GOAL_S
            if anchors:
                base = statistics.median(t.wall for t in anchors)
                base_cpu = statistics.median(t.cpu for t in anchors)
                print(
                    f"  {flow:8}  anchor {base:.3f} s (CPU {base_cpu:.3f} s)  crossdeck "
                    f"{mine:.3f} s (CPU {mine_cpu:.3f} s)  ratio {mine / base:.2f}x "
                    f"(goal <= {RATIO_GOAL}x)"
                )
                met = met and (flow == "withdraw" or mine / base <= RATIO_GOAL)
            elif flow != "withdraw":
                print(f"  {flow:8}  crossdeck {mine:.3f} s (CPU {mine_cpu:.3f} s, no anchor)")
                met = False
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
