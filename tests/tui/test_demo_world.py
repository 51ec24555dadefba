"""`crossdeck demo` itself, twice, with the app driven by a pilot instead of a terminal (the
launcher is the only thing swapped): the first run executes a deposit, whose statuses reach Live
status as webhooks from the world; the second run, on the kept world, still shows that request
with its final status (no "404") and the balances it left; `--fresh` forgets it all."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from textual.widgets import DataTable, Input
from tui_support import chains_loaded, screen_text, settled_text, wait_until

from crossdeck.cli import main
from crossdeck.config import load_settings
from crossdeck.execute import events as ev
from crossdeck.execute.journal import Journal
from crossdeck.track.updates import Source
from crossdeck.tui.app import CrossdeckApp
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen

Scenario = Callable[[Any, dict[str, Any]], Awaitable[None]]


def _withdrawable(venue_url: str, user: str) -> Decimal:
    body = {"type": "clearinghouseState", "user": user}
    return Decimal(httpx.post(venue_url + "/info", json=body).json()["withdrawable"])


def _run_demo(
    monkeypatch: pytest.MonkeyPatch, tmp: Path, scenario: Scenario, *args: str
) -> dict[str, Any]:
    """`crossdeck demo --speed 4 ARGS`, its app driven by `scenario(pilot, seen)`."""
    seen: dict[str, Any] = {}

    def launch(obj: Any) -> None:
        settings = load_settings(obj.profile, obj.world)
        seen["settings"] = settings
        app = CrossdeckApp(settings, ui_state_file=tmp / "ui.json", user_themes=tmp / "themes")

        async def drive() -> None:
            async with app.run_test(size=(120, 36)) as pilot:
                await scenario(pilot, seen)

        asyncio.run(drive())

    monkeypatch.setattr("crossdeck.cli.app_launch.launch_app", launch)
    # paced (not instant) statuses: each is pushed by its webhook before a poll can see it
    result = CliRunner().invoke(main, ["demo", "--speed", "4", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return seen


async def _deposit(pilot: Any, seen: dict[str, Any]) -> None:
    app = pilot.app
    settings = seen["settings"]
    wallet = settings.world.wallet_address
    seen["before"] = _withdrawable(settings.venue.url, wallet)
    await chains_loaded(pilot)
    app.quote_screen.query_one("#amount", Input).value = "0.01"
    await pilot.pause(0.2)
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
    await pilot.press("ctrl+g")
    execute = await wait_until(
        pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen, what="confirm"
    )
    await pilot.press("y")
    execute = await wait_until(
        pilot,
        lambda: next((s for s in app.screen_stack if isinstance(s, ExecuteScreen)), None),
        what="the Execute screen",
    )
    await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
    assert isinstance(execute.outcome, ev.Finished) and execute.outcome.status == "success"
    rid = execute.request_id
    await pilot.press("f5")

    def pushed() -> bool:
        tracked = app.live.get(rid)
        return tracked is not None and any(u.source is Source.WEBHOOK for u in tracked.timeline)

    await wait_until(pilot, pushed, what="a webhook on Live status", within=30)
    assert app.live.webhook_url
    await wait_until(
        pilot,
        lambda: "webhooks: http://127.0.0.1:" in screen_text(app),
        what="Live status naming the receiver",
    )

    def timeline_sources() -> list[str]:
        table = app.screen.query_one("#live-timeline", DataTable)
        return [str(table.get_row_at(i)[2]) for i in range(table.row_count)]

    # the request's timeline on the screen: a row whose source is the webhook
    await wait_until(pilot, lambda: "webhook" in timeline_sources(), what="a webhook row")
    seen["rid"] = rid
    seen["after"] = _withdrawable(settings.venue.url, wallet)
    assert seen["after"] > seen["before"]


async def _look_again(pilot: Any, seen: dict[str, Any]) -> None:
    """History lists the earlier request from the kept world; followed on Live status, the
    service knows it (its final status, no 404)."""
    app = pilot.app
    rid = seen["rid"]
    await chains_loaded(pilot)
    await pilot.press("f4")
    await wait_until(
        pilot, lambda: rid in app.screen.feed.ids, what="the earlier request in History"
    )
    app.track_request(rid)
    tracked = await wait_until(
        pilot,
        lambda: (t := app.live.get(rid)) is not None and t.final and t,
        what="the earlier request, final, on Live status",
        within=30,
    )
    assert tracked.status == "success" and tracked.problem is None
    await pilot.press("f5")
    await pilot.pause(0.5)
    # the service's refusal as the app words it ("does not know ID (404)"); a bare "404" can be
    # part of a hash or an exact amount the Live status rows now show
    text = await settled_text(pilot)
    assert "(404)" not in text and "does not know" not in text and "NOT_FOUND" not in text
    settings = seen["settings"]
    seen["balance"] = _withdrawable(settings.venue.url, settings.world.wallet_address)


async def _nothing_kept(pilot: Any, seen: dict[str, Any]) -> None:
    await chains_loaded(pilot)
    await pilot.pause(1.0)
    seen["tracked"] = list(pilot.app.live.requests)
    settings = seen["settings"]
    seen["balance"] = _withdrawable(settings.venue.url, settings.world.wallet_address)


def test_a_restarted_demo_keeps_its_world_and_webhooks_reach_live_status(
    tui_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the demo sets these for the app it opens, and takes them back when it closes
    for name in ("CROSSDECK_DATA_DIR", "CROSSDECK_WEBHOOK__PORT"):
        monkeypatch.delenv(name, raising=False)
    first = _run_demo(monkeypatch, tui_dir, _deposit)
    rid = first["rid"]
    home = tui_dir / "data" / "demo"
    assert first["settings"].data_dir == home / "app"  # the demo's journal, beside its world

    async def look_again(pilot: Any, seen: dict[str, Any]) -> None:
        seen["rid"] = rid
        await _look_again(pilot, seen)

    again = _run_demo(monkeypatch, tui_dir, look_again)
    assert again["balance"] == first["after"]  # the venue credit of the first run is there
    with Journal.in_data_dir(home / "app") as journal:
        run = journal.run(rid)
        assert run is not None and run.final_status == "success" and not journal.unfinished()

    fresh = _run_demo(monkeypatch, tui_dir, _nothing_kept, "--fresh")
    assert fresh["tracked"] == []
    assert fresh["balance"] < first["after"]  # a new world, funded anew
    with Journal.in_data_dir(home / "app") as journal:
        assert journal.runs() == []
    assert "CROSSDECK_DATA_DIR" not in os.environ and "CROSSDECK_WEBHOOK__PORT" not in os.environ


def test_a_second_demo_on_the_same_home_is_refused_and_touches_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from crossdeck.sim.dir_lock import DirectoryLock

    home = tmp_path / "home"
    kept = home / "world" / "service.sqlite3"
    kept.parent.mkdir(parents=True)
    kept.write_text("the first demo's world")
    first = DirectoryLock(home, "crossdeck demo")  # what the running demo holds
    first.acquire()

    def launch(obj: Any) -> None:
        raise AssertionError("a refused demo must not open the app")

    monkeypatch.setattr("crossdeck.cli.app_launch.launch_app", launch)
    try:
        result = CliRunner().invoke(main, ["demo", "--fresh", "--state-dir", str(home)])
    finally:
        first.release()
    assert result.exit_code == 1, result.output
    assert f"crossdeck demo is already running on {home} (pid {os.getpid()})" in result.output
    assert kept.read_text() == "the first demo's world"  # --fresh deleted nothing
