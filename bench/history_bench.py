"""Request history: time to the first rows and peak memory while paging through 10,000 requests,
in the CLI (`crossdeck requests --all`) and in the app (the History screen's `PagedLoader`).

A demo world is started in this process and seeded with N requests straight into its service
state; then each measurement runs in a fresh child process so import costs, memory peaks and
caches never leak from one to the next:

- CLI: `crossdeck --world W requests --all --limit 50` as JSON lines, CSV and the table, plus a
  one-page run as the baseline. Time to the first row (from process start, as a user sees it),
  total time, and the child's peak RSS (os.wait4).
- App: a `PagedLoader` driven the way the History screen drives it: `ensure(0)` for the first
  rows, then `ensure(row, margin=25)` as the cursor moves down ten rows at a time, to the end.
  Timed without tracemalloc; peak Python memory measured in a second, traced run. The streamed
  file export of the same listing is measured the same way, for contrast (it keeps no rows).

    .venv/bin/python bench/history_bench.py                    # 10,000 requests, 3 runs
    .venv/bin/python bench/history_bench.py --requests 2000 --runs 2

Bounded: each child has a time limit (--run-timeout) and the tool exits by itself.
The app side measures the `PagedLoader` the History screen pages with, not the screen's
rendering: time to the first rendered rows and the screen's own memory are not measured yet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

PAGE = 50
BASE_MS = 1_714_521_600_000
STATUSES = ("success", "success", "success", "failure", "refund", "pending", "submitted")
CHAINS = (8453, 999, 1337)


# -- the world -------------------------------------------------------------------------------


def _seed(world: Any, count: int) -> None:
    from crossdeck.sim.service.state import RequestRecord, Status, Tx

    def amount(chain: int, units: int) -> dict[str, Any]:
        decimals = 8 if chain == 1337 else 6
        return {
            "currency": {"chainId": chain, "symbol": "USDC", "decimals": decimals},
            "amount": str(units),
        }

    state = world.state
    for n in range(1, count + 1):
        origin, destination = CHAINS[n % 3], CHAINS[(n + 1) % 3]
        status = STATUSES[n % len(STATUSES)]
        created = BASE_MS + n * 5_000
        out = (Tx(f"0x{n:062x}b2", destination),) if status in ("success", "submitted") else ()
        state.create_request(
            RequestRecord(
                id=f"0x{n:064x}",
                status=Status(status),
                user=world.wallet_address,
                recipient=world.wallet_address,
                refund_to=world.wallet_address,
                origin_chain_id=origin,
                destination_chain_id=destination,
                origin_currency="0x" + "a1" * 20,
                destination_currency="0x" + "a2" * 20,
                amount_in=1_000_000 + n,
                amount_out=1_000_000 + n,
                trade_type="EXACT_INPUT",
                order_id=f"0x{n + 10**15:064x}",
                created_at=created,
                updated_at=created + 60_000,
                quote={
                    "details": {
                        "currencyIn": amount(origin, 1_000_000 + n),
                        "currencyOut": amount(destination, 1_000_000 + n),
                    }
                },
                in_txs=(Tx(f"0x{n:062x}a1", origin, block=1000 + n),),
                out_txs=out,
                origin_block=1000 + n,
            )
        )


def _state_dir() -> Path:
    shm = Path("/dev/shm")  # one SQLite commit per seeded request: cheap on tmpfs
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="crossdeck-history-bench-", dir=base))


# -- CLI runs ----------------------------------------------------------------------------------


@dataclass
class CliRun:
    first_row_s: float
    total_s: float
    rows: int
    peak_rss_mb: float


def _cli_run(world_file: Path, env: dict[str, str], args: list[str], timeout: float) -> CliRun:
    exe = str(Path(sys.executable).with_name("crossdeck"))
    cmd = [exe, "--world", str(world_file), "requests", "--limit", str(PAGE), *args]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    first: float | None = None
    rows = 0
    deadline = started + timeout
    for _line in proc.stdout:
        if first is None:
            first = time.perf_counter() - started
        rows += 1
        if time.perf_counter() > deadline:
            proc.kill()
            break
    _, status, usage = os.wait4(proc.pid, 0)
    total = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd[3:])} exited with {os.waitstatus_to_exitcode(status)}")
    return CliRun(first or total, total, rows, usage.ru_maxrss / 1024)


# -- app runs (child processes) ----------------------------------------------------------------


def _app_child(conn: Connection, url: str, api_key: str, kind: str, traced: bool) -> None:
    import resource
    import tracemalloc

    from crossdeck.api.client import ServiceClient
    from crossdeck.history import PagedLoader, build_query, export_history

    async def loader_run() -> dict[str, Any]:
        async with ServiceClient(url, api_key=api_key) as client:
            started = time.perf_counter()
            loader = PagedLoader(client, build_query(), page_size=PAGE)
            await loader.ensure(0)
            first = time.perf_counter() - started
            row = 0
            while loader.has_more or row < len(loader):
                row += 10  # the cursor moving down, as a user holding the down key would
                await loader.ensure(row, margin=PAGE // 2)
                if row >= len(loader) and not loader.has_more:
                    break
            return {"first": first, "total": time.perf_counter() - started, "rows": len(loader)}

    async def export_run() -> dict[str, Any]:
        async with ServiceClient(url, api_key=api_key) as client:
            target = Path(tempfile.mkdtemp()) / "history.jsonl"
            started = time.perf_counter()
            result = await export_history(client, build_query(limit=PAGE), target)
            total = time.perf_counter() - started
            shutil.rmtree(target.parent, ignore_errors=True)
            return {"first": None, "total": total, "rows": result.rows}

    if traced:
        tracemalloc.start()
    out = asyncio.run(loader_run() if kind == "loader" else export_run())
    if traced:
        out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    conn.send(out)


def _app_run(url: str, api_key: str, kind: str, traced: bool, timeout: float) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_app_child, args=(child, url, api_key, kind, traced))
    proc.start()
    child.close()
    if not parent.poll(timeout):
        proc.kill()
        proc.join()
        raise RuntimeError(f"app {kind} run did not finish within {timeout} s")
    result: dict[str, Any] = parent.recv()
    proc.join(10)
    return result


# -- main ------------------------------------------------------------------------------------


def _median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--run-timeout", type=float, default=300.0)
    args = parser.parse_args()

    from crossdeck.sim.world import World

    state_dir = _state_dir()
    work = Path(tempfile.mkdtemp(prefix="crossdeck-history-bench-"))
    # a full walk is N/50 requests per run; the demo world's default limits are for demos
    world = World(speed=0, state_dir=state_dir, rate_limits=(10**6, 10**6))
    try:
        world.start_blocking()
        started = time.perf_counter()
        _seed(world, args.requests)
        print(f"seeded {args.requests} requests in {time.perf_counter() - started:.1f} s")
        world_file = work / "world.json"
        world_file.write_text(json.dumps(world.info))
        (work / "config.toml").write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")}
        env["CROSSDECK_CONFIG"] = str(work / "config.toml")

        cli_modes = {
            "one page (baseline)": ["--json"],
            "--all --json": ["--all", "--json"],
            "--all --csv": ["--all", "--csv"],
            "--all (table)": ["--all"],
        }
        cli: dict[str, list[CliRun]] = {name: [] for name in cli_modes}
        app: dict[str, list[dict[str, Any]]] = {"loader": [], "export": []}
        traced: dict[str, list[dict[str, Any]]] = {"loader": [], "export": []}
        for _ in range(args.runs):
            for name, extra in cli_modes.items():
                cli[name].append(_cli_run(world_file, env, extra, args.run_timeout))
            for kind in ("loader", "export"):
                app[kind].append(
                    _app_run(world.service_url, world.api_key, kind, False, args.run_timeout)
                )
                traced[kind].append(
                    _app_run(world.service_url, world.api_key, kind, True, args.run_timeout)
                )
    finally:
        world.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    n = args.requests
    print(f"\n{n} requests, {PAGE} per page, median of {args.runs} runs\n")
    print("CLI (fresh process each run)       first row   total    rows   peak RSS")
    for name, runs in cli.items():
        print(
            f"  {name:<32} {_median([r.first_row_s for r in runs]):7.3f} s"
            f" {_median([r.total_s for r in runs]):7.2f} s {runs[0].rows:7d}"
            f" {_median([r.peak_rss_mb for r in runs]):7.1f} MB"
        )
    print("\nApp (History screen's PagedLoader, fresh process each run)")
    loader_first = _median([r["first"] for r in app["loader"]])
    loader_total = _median([r["total"] for r in app["loader"]])
    export_total = _median([r["total"] for r in app["export"]])
    loader_peak = _median([r["traced_peak_mb"] for r in traced["loader"]])
    export_peak = _median([r["traced_peak_mb"] for r in traced["export"]])
    print(
        f"  loader: first rows {loader_first:.3f} s, all {app['loader'][0]['rows']} rows "
        f"{loader_total:.2f} s, peak RSS {_median([r['peak_rss_mb'] for r in app['loader']]):.1f}"
        f" MB, traced Python peak {loader_peak:.1f} MB"
    )
    print(
        f"  export (streamed .jsonl): {app['export'][0]['rows']} rows {export_total:.2f} s, "
        f"peak RSS {_median([r['peak_rss_mb'] for r in app['export']]):.1f} MB, "
        f"traced Python peak {export_peak:.1f} MB"
    )

    base = cli["one page (baseline)"]
    full = cli["--all --json"]
    print("\nRatios")
    print(
        "  CLI peak RSS, --all --json / one page:         "
        f"{_median([r.peak_rss_mb for r in full]) / _median([r.peak_rss_mb for r in base]):.2f}"
        "  (1.0 = memory does not grow with the listing)"
    )
    print(
        "  CLI first row --all / one page:                "
        f"{_median([r.first_row_s for r in full]) / _median([r.first_row_s for r in base]):.2f}"
        "  (1.0 = --all starts printing as soon as one page does)"
    )
    print(
        "  CLI first row / total, --all --json:           "
        f"{_median([r.first_row_s for r in full]) / _median([r.total_s for r in full]):.3f}"
    )
    print(f"  app first rows / all rows, loader:             {loader_first / loader_total:.3f}")
    print(
        "  app loader / CLI --all --json, total time:     "
        f"{loader_total / _median([r.total_s for r in full]):.2f}"
    )
    print(
        "  app loader / export, traced Python peak:       "
        f"{loader_peak / export_peak:.1f}  (the loader keeps every row for the view; "
        "the export keeps one page)"
    )
    per_row_kb = (loader_peak - export_peak) * 1024 / max(app["loader"][0]["rows"], 1)
    print(f"  app memory per loaded row:                     {per_row_kb:.1f} KB")


if __name__ == "__main__":
    main()
