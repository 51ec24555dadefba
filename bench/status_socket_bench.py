"""The status websocket, measured (issue 37). Prints each figure beside its anchor from the same
run; nothing here is a test (tests never assert times).

    .venv/bin/python bench/status_socket_bench.py [--events 20] [--runs 3]

1. Fill to success event: a request in a demo world (speed 0, in this process) is moved to
   `success` the way the solver does (`ServiceState.advance`); timed from the commit of the
   change (the world's subscribers are called right after it) to the moment crossdeck's
   status tracker hands out the final `success` (over the socket: the pushed event, then the
   one confirming status read). Anchor: the same tracker without the socket, on the default
   profile's polling (`[tracking]` defaults). Goal: median <= 50 ms.
2. A whole bridge to success (0.01 native 8453 -> 999, whole process, interleaved runs, public
   brand): `crossdeck bridge --yes --json` (socket on, the default) against the public
   TypeScript SDK in its default polling mode and in its websocket mode (tests/sdk's flow
   script). Goals: <= 0.3x the SDK's polling mode, and below its websocket mode.

The webhook receiver's figure is bench/webhook_bench.py's (receiver vs a bare aiohttp handler).
"""

from __future__ import annotations

import argparse
import asyncio
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the tracker tests' request maker
CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))
SDK_SCRIPT = ROOT / "tests" / "sdk" / "relay_sdk_flows.mjs"
NATIVE = "0x" + "0" * 40
LATENCY_GOAL_MS = 50.0
BRIDGE_GOAL = 0.3


async def _fill_to_event(world: Any, maker: Any, *, socket: bool, events: int) -> list[float]:
    from crossdeck.api import NO_RETRY, ServiceClient
    from crossdeck.config import TrackingSettings
    from crossdeck.track.policy import PollPolicy
    from crossdeck.track.tracker import StatusTracker
    from track.status.support import tx

    policy = PollPolicy.from_settings(TrackingSettings())  # the profile's default polling
    client = ServiceClient(world.service_url, api_key=world.api_key, retry=NO_RETRY)
    tracker = StatusTracker(client, policy=policy)
    if socket:
        tracker.use_socket(world.ws_url)
    took: list[float] = []
    state = world.state
    filled: dict[str, float] = {}

    def committed(change: Any) -> None:  # the world's own moment of the fill: just committed
        if change.record.status.value == "success":
            filled[change.record.id] = time.perf_counter()

    unsubscribe = state.subscribe(committed)
    async with tracker:
        for rid in maker.make(events):
            tracker.track(rid, poll_now=False)
            stream = tracker.stream(rid, replay=False)
            if socket:
                # the feed has no event for it: a short poll of its state is enough here
                while not tracker.socket.acked(rid):  # type: ignore[union-attr]  # noqa: ASYNC110
                    await asyncio.sleep(0.002)
            state.advance(rid, "pending", in_tx=tx(8453))
            state.advance(rid, "submitted", out_tx=tx(999))
            state.advance(rid, "success")  # the fill
            async for update in stream:
                if update.final:
                    took.append((time.perf_counter() - filled[rid]) * 1000)
                    break
            # one request at a time, as a run has it: the tracker's shared budget (5 reads a
            # second) is not what is measured
            await asyncio.sleep(0.25)
    unsubscribe()
    await client.aclose()
    return took


def _latency(events: int) -> bool:
    from crossdeck.sim.world import World
    from track.status.support import RequestMaker

    with World(speed=0) as world:
        maker = RequestMaker(world)
        socket = asyncio.run(_fill_to_event(world, maker, socket=True, events=events))
        polled = asyncio.run(_fill_to_event(world, maker, socket=False, events=max(5, events // 4)))
    mine, anchor = statistics.median(socket), statistics.median(polled)
    p90 = sorted(socket)[int(len(socket) * 0.9) - 1]
    print(
        f"fill -> success event: socket median {mine:.1f} ms (p90 {p90:.1f} ms, {len(socket)}) "
        f"| anchor, default polling: median {anchor:.0f} ms ({len(polled)}) | "
        f"ratio {mine / anchor:.3f}x | goal median <= {LATENCY_GOAL_MS:g} ms"
    )
    return mine <= LATENCY_GOAL_MS


CPU: list[tuple[str, float]] = []
"""(who, CPU seconds) of each whole-process run: load from other processes does not inflate it."""


def _timed(
    command: list[str], who: str = "", **kwargs: Any
) -> tuple[subprocess.CompletedProcess[str], float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((who, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return done, wall


def _crossdeck(world_file: Path, config: Path) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    options = [
        "--origin-chain", "8453", "--origin-currency", NATIVE, "--destination-chain", "999",
        "--destination-currency", NATIVE, "--amount-human", "0.01",
    ]  # fmt: skip
    done, took = _timed(
        [CROSSDECK, "--world", str(world_file), "bridge", "--yes", "--json", *options],
        "crossdeck",
        env={**env, "CROSSDECK_CONFIG": str(config)},
        timeout=120,
    )
    last = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    if done.returncode != 0 or last.get("status") != "success":
        raise SystemExit(f"crossdeck bridge failed:\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return took


def _sdk(info: dict[str, Any], *, websocket: bool) -> float:
    args = {
        "tools_dir": str(ROOT / "tools"),
        "service_url": info["service_url"],
        "venue_url": info["venue_url"],
        "rpc": info["rpc"],
        "private_key": info["wallet"]["private_key"],
        "flow": "native-bridge",
        "timeout_s": 90,
    }
    if websocket:
        args["websocket_url"] = info["ws_url"]
    node = shutil.which("node")
    assert node is not None
    who = "sdk-ws" if websocket else "sdk-poll"
    done, took = _timed([node, str(SDK_SCRIPT), json.dumps(args)], who, timeout=120)
    last = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    if done.returncode != 0 or last.get("status") != "success":
        # In websocket mode the SDK subscribes while it sends the deposit and never reads the
        # status: at speed 0 the world can publish success first (the subscribe came 50 ms
        # before it at the least in 30 native bridges under load; a two-step deposit lost that
        # race 1 run in 10, tests/sdk). Its hard stop then ends the run here.
        raise SystemExit(f"SDK run failed ({websocket=}):\n{done.stderr[-1500:]}")
    return took


def _bridges(runs: int) -> bool:
    from crossdeck.sim.world import World

    if shutil.which("node") is None:
        print("whole bridge: anchors missing (node is not on PATH)")
        return False
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        world = stack.enter_context(World(speed=0, brand="public"))
        world_file = Path(tmp) / "world.json"
        world_file.write_text(json.dumps(world.info))
        config = Path(tmp) / "config.toml"
        config.write_text(f'data_dir = "{Path(tmp) / "data"}"\n')
        _crossdeck(world_file, config)  # warm caches (bytecode included)
        _sdk(world.info, websocket=False)
        ours, polling, socket = [], [], []
        for _ in range(runs):  # interleaved: load from other processes falls on all alike
            ours.append(_crossdeck(world_file, config))
            polling.append(_sdk(world.info, websocket=False))
            socket.append(_sdk(world.info, websocket=True))
    mine = statistics.median(ours)
    poll_anchor, ws_anchor = statistics.median(polling), statistics.median(socket)
    cpu = {
        who: statistics.median(c for w, c in CPU[-3 * runs :] if w == who)
        for who in ("crossdeck", "sdk-poll", "sdk-ws")
    }
    print(
        f"  CPU per run (median): crossdeck {cpu['crossdeck']:.2f} s, SDK polling "
        f"{cpu['sdk-poll']:.2f} s, SDK websocket {cpu['sdk-ws']:.2f} s"
    )
    print(
        f"whole bridge to success: crossdeck {mine:.3f} s | SDK polling {poll_anchor:.3f} s "
        f"(ratio {mine / poll_anchor:.2f}x, goal <= {BRIDGE_GOAL}x) | SDK websocket "
        f"{ws_anchor:.3f} s (ratio {mine / ws_anchor:.2f}x, goal < 1x) | {runs} runs each"
    )
    return mine / poll_anchor <= BRIDGE_GOAL and mine < ws_anchor


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-bridge", action="store_true")
    args = parser.parse_args()
    met = _latency(args.events)
    if not args.skip_bridge:
        met = _bridges(args.runs) and met
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
