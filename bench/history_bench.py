"""Request history in the app: the History screen's memory while paging through 10,000 requests
(flat, or growing with the rows passed?) and how soon its first rows are on screen once the
first page has arrived, each against an anchor measured in the same run.

A demo world is started in this process and seeded with N requests straight into its service
state (every one the wallet's own, so the screen's first filter, the wallet as user, matches all
N); each measurement then runs in a fresh child process, so import costs, memory peaks and
caches never leak from one to the next.

Memory flatness: the growth of peak RSS from the first P rows (--probe, 1,000) to all N.
- anchor: `crossdeck requests --all --json` (the CLI streams: one page in memory), whole
  process, `--pages P/50` against `--all` (os.wait4's peak RSS of each child);
- screen: the real `CrossdeckApp`, headless (`run_test`, 120x36), started on History with an
  isolated config and data dir and the world's key and wallet as in-memory `Secrets`, paged the
  way a user pages: ctrl+end again and again (the cursor on the last row makes the screen load
  the next page; m, its More key, if a press loads nothing) until every one of the N rows has
  been in the table; its own peak RSS (getrusage) read when P rows were passed and at the end.
- figure: peak(N) / peak(P) of each, and the screen's over the anchor's (1.0: the screen stays
  as flat as the streaming CLI); also KB per row passed between P and N.

First rows: from the first page's answer in hand (`ServiceClient.list_requests` returning, timed
in the child) to the frame that draws its rows: the first frame the app puts out (App._display,
which every frame passes, headless too) whose picture shows the page's first row in the table
(its id as the table shows it, inside the table's region).
- anchor: a one-widget Textual app (a bare DataTable with the same columns, as wide and tall as
  the History table on the same terminal, so it paints as many rows), warmed up, given the same
  first page: summarized and added, to its frame (median of 5 pages);
- screen: the same span in the real app opening on History; the goal is 0.1 s.
Also printed for each: the process's CPU time in that span (time.process_time: what other
work on the machine does not stretch), and the span to the app's first idle after that frame
(when what was queued behind the rows has run too: a key pressed then is handled at once).

Also printed: time to the first rows from building the app, per-page times (ctrl+end to the
frame with the next page), the most rows the table held, a cursor key to its frame, and Home
back to the first row from the last. --traced adds a tracemalloc run of the screen (Python heap
at P rows and at the end; slow). Keys are posted as the terminal driver posts them
(`pilot.press` would also wait for the process to go idle, twice a key, and time that).

    .venv/bin/python bench/history_bench.py                   # 10,000 requests, 1 run, < 2 min
    .venv/bin/python bench/history_bench.py --runs 3 --traced

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


# -- child processes ---------------------------------------------------------------------------


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


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class FrameWatch:
    """When the app first put out a frame (App._display, which every frame passes, headless
    too) that shows `text` inside `widget`'s region, once `watch` is called: the moment the
    frame was handed out, before its picture is read back here (that reading is not timed)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen = asyncio.Event()
        self.at: float | None = None
        self.cpu_at: float | None = None  # the process's CPU time then (time.process_time)
        self._shows: Any = None
        display = app._display

        def watched(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None and self._shows is not None:
                handed_out, cpu = time.perf_counter(), time.process_time()
                if self._shows():
                    self.at, self.cpu_at, self._shows = handed_out, cpu, None
                    self.seen.set()

        app._display = watched

    def watch(self, widget_of: Any, text_of: Any) -> None:
        """Look for `text_of()` in `widget_of()`'s region (either may raise or give None
        while the screen is not there yet: no frame of it is the one looked for)."""

        def shows() -> bool:
            try:
                widget, text = widget_of(), text_of()
            except Exception:  # e.g. the screen not mounted yet
                return False
            return bool(text) and text in region_text(self.app, widget)

        self.seen.clear()
        self.at = self.cpu_at = None
        self._shows = shows


def region_text(app: Any, widget: Any) -> str:
    """The text the screen's last frame shows inside `widget`'s region."""
    region = widget.region
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return "\n".join(strip.crop(region.x, region.right).text for strip in strips)


def _time_listing(arrivals: list[float], cpu_arrivals: list[float]) -> None:
    """Note when each listing answer is in hand (the first one is "the first page arriving"),
    and the process's CPU time then."""
    from crossdeck.api.client import ServiceClient

    original = ServiceClient.list_requests

    async def timed(self: ServiceClient, query: Any = None) -> Any:
        page = await original(self, query)
        arrivals.append(time.perf_counter())
        cpu_arrivals.append(time.process_time())
        return page

    ServiceClient.list_requests = timed  # type: ignore[method-assign]


# -- the anchor for first rows: a bare DataTable given the same page -----------------------------


def _bare_child(
    conn: Connection, url: str, api_key: str, wallet: str, table_size: tuple[int, int]
) -> None:
    import traceback

    try:
        conn.send(asyncio.run(_bare_run(url, api_key, wallet, table_size)))
    except BaseException:
        conn.send({"error": traceback.format_exc()})


async def _bare_run(
    url: str, api_key: str, wallet: str, table_size: tuple[int, int]
) -> dict[str, Any]:
    """`table_size`: the History table's (width, height) on the same terminal, so that the bare
    table paints as many rows as the screen's (a whole-terminal table paints about three times
    as many: an anchor slower for what the screen never does)."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from crossdeck.api.client import ServiceClient
    from crossdeck.history import TABLE_COLUMNS, build_query, summarize

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            table: DataTable[Any] = DataTable(cursor_type="row")
            table.styles.width, table.styles.height = table_size
            yield table

    spans: list[float] = []
    cpu_spans: list[float] = []
    idles: list[float] = []
    async with ServiceClient(url, api_key=api_key) as client:
        app = Bare()
        async with app.run_test(size=SCREEN_SIZE) as pilot:
            table = app.query_one(DataTable)
            table.add_columns(*TABLE_COLUMNS)
            await pilot.pause()
            frames = FrameWatch(app)
            for _ in range(5):
                table.clear()
                await pilot.pause()
                page = await client.list_requests(build_query(user=wallet, limit=PAGE))
                arrived, cpu_arrived = time.perf_counter(), time.process_time()
                rows = [summarize(record, compact=True) for record in page.requests]
                frames.watch(lambda: table, lambda first=rows[0]: first.short_id)
                for row in rows:
                    table.add_row(*row.cells(), key=row.id)
                painted = asyncio.Event()
                table.call_after_refresh(painted.set)
                await asyncio.wait_for(frames.seen.wait(), 30)
                await asyncio.wait_for(painted.wait(), 30)
                idles.append(time.perf_counter() - arrived)
                assert frames.at is not None and frames.cpu_at is not None
                spans.append(frames.at - arrived)
                cpu_spans.append(frames.cpu_at - cpu_arrived)
    return {
        "first_rows": statistics.median(spans),
        "first_rows_cpu": statistics.median(cpu_spans),
        "first_idle": statistics.median(idles),
        "rows": table.row_count,
    }


# -- the History screen ------------------------------------------------------------------------


def _screen_child(
    conn: Connection,
    world_file: str,
    api_key: str,
    wallet: str,
    expected: int,
    probe: int,
    traced: bool,
    budget: float,
) -> None:
    """The real app, headless, opened on History: the first page's arrival to its frame, then
    the table paged to the end with ctrl+end, as a user holding it would."""
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
        from textual.events import Key
        from textual.widgets import DataTable

        from crossdeck.base.secret import Secret
        from crossdeck.config import load_settings
        from crossdeck.history.feed import PAGE_SIZE
        from crossdeck.tui.app import CrossdeckApp
        from crossdeck.tui.screens.history import HistoryScreen
        from crossdeck.tui.services import Secrets

        imports = time.perf_counter() - started
        arrivals: list[float] = []
        cpu_arrivals: list[float] = []
        _time_listing(arrivals, cpu_arrivals)
        if traced:
            tracemalloc.start()
        try:
            out = asyncio.run(
                _screen_run(
                    CrossdeckApp,
                    HistoryScreen,
                    DataTable,
                    Key,
                    settings=load_settings(None, world_file),
                    # the secrets in memory, as the app tests give them: no key is written
                    secrets=Secrets(Secret(api_key), wallet),
                    work=work,
                    expected=expected,
                    probe=probe,
                    traced=traced,
                    budget=budget,
                    arrivals=arrivals,
                    cpu_arrivals=cpu_arrivals,
                )
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
        out["imports"] = imports
        out["page_size"] = PAGE_SIZE
        if traced:
            out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        out["peak_rss_mb"] = _peak_rss_mb()
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
    probe: int,
    traced: bool,
    budget: float,
    arrivals: list[float],
    cpu_arrivals: list[float],
) -> dict[str, Any]:
    import tracemalloc

    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget

    started = time.perf_counter()
    app = app_class(
        settings,
        secrets=secrets,
        ui_state_file=work / "tui-state.json",
        user_themes=work / "themes",
        start_mode="history",
    )
    frames = FrameWatch(app)
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
                await asyncio.sleep(0.001)

        async def drawn(widget: Any) -> None:
            """Until the screen has refreshed (painted) after what happened so far."""
            painted = asyncio.Event()
            widget.call_after_refresh(painted.set)
            await until(painted.is_set, "a frame")

        def press(key: str) -> None:
            # the key event the terminal driver would post (pilot.press also waits for the
            # process to go idle, twice, which would be timed as the screen's own time)
            app.post_message(key_class(key, None))

        def history_table() -> Any:
            if not isinstance(app.screen, screen_class):
                raise LookupError("not on the History screen (yet)")
            return app.screen.query_one("#history-table", table_class)

        def shown_id(request_id: str) -> str:
            """The request's id as the table shows it (shortened)."""
            return str(app.screen.feed.rows[request_id].short_id)

        def rows_on_screen(*request_ids: str) -> bool:
            """Each request's row is in the table's part of the last frame (the detail pane
            shows the highlighted request's whole id, so the whole screen would not do)."""
            text = region_text(app, history_table())
            return all(shown_id(rid) in text for rid in request_ids)

        frames.watch(history_table, lambda: shown_id(app.screen.feed.ids[0]))
        await until(frames.seen.is_set, "the frame with the first rows")
        assert frames.at is not None
        first_frame_at = frames.at
        first_rows = first_frame_at - started
        first_page_to_frame = first_frame_at - arrivals[0]
        assert frames.cpu_at is not None
        first_page_to_frame_cpu = frames.cpu_at - cpu_arrivals[0]
        screen = app.screen
        table = history_table()
        rows_at_first = table.row_count
        table_size = (table.region.width, table.region.height)
        await drawn(table)
        first_idle = time.perf_counter()
        ready = first_idle - started
        first_page_to_idle = first_idle - arrivals[0]
        if not rows_on_screen(screen.feed.ids[0]):
            raise AssertionError("History screen: the first row is not drawn")

        def passed() -> int:
            """Rows of the listing up to the table's last (the screen before the window had
            no offset: its table held every row)."""
            return screen.feed.offset + table.row_count

        async def key_latency(key: str, times: int) -> list[float]:
            took = []
            for _ in range(times):
                before, pressed = table.cursor_row, time.perf_counter()
                press(key)
                await until(lambda b=before: table.cursor_row != b, f"{key} to move the cursor")
                await drawn(table)
                took.append(time.perf_counter() - pressed)
            return took

        # page to the end as a user does: the table focused, ctrl+end again and again; the
        # cursor on the last rows makes the screen load the next page by its own logic. Should a
        # press load nothing (the screen busy), the user presses m (More), as the status says.
        table.focus()
        early_keys = await key_latency("down", 3)
        started_paging = time.perf_counter()
        pages: list[float] = []
        more_presses = 0
        most_rows = table.row_count
        rss_at_probe = traced_at_probe = None

        def all_loaded() -> bool:
            loader = screen.feed.loader
            return loader is not None and not loader.has_more and not loader.is_loading

        while not all_loaded():
            before, pressed = passed(), time.perf_counter()
            press("ctrl+end")

            def grown(b: int = before) -> bool:
                return passed() > b or all_loaded()

            while not await until(grown, f"rows after {before}", within=5.0):
                more_presses += 1
                press("m")
            if passed() > before:
                await drawn(table)
                pages.append(time.perf_counter() - pressed)
            most_rows = max(most_rows, table.row_count)
            if rss_at_probe is None and passed() >= probe:
                rss_at_probe = _peak_rss_mb()
                traced_at_probe = tracemalloc.get_traced_memory()[1] / 2**20 if traced else None
        press("ctrl+end")
        await until(lambda: table.cursor_row == table.row_count - 1, "the cursor on the last row")
        await drawn(table)
        total = time.perf_counter() - started
        paging = time.perf_counter() - started_paging
        traced_end = tracemalloc.get_traced_memory()[1] / 2**20 if traced else None

        last_id = f"0x{1:064x}"  # the oldest seeded request: the listing's last row
        if passed() != expected or screen.feed.ids[-1] != last_id:
            raise AssertionError(
                f"History screen: {passed()} rows passed after paging to the end "
                f"(last {screen.feed.ids[-1]}), expected {expected} (last {last_id})"
            )
        if not rows_on_screen(last_id):
            raise AssertionError("History screen: the last row is not drawn")
        late_keys = await key_latency("up", 10)
        # back to the first row from the last: ctrl+home (the first page read again when the
        # window left it)
        first_id = f"0x{expected:064x}"
        jumped = time.perf_counter()
        press("ctrl+home")
        await until(lambda: table.cursor_row == 0 and screen.feed.ids[0] == first_id, "ctrl+home")
        await drawn(table)
        home = time.perf_counter() - jumped
        if not rows_on_screen(first_id):
            raise AssertionError("History screen: the first row is not drawn after ctrl+home")
        await pilot.pause()
    return {
        "first": first_rows,
        "ready": ready,
        "first_page_to_frame": first_page_to_frame,
        "first_page_to_frame_cpu": first_page_to_frame_cpu,
        "first_page_to_idle": first_page_to_idle,
        "rows_at_first": rows_at_first,
        "table_size": table_size,
        "total": total,
        "paging": paging,
        "rows": passed(),
        "most_rows": most_rows,
        "pages": pages,
        "more_presses": more_presses,
        "key_early": statistics.median(early_keys),
        "key_late": statistics.median(late_keys),
        "home": home,
        "rss_at_probe_mb": rss_at_probe,
        "traced_at_probe_mb": traced_at_probe,
        "traced_end_mb": traced_end,
    }


# -- main ------------------------------------------------------------------------------------


def _median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--probe", type=int, default=1_000, help="rows for the first peak")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--traced", action="store_true", help="also a tracemalloc screen run")
    parser.add_argument("--run-timeout", type=float, default=300.0)
    args = parser.parse_args()
    if not PAGE <= args.probe < args.requests or args.probe % PAGE:
        parser.error(f"--probe must be a multiple of {PAGE} below --requests")

    from crossdeck.sim.world import World

    state_dir = _state_dir()
    work = Path(tempfile.mkdtemp(prefix="crossdeck-history-bench-"))
    # a full walk is N/50 requests per run; the demo world's default limits are for demos
    world = World(speed=0, state_dir=state_dir, rate_limits=(10**6, 10**6))
    n, probe = args.requests, args.probe
    cli: dict[str, list[CliRun]] = {"probe": [], "all": []}
    bare: list[dict[str, Any]] = []
    screens: list[dict[str, Any]] = []
    traced: list[dict[str, Any]] = []
    try:
        world.start_blocking()
        started = time.perf_counter()
        _seed(world, n)
        print(f"seeded {n} requests in {time.perf_counter() - started:.1f} s", flush=True)
        world_file = work / "world.json"
        world_file.write_text(json.dumps(world.info))
        (work / "config.toml").write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")}
        env["CROSSDECK_CONFIG"] = str(work / "config.toml")
        screen_args = (str(world_file), world.api_key, world.wallet_address, n, probe)
        budget = args.run_timeout * 0.9
        for run in range(args.runs):
            cli["probe"].append(
                _cli_run(
                    world_file, env, ["--json", "--pages", str(probe // PAGE)], args.run_timeout
                )
            )
            cli["all"].append(_cli_run(world_file, env, ["--json", "--all"], args.run_timeout))
            screens.append(
                _spawn(
                    _screen_child,
                    (*screen_args, False, budget),
                    "History screen run",
                    args.run_timeout,
                )
            )
            bare.append(
                _spawn(
                    _bare_child,
                    (
                        world.service_url,
                        world.api_key,
                        world.wallet_address,
                        tuple(screens[-1]["table_size"]),
                    ),
                    "bare DataTable run",
                    args.run_timeout,
                )
            )
            if args.traced:
                traced.append(
                    _spawn(
                        _screen_child,
                        (*screen_args, True, budget),
                        "History screen run (traced)",
                        args.run_timeout,
                    )
                )
            print(f"run {run + 1}/{args.runs} done", flush=True)
    finally:
        world.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    runs = f"median of {args.runs} run(s)" if args.runs > 1 else "1 run"
    print(f"\n{n} requests, {PAGE} per page, {runs}\n")
    for name, got in (("--pages", cli["probe"]), ("--all", cli["all"])):
        if got[0].rows != (probe if name == "--pages" else n):
            raise SystemExit(f"crossdeck requests {name}: {got[0].rows} rows")

    def med(key: str, of: list[dict[str, Any]] = screens) -> float:
        return _median([r[key] for r in of])

    cli_probe = _median([r.peak_rss_mb for r in cli["probe"]])
    cli_all = _median([r.peak_rss_mb for r in cli["all"]])
    screen_probe, screen_all = med("rss_at_probe_mb"), med("peak_rss_mb")
    cli_growth, screen_growth = cli_all / cli_probe, screen_all / screen_probe
    per_row = (screen_all - screen_probe) * 1024 / (n - probe)
    cli_per_row = (cli_all - cli_probe) * 1024 / (n - probe)
    print(f"Memory while paging: peak RSS at {probe:,} rows -> at {n:,} rows")
    print(
        f"  anchor  crossdeck requests --json, --pages {probe // PAGE} -> --all: "
        f"{cli_probe:6.1f} -> {cli_all:6.1f} MB  x{cli_growth:.2f}  ({cli_per_row:+.2f} KB/row)"
    )
    print(
        f"  screen  History, ctrl+end paging:                 "
        f"{screen_probe:6.1f} -> {screen_all:6.1f} MB  x{screen_growth:.2f}  "
        f"({per_row:+.2f} KB/row)"
        f"; the table held at most {max(r['most_rows'] for r in screens)} rows"
    )
    print(
        f"  ratio   screen growth / anchor growth: {screen_growth / cli_growth:.2f}"
        "  (1.00: as flat as the streaming CLI)"
    )
    if traced:
        at_probe, at_end = med("traced_at_probe_mb", traced), med("traced_end_mb", traced)
        print(
            f"  traced  screen Python heap peak: {at_probe:.1f} MB at {probe:,} rows -> "
            f"{at_end:.1f} MB at {n:,} (x{at_end / at_probe:.2f})"
        )

    anchor_first, screen_first = med("first_rows", bare), med("first_page_to_frame")
    anchor_idle, screen_idle = med("first_idle", bare), med("first_page_to_idle")
    anchor_cpu, screen_cpu = med("first_rows_cpu", bare), med("first_page_to_frame_cpu")
    print("\nFirst rows: the first page's answer in hand -> the frame that draws its rows")
    print(
        f"  anchor  a bare DataTable app, same page:   {anchor_first * 1000:6.1f} ms"
        f"  (CPU {anchor_cpu * 1000:.1f} ms; idle after it: {anchor_idle * 1000:.1f} ms)"
    )
    print(
        f"  screen  History as the app opens:          {screen_first * 1000:6.1f} ms"
        f"  (CPU {screen_cpu * 1000:.1f} ms; idle after it: {screen_idle * 1000:.1f} ms)"
        f"  (goal 100 ms: {'met' if screen_first <= 0.1 else 'NOT met'})"
    )
    print(
        f"  ratio   screen / anchor: {screen_first / anchor_first:.2f}"
        f" (of CPU time: {screen_cpu / anchor_cpu:.2f})"
    )

    pages = [r["pages"] for r in screens]
    tenth = max(min(len(p) for p in pages) // 10, 1)
    early = _median([statistics.median(p[:tenth]) for p in pages])
    late = _median([statistics.median(p[-tenth:]) for p in pages])

    def ms(key: str) -> str:
        return f"{med(key) * 1000:.0f} ms"

    print("\nAlso (the screen)")
    print(
        f"  building the app -> first rows drawn {med('first'):.3f} s (idle after it "
        f"{med('ready'):.3f} s; imports before it {med('imports'):.2f} s); all {n:,} rows "
        f"paged in {med('paging'):.1f} s"
    )
    print(
        f"  ctrl+end -> next page drawn: {early * 1000:.0f} ms (first {tenth} pages), "
        f"{late * 1000:.0f} ms (last {tenth}); m pressed "
        f"{max(r['more_presses'] for r in screens)} time(s) when ctrl+end loaded nothing"
    )
    print(
        f"  a cursor key -> frame: {ms('key_early')} at the first page, {ms('key_late')} at "
        f"the end; ctrl+home from the last row back to the first {ms('home')}"
    )
    print(
        f"  CLI first row: --pages {cli['probe'][0].first_row_s:.3f} s, --all "
        f"{cli['all'][0].first_row_s:.3f} s; --all total {cli['all'][0].total_s:.1f} s"
    )


if __name__ == "__main__":
    main()
