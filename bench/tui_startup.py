"""Start-up of the app, headless: process start -> first frame of the Quote screen, -> the chain
pickers filled from /chains, and the peak memory of the process. Prints numbers and ratios;
nothing here is a test (tests never assert times).

    .venv/bin/python bench/tui_startup.py [--runs 5]

Each run is a fresh interpreter (imports included, as a user would see them) on a demo world
that this script starts once; twice over: with a bytecode cache (as after `pip install`, which
compiles the package) and without one (where PYTHONDONTWRITEBYTECODE is set). Baselines, in
fresh interpreters too: `python -c pass` and `import textual.app`, so the ratios say what
crossdeck adds on top of Python and Textual. The child also reports which heavy modules (web3,
eth-tester, eth-account, aiohttp, keyring) were already imported at the first frame: none
should be, they are deferred to first use.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("web3", "eth_tester", "eth_account", "aiohttp", "keyring", "eth_abi", "coincurve")

CHILD = r"""
import json, sys, time
start_mark = float(sys.argv[1])
from crossdeck.config import load_settings
from crossdeck.tui.app import CrossdeckApp

marks = {}
HEAVY = %(heavy)r

def report():
    import resource
    marks["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(marks), flush=True)

def first_frame():
    marks["first_frame_s"] = time.time() - start_mark
    marks["heavy_at_first_frame"] = sorted(m for m in HEAVY if m in sys.modules)
    app.set_interval(0.01, wait_for_chains)

def wait_for_chains():
    screen = app.quote_screen
    if "chains_s" not in marks and screen is not None and screen.chains is not None:
        marks["chains_s"] = time.time() - start_mark
        app.exit()

app = CrossdeckApp(load_settings(None, sys.argv[2]), on_first_frame=first_frame)
app.run(headless=True, size=(120, 36))
report()
"""


def _env(config: Path, pycache: Path | None) -> dict[str, str]:
    env = {**os.environ, "CROSSDECK_CONFIG": str(config)}
    if pycache is not None:
        # bytecode cached, as after `pip install` (which compiles it); kept out of the repo
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.mkdtemp()) / "none")
    return env


def _child(world_file: Path, config: Path, pycache: Path | None) -> dict[str, float]:
    env = _env(config, pycache)
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHILD % {"heavy": HEAVY}, str(started), str(world_file)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"the app run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _baseline(code: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from crossdeck.sim.world import World

    with tempfile.TemporaryDirectory() as tmp, World(speed=0) as world:
        world_file = Path(tmp) / "world.json"
        world_file.write_text(json.dumps(world.info))
        config = Path(tmp) / "config.toml"
        config.write_text(f'data_dir = "{Path(tmp) / "data"}"\n')
        pycache = Path(tmp) / "pycache"
        heavy: set[str] = set()
        print(f"runs: {args.runs} each (120x36, headless, demo world on loopback)")
        for label, cache in (("bytecode cached", pycache), ("no bytecode cache", None)):
            _child(world_file, config, cache)  # warm the file cache (and fill the bytecode one)
            runs = [_child(world_file, config, cache) for _ in range(args.runs)]
            env = _env(config, cache)
            python = statistics.median(_baseline("pass", env) for _ in range(args.runs))
            textual = statistics.median(
                _baseline("import textual.app", env) for _ in range(args.runs)
            )
            first = statistics.median(r["first_frame_s"] for r in runs)
            chains = statistics.median(r["chains_s"] for r in runs)
            peak = max(r["peak_rss_mb"] for r in runs)
            heavy |= {m for r in runs for m in r["heavy_at_first_frame"]}
            print(f"-- {label}")
            print(f"  python -c pass            median {python:.3f} s")
            print(f"  import textual.app        median {textual:.3f} s ({textual / python:.1f}x)")
            print(
                f"  first frame of Quote      median {first:.3f} s (min "
                f"{min(r['first_frame_s'] for r in runs):.3f} s; {first / textual:.2f}x the "
                "textual import alone)"
            )
            print(
                f"  pickers filled (/chains)  median {chains:.3f} s ({chains / first:.2f}x first "
                "frame)"
            )
            print(f"  peak RSS                  {peak:.1f} MB")
    print(f"heavy modules at first frame: {', '.join(sorted(heavy)) or 'none'}")
    return 1 if heavy else 0


if __name__ == "__main__":
    sys.exit(main())
