"""Every screen resized live from 120x36 to 80x24 reads as when started at 80x24 (issue 35
point 2): SVG snapshots taken after the resize, and held to the same rules as the others: no
amount, balance or hash cut by an ellipsis, and every money column still there (a column
shrinks by shortening hashes in the middle, never by dropping a money column).

The screens are set up as `test_snapshots.py` sets them up, then resized while running: Quote,
a run's end (Execute), Venue, Portfolio, History, Live status, Settings and Help."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from svg_text import cut_values, svg_lines
from test_snapshots import (
    SNAPSHOT_DIR,
    FeedWindow,
    RowsLoaded,
    _app,
    _replay,
    _settle,
    _show_quote,
    board_of_recorded_runs,
    load_fixture,
    settings_app,
    summarize,
)
from tui_support import chains_loaded, screen_text, wait_until

from crossdeck.models import RequestsPage
from crossdeck.tui.services import Secrets

WIDE = (120, 36)
NARROW = (80, 24)
SNAPSHOTS = Path(__file__).parent / "__snapshots__" / Path(__file__).stem


@pytest.fixture(scope="module")
def snap_world(start_world: Any) -> Iterator[Any]:
    """A world of this module's own: fresh balances, as test_snapshots.py's."""
    with start_world("py-evm") as world:
        yield world


async def _resize(pilot: Any) -> None:
    await pilot.resize_terminal(*NARROW)
    await pilot.pause(0.2)
    await _settle(pilot)


def test_portfolio_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: app.screen.portfolio is not None, what="the portfolio")
        app.screen.expanded = {"USDC", "ETH"}
        app.screen.render_rows()
        await _settle(pilot)
        await _resize(pilot)

    app = _app(snap_world, tui_dir, start_mode="portfolio")
    assert snap_compare(app, terminal_size=WIDE, run_before=ready)


def test_quote_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        await _show_quote(pilot, "deposit")
        await _resize(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=WIDE, run_before=ready)


def test_venue_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: app.screen.data.get("spot") is not None, what="balances")
        await _settle(pilot)
        await _resize(pilot)

    app = _app(snap_world, tui_dir, start_mode="venue")
    assert snap_compare(app, terminal_size=WIDE, run_before=ready)


def test_history_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        await wait_until(
            pilot,
            lambda: app.current_mode == "history" and "No requests match" in screen_text(app),
            what="the world's (empty) first page",
        )
        screen = app.screen
        page = RequestsPage.from_wire(load_fixture("requests_page.json"))
        rows = [summarize(record) for record in page.requests]
        screen.post_message(RowsLoaded(FeedWindow(rows, reset=True, has_more=False)))
        await wait_until(pilot, lambda: len(screen.feed.ids) == len(rows), what="the rows")
        await wait_until(
            pilot,
            lambda: "Child requests: none" in screen.query_one("#history-detail").text,
            what="the child lookup of the first row",
        )
        await _settle(pilot)
        await _resize(pilot)

    app = _app(snap_world, tui_dir, start_mode="history")
    assert snap_compare(app, terminal_size=WIDE, run_before=ready)


def test_live_status_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: app.live.webhook_note, what="the tracker's start")
        board_of_recorded_runs(app)
        await _settle(pilot)
        await _resize(pilot)

    app = _app(
        snap_world, tui_dir, start_mode="live", secrets=Secrets(None, snap_world.wallet_address)
    )
    assert snap_compare(app, terminal_size=WIDE, run_before=ready)


def test_execute_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    """A run's end (what came back, the transactions) resized live."""
    replay = _replay("deposit")

    async def ready(pilot: Any) -> None:
        await replay(pilot)
        await _resize(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=WIDE, run_before=ready)


def test_settings_resized(
    snap_world: Any, tui_dir: Path, snap_compare: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = settings_app(snap_world, tui_dir, monkeypatch)

    async def ready(pilot: Any) -> None:
        await pilot.pause(0.2)
        await _settle(pilot)
        await _resize(pilot)

    try:
        assert snap_compare(app, terminal_size=WIDE, run_before=ready)
    finally:
        shutil.rmtree(SNAPSHOT_DIR, ignore_errors=True)


def test_help_resized(snap_world: Any, tui_dir: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        await chains_loaded(pilot)
        await pilot.press("f1")
        await pilot.pause(0.2)
        await _settle(pilot)
        pilot.app.screen.query_one("DataTable").focus()
        await _resize(pilot)

    assert snap_compare(_app(snap_world, tui_dir), terminal_size=WIDE, run_before=ready)


def test_every_resized_snapshot_keeps_its_amounts_and_hashes_whole() -> None:
    pictures = sorted(SNAPSHOTS.glob("*.svg"))
    # one per screen: Quote, Execute, Venue, Portfolio, History, Live status, Settings, Help
    assert {p.stem.removeprefix("test_").removesuffix("_resized") for p in pictures} == {
        "quote",
        "execute",
        "venue",
        "portfolio",
        "history",
        "live_status",
        "settings",
        "help",
    }
    for picture in pictures:
        lines = svg_lines(picture)
        assert max(len(line) for line in lines) <= NARROW[0], picture.name
        assert not cut_values(lines), (picture.name, cut_values(lines))
    portfolio = svg_lines(SNAPSHOTS / "test_portfolio_resized.svg")
    header = next(line for line in portfolio if "asset / chain" in line)
    assert "amount" in header and "USD" in header  # no money column dropped
    assert any("$465,000.00" in line for line in portfolio)  # USDC on 5 chains and 3 books
    live = svg_lines(SNAPSHOTS / "test_live_status_resized.svg")
    header = next(line for line in live if " request  " in line)
    assert "status" in header and "sent" in header and "received" in header  # kept at 80
    assert any("0.05 ETH, $150.00  5.9846 HYPE, $149.61" in line for line in live)
    history = svg_lines(SNAPSHOTS / "test_history_resized.svg")
    header = next(line for line in history if " ID " in line)
    assert "AMOUNT" in header and "IN TX" not in header  # as when started at 80 columns


def test_venue_resized_reads_as_started_narrow_with_amounts_as_wallets_show_them() -> None:
    resized = svg_lines(SNAPSHOTS / "test_venue_resized.svg")
    started = svg_lines(SNAPSHOTS.parent / "test_snapshots" / "test_venue[80x24].svg")
    assert resized == started  # laid out again as if the app had started at 80x24
    assert any("perps        50,000 USDC" in line for line in resized)
    assert any("10,000 USDC  0 USDC  10,000 USDC" in line for line in resized)
    assert not any("50000.0" in line or "10000.0" in line for line in resized)


@pytest.mark.parametrize("screen", ["settings", "help"])
def test_resized_reads_as_started_narrow(screen: str) -> None:
    """Settings and Help have nothing that changes between runs: resized live, each is the very
    picture of the screen started at 80x24."""
    resized = svg_lines(SNAPSHOTS / f"test_{screen}_resized.svg")
    assert resized == svg_lines(SNAPSHOTS.parent / "test_snapshots" / f"test_{screen}[80x24].svg")


def test_execute_resized_lays_the_steps_out_again() -> None:
    """A run's end resized live: the steps' state column is still on screen (the "what" column
    wraps in the new width) and the progress log shows its last line."""
    lines = svg_lines(SNAPSHOTS / "test_execute_resized.svg")
    header = next(line for line in lines if "what" in line and "kind" in line)
    assert "state" in header
    assert any("confirmed 0x3e6a…374f" in line for line in lines)
    assert any("finished: success" in line for line in lines)
