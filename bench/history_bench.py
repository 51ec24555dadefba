"""Request history: time to the first rows and peak memory while paging through 10,000 requests,
in the CLI (`crossdeck requests --all`) and in the app (the real History screen, and for contrast
the `PagedLoader` it pages with, alone).

A demo world is started in this process and seeded with N requests straight into its service
state (every one the wallet's own, so the screen's first filter, the wallet as user, matches all
N); then each measurement runs in a fresh child process so import costs, memory peaks and caches
never leak from one to the next:

- CLI: `crossdeck --world W requests --all --limit 50` as JSON lines, CSV and the table, plus a
  one-page run as the baseline. Time to the first row (from process start, as a user sees it),
  total time, and the child's peak RSS (os.wait4).
- App, History screen: the real `CrossdeckApp`, headless (`run_test`, 120x36), started on
  History with an isolated config and data dir (CROSSDECK_CONFIG) and the world's API key and
  wallet as in-memory `Secrets` (nothing written). Time from building the app to the first rows
  in `#history-table` and to the frame that draws them; then the table is paged the way a user
  pages it: ctrl+end (the DataTable's "bottom" key) again and again, so the cursor on the last
  row fires the screen's own load-more, each press timed to the frame with the next page (m,
  the screen's More key, if a press loads nothing), until the screen's loader has no more pages
  and the table holds all N rows (checked: anything else fails the run). Also timed: a cursor
  key to its frame with the first page and with all N rows, and ctrl+home then ctrl+end across
  all N rows. Keys are posted as the terminal driver posts them (`pilot.press` would also wait
  for the process to go idle, twice a key, and time that as the screen's).
- App, `PagedLoader` alone (50 a page): `ensure(0)` for the first rows, then
  `ensure(row, margin=25)` as the cursor moves down ten rows at a time, to the end. The streamed
  file export of the same listing is measured the same way, for contrast (it keeps no rows).

Every app kind runs untraced (times, peak RSS by getrusage) and again under tracemalloc (peak
Python memory; for the screen also the memory held at the first rows and at the end, whose
difference per added row is its memory per row).

    .venv/bin/python bench/history_bench.py                    # 10,000 requests, 3 runs
    .venv/bin/python bench/history_bench.py --requests 2000 --runs 2

Bounded: each child has a time limit (--run-timeout) and the tool exits by itself.
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
SCREEN_SIZE = (120, 36)
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


def _spawn(target: Any, args: tuple[Any, ...], what: str, timeout: float) -> dict[str, Any]:
    """Run `target(conn, *args)` in a fresh spawned interpreter; what it sent back."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(child, *args))
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            proc.kill()
            raise RuntimeError(f"{what} did not finish within {timeout} s")
        try:
            result: dict[str, Any] = parent.recv()
        except EOFError:
            proc.join(10)
            raise RuntimeError(f"{what} died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join()
    if "error" in result:
        raise RuntimeError(f"{what} failed:\n{result['error']}")
    return result


def _app_run(url: str, api_key: str, kind: str, traced: bool, timeout: float) -> dict[str, Any]:
    return _spawn(_app_child, (url, api_key, kind, traced), f"app {kind} run", timeout)


# -- the History screen (child processes) ------------------------------------------------------


def _screen_child(
    conn: Connection,
    world_file: str,
    api_key: str,
    wallet: str,
    expected: int,
    traced: bool,
    budget: float,
) -> None:
    """The real app, headless, opened on History: time to the first rendered rows, then the
    table paged to the end with ctrl+end (the DataTable's "bottom" key), as a user holding it
    would."""
    import resource
    import traceback
    import tracemalloc

    try:
        work = Path(tempfile.mkdtemp(prefix="crossdeck-history-bench-screen-"))
        # an isolated config (data dir inside `work`): no user config, profile or world leaks in
        for name in [k for k in os.environ if k.startswith("CROSSDECK_")]:
            del os.environ[name]
        config = work / "config" / "config.toml"
        config.parent.mkdir()
        config.write_text(f'data_dir = "{work / "data"}"\n')
        os.environ["CROSSDECK_CONFIG"] = str(config)

        started = time.perf_counter()
        from pydantic import SecretStr
        from textual.events import Key
        from textual.widgets import DataTable

        from crossdeck.config import load_settings
        from crossdeck.tui.app import CrossdeckApp
        from crossdeck.tui.screens.history import PAGE_SIZE, HistoryScreen
        from crossdeck.tui.services import Secrets

        imports = time.perf_counter() - started
        try:
            out = asyncio.run(
                _screen_run(
                    CrossdeckApp,
                    HistoryScreen,
                    DataTable,
                    Key,
                    settings=load_settings(None, world_file),
                    # the secrets in memory, as the app tests give them: no key is written
                    secrets=Secrets(SecretStr(api_key), wallet),
                    work=work,
                    expected=expected,
                    traced=traced,
                    budget=budget,
                )
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
        out["imports"] = imports
        out["page_size"] = PAGE_SIZE
        if traced:
            out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    except BaseException:
        conn.send({"error": traceback.format_exc()})
        return
    conn.send(out)


async def _screen_run(
    app_class: Any,
    screen_class: Any,
    table_class: Any,
    key_class: Any,
    *,
    settings: Any,
    secrets: Any,
    work: Path,
    expected: int,
    traced: bool,
    budget: float,
) -> dict[str, Any]:
    import tracemalloc

    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget

    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    app = app_class(
        settings,
        secrets=secrets,
        ui_state_file=work / "tui-state.json",
        user_themes=work / "themes",
        start_mode="history",
    )
    async with app.run_test(size=SCREEN_SIZE) as pilot:

        async def until(condition: Any, what: str, within: float | None = None) -> bool:
            """Let the app run until `condition()`; False after `within` s, an error after
            the run's budget (with the app's notifications, which say what went wrong)."""
            give_up = loop.time() + within if within is not None else deadline
            while True:
                try:
                    if condition():
                        return True
                except Exception:  # e.g. the screen not mounted yet
                    pass
                if loop.time() > min(give_up, deadline):
                    if within is not None and loop.time() <= deadline:
                        return False
                    notes = "; ".join(f"{n.title}: {n.message}" for n in app._notifications)
                    raise AssertionError(
                        f"History screen: timed out waiting for {what} "
                        f"(notifications: {notes or 'none'})"
                    )
                await asyncio.sleep(0.002)

        async def drawn(widget: Any) -> None:
            """Until the screen has refreshed (painted) after what happened so far."""
            painted = asyncio.Event()
            widget.call_after_refresh(painted.set)
            await until(painted.is_set, "a frame")

        def press(key: str) -> None:
            # the key event the terminal driver would post (pilot.press also waits for the
            # process to go idle, twice, which would be timed as the screen's own time)
            app.post_message(key_class(key, None))

        def rows_on_screen(*request_ids: str) -> bool:
            text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
            return all(rid[:10] in text for rid in request_ids)

        await until(
            lambda: (
                isinstance(app.screen, screen_class)
                and app.screen.query_one("#history-table", table_class).row_count > 0
            ),
            "the first rows",
        )
        first_rows = time.perf_counter() - started
        screen = app.screen
        table = screen.query_one("#history-table", table_class)
        await drawn(table)
        first_frame = time.perf_counter() - started
        rows_at_first = table.row_count
        traced_at_first = tracemalloc.get_traced_memory()[0] / 2**20 if traced else 0.0
        if not rows_on_screen(screen._ids[0]):
            raise AssertionError("History screen: the first row is not drawn")

        async def key_latency(key: str, times: int) -> list[float]:
            took = []
            for _ in range(times):
                before, pressed = table.cursor_row, time.perf_counter()
                press(key)
                await until(lambda b=before: table.cursor_row != b, f"{key} to move the cursor")
                await drawn(table)
                took.append(time.perf_counter() - pressed)
            return took

        # page to the end as a user does: the table focused, ctrl+end (the DataTable's
        # "bottom" key) again and again; the cursor on the last rows makes the screen load the
        # next page by its own load-more logic. Should a press load nothing (the screen busy),
        # the user presses m (More), as the status line says.
        table.focus()
        early_keys = await key_latency("down", 3)
        started_paging = time.perf_counter()
        pages: list[float] = []
        more_presses = 0

        def all_loaded() -> bool:
            loader = screen._loader
            return loader is not None and not loader.has_more and not loader.is_loading

        while not all_loaded():
            before, pressed = table.row_count, time.perf_counter()
            press("ctrl+end")

            def grown(b: int = before) -> bool:
                return table.row_count > b or all_loaded()

            while not await until(grown, f"rows after {before}", within=5.0):
                more_presses += 1
                press("m")
            if table.row_count > before:
                await drawn(table)
                pages.append(time.perf_counter() - pressed)
        press("ctrl+end")
        await until(lambda: table.cursor_row == table.row_count - 1, "the cursor on the last row")
        await drawn(table)
        total = time.perf_counter() - started
        paging = time.perf_counter() - started_paging
        traced_end = tracemalloc.get_traced_memory()[0] / 2**20 if traced else 0.0

        rows = table.row_count
        if rows != expected or len(screen._ids) != expected:
            raise AssertionError(
                f"History screen: {rows} rows in the table ({len(screen._ids)} ids) after "
                f"paging to the end, expected {expected}"
            )
        if not rows_on_screen(screen._ids[-1]):
            raise AssertionError("History screen: the last row is not drawn")
        late_keys = await key_latency("up", 10)
        # a jump across the whole table and back: ctrl+home, then ctrl+end
        jumped = time.perf_counter()
        press("ctrl+home")
        await until(lambda: table.cursor_row == 0, "ctrl+home")
        await drawn(table)
        press("ctrl+end")
        await until(lambda: table.cursor_row == rows - 1, "ctrl+end")
        await drawn(table)
        jump = time.perf_counter() - jumped
        await pilot.pause()
    return {
        "first": first_rows,
        "first_frame": first_frame,
        "rows_at_first": rows_at_first,
        "total": total,
        "paging": paging,
        "rows": rows,
        "pages": pages,
        "more_presses": more_presses,
        "key_early": statistics.median(early_keys),
        "key_late": statistics.median(late_keys),
        "jump": jump,
        "traced_at_first_mb": traced_at_first,
        "traced_end_mb": traced_end,
    }


def _screen_run_in_child(
    world_file: Path, api_key: str, wallet: str, expected: int, traced: bool, timeout: float
) -> dict[str, Any]:
    args = (str(world_file), api_key, wallet, expected, traced, timeout * 0.9)
    return _spawn(
        _screen_child, args, f"History screen run ({'traced' if traced else 'timed'})", timeout
    )


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
        kinds = ("loader", "export", "screen")
        app: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
        traced: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
        for run in range(args.runs):
            for name, extra in cli_modes.items():
                cli[name].append(_cli_run(world_file, env, extra, args.run_timeout))
            for kind in ("loader", "export"):
                app[kind].append(
                    _app_run(world.service_url, world.api_key, kind, False, args.run_timeout)
                )
                traced[kind].append(
                    _app_run(world.service_url, world.api_key, kind, True, args.run_timeout)
                )
            for is_traced, into in ((False, app), (True, traced)):
                into["screen"].append(
                    _screen_run_in_child(
                        world_file,
                        world.api_key,
                        world.wallet_address,
                        args.requests,
                        is_traced,
                        args.run_timeout,
                    )
                )
            print(f"run {run + 1}/{args.runs} done", flush=True)
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
    print("\nApp (fresh process each run; the loader pages the way the History screen does)")
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

    screen_runs, screen_traced = app["screen"], traced["screen"]
    screen_first = _median([r["first"] for r in screen_runs])
    screen_frame = _median([r["first_frame"] for r in screen_runs])
    screen_total = _median([r["total"] for r in screen_runs])
    screen_peak = _median([r["traced_peak_mb"] for r in screen_traced])
    screen_rows = screen_runs[0]["rows"]
    print(
        f"  screen: first rows {screen_first:.3f} s (drawn {screen_frame:.3f} s), all "
        f"{screen_rows} rows {screen_total:.2f} s, peak RSS "
        f"{_median([r['peak_rss_mb'] for r in screen_runs]):.1f} MB, traced Python peak "
        f"{screen_peak:.1f} MB"
    )
    pages = [r["pages"] for r in screen_runs]
    tenth = max(min(len(p) for p in pages) // 10, 1)
    early = _median([statistics.median(p[:tenth]) for p in pages])
    late = _median([statistics.median(p[-tenth:]) for p in pages])

    def ms(key: str) -> str:
        return f"{_median([r[key] for r in screen_runs]) * 1000:.0f} ms"

    print(
        f"    {screen_runs[0]['page_size']} rows a page: ctrl+end -> next page drawn "
        f"{early * 1000:.0f} ms (first {tenth} pages), {late * 1000:.0f} ms (last {tenth} "
        f"pages); m pressed {max(r['more_presses'] for r in screen_runs)} time(s) when "
        "ctrl+end loaded nothing"
    )
    print(
        f"    a cursor key -> frame: {ms('key_early')} at {screen_runs[0]['rows_at_first']} "
        f"rows, {ms('key_late')} at {screen_rows} rows; ctrl+home then ctrl+end over "
        f"{screen_rows} rows {ms('jump')}; imports before the app "
        f"{_median([r['imports'] for r in screen_runs]):.2f} s"
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
    print(f"  app memory per loaded row, loader:             {per_row_kb:.1f} KB")
    print(f"  screen first rows / loader first rows:         {screen_first / loader_first:.2f}")
    print(f"  screen all rows / loader all rows, total time: {screen_total / loader_total:.2f}")
    print(f"  screen / loader, traced Python peak:           {screen_peak / loader_peak:.1f}")
    grown = [
        (r["traced_end_mb"] - r["traced_at_first_mb"])
        * 1024
        / max(r["rows"] - r["rows_at_first"], 1)
        for r in screen_traced
    ]
    print(
        f"  screen memory per row:                         {_median(grown):.1f} KB"
        f"  (traced memory held at the end minus at the first rows, per row added; "
        f"peak / rows: {screen_peak * 1024 / max(screen_rows, 1):.1f} KB)"
    )


if __name__ == "__main__":
    main()
