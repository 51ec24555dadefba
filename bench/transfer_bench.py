"""Time to success of a transfer, whole process: `crossdeck bridge --yes` against the service's
public TypeScript SDK executing the same quote on the same world. Prints the anchor, crossdeck's
figure and the ratio; nothing here is a test (tests never assert times).

    .venv/bin/python bench/transfer_bench.py [--runs 5] [--flows native,deposit,withdraw]

Flows, each on one demo world at `--speed 0` that this script starts (py-evm chains):
- native: 0.01 native 8453 -> 999;
- deposit: 5 USDC on 8453 -> the venue (chain 1337);
- withdraw: 2 perps USDC from the venue -> USDC on 8453. Its goal is not a ratio but the
  client's overhead: the whole process minus the world's configured delays (none at speed 0).

Each run is a fresh `crossdeck --world FILE bridge --yes --json ...` process (imports included),
timed from spawn to exit 0 after its `Finished` line says success. The anchor runs the SDK's
`execute` through Node (`SDK_SCRIPT`, polling every 1 s); crossdeck and anchor runs alternate,
so load from other processes falls on both alike; figures are medians. Goals (issue 15):
native and deposit <= 0.5x the anchor; withdrawal overhead <= 0.3 s.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))
# the Node script that runs the public SDK's execute against the world (tests/sdk, when present)
SDK_SCRIPT = ROOT / "tests" / "sdk" / "relay_sdk_execute.mjs"
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
            "--amount-human", "5",
        ],
        "withdraw": [
            "--origin-chain", "1337", "--origin-currency", PERPS_USDC,
            "--destination-chain", "8453", "--destination-currency", usdc,
            "--amount-human", "2",
        ],
    }  # fmt: skip


def _crossdeck(world_file: Path, config: Path, options: list[str]) -> float:
    env = {**os.environ, "CROSSDECK_CONFIG": str(config)}
    started = time.perf_counter()
    done = subprocess.run(
        [CROSSDECK, "--world", str(world_file), "bridge", "--yes", "--json", *options],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    took = time.perf_counter() - started
    last = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    if done.returncode != 0 or last.get("status") != "success":
        tail = done.stdout[-2000:] + done.stderr[-2000:]
        raise SystemExit(f"crossdeck bridge failed ({done.returncode}):\n{tail}")
    return took


def _sdk(world_file: Path, flow: str, options: list[str]) -> float | None:
    node = shutil.which("node")
    if node is None or not SDK_SCRIPT.exists():
        return None
    started = time.perf_counter()
    subprocess.run(
        [node, str(SDK_SCRIPT), "--world", str(world_file), "--flow", flow, *options],
        check=True,
        capture_output=True,
        timeout=120,
        cwd=ROOT / "tools",
    )
    return time.perf_counter() - started


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
            world = stack.enter_context(World(speed=0))
            world_file = Path(tmp) / "world.json"
            world_file.write_text(json.dumps(world.info))
        config = Path(tmp) / "config.toml"
        config.write_text(f'data_dir = "{Path(tmp) / "data"}"\n')
        chains = subprocess.run(
            [CROSSDECK, "--world", str(world_file), "chains", "--json"],
            capture_output=True, text=True, check=True,
            env={**os.environ, "CROSSDECK_CONFIG": str(config)},
        )  # fmt: skip
        listing = json.loads(chains.stdout)
        usdc = next(
            c["address"]
            for chain in listing["chains"] if chain["id"] == 8453
            for c in [*chain.get("erc20Currencies", []), *chain.get("featuredTokens", [])]
            if c.get("symbol") == "USDC"
        )  # fmt: skip
        flows = _flows(usdc)
        print(f"runs: {args.runs} each, interleaved; demo world at --speed 0 (py-evm)")
        if not SDK_SCRIPT.exists() or shutil.which("node") is None:
            print(f"  anchor missing: {SDK_SCRIPT.relative_to(ROOT)} (or node) is not there")
        for flow in args.flows.split(","):
            options = flows[flow]
            _crossdeck(world_file, config, options)  # warm caches
            ours, anchors = [], []
            for _ in range(args.runs):
                ours.append(_crossdeck(world_file, config, options))
                anchor = _sdk(world_file, flow, options)
                if anchor is not None:
                    anchors.append(anchor)
            mine = statistics.median(ours)
            if flow == "withdraw":
                # the world's configured delays are zero at --speed 0: all of it is the client's
                print(f"  {flow:8}  crossdeck {mine:.3f} s, client overhead {mine:.3f} s "
                      f"(goal <= {OVERHEAD_GOAL_S} s)")
                met = met and mine <= OVERHEAD_GOAL_S
            if anchors:
                base = statistics.median(anchors)
                print(f"  {flow:8}  anchor {base:.3f} s  crossdeck {mine:.3f} s  "
                      f"ratio {mine / base:.2f}x (goal <= {RATIO_GOAL}x)")
                met = met and (flow == "withdraw" or mine / base <= RATIO_GOAL)
            elif flow != "withdraw":
                print(f"  {flow:8}  crossdeck {mine:.3f} s (no anchor)")
                met = False
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
