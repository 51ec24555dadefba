"""Honest run state in the app, against the demo world: a declined run leaves nothing followed
or offered; ctrl+q during a run asks first and, on quitting, says how to continue; the next
start offers the unfinished run and resumes it in the Execute screen to its end."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from textual.widgets import Input
from tui_support import chains_loaded, make_app, screen_text, wait_until

from crossdeck.execute import events as ev
from crossdeck.execute.journal import Journal
from crossdeck.track.store import StatusStore
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen
from crossdeck.tui.screens.run_dialogs import QuitDuringRunScreen, ResumeOfferScreen


def _configured_data_dir() -> Path:
    """The data dir tui_dir's config names (journal and tracking store live there)."""
    return Path(tomllib.loads(Path(os.environ["CROSSDECK_CONFIG"]).read_text())["data_dir"])


async def _start_a_run(pilot: Any, answer: str) -> ExecuteScreen:
    """Quote 0.01 ETH into the venue, execute, answer the first confirmation."""
    app = pilot.app
    await chains_loaded(pilot)
    app.quote_screen.query_one("#amount", Input).value = "0.01"
    await pilot.pause(0.2)
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
    await pilot.press("ctrl+g")
    execute: ExecuteScreen = await wait_until(
        pilot,
        lambda: next((s for s in app.screen_stack if isinstance(s, ExecuteScreen)), None),
        what="the Execute screen",
    )
    dialog = await wait_until(
        pilot,
        lambda: isinstance(app.screen, ConfirmScreen) and app.screen,
        what="the confirm dialog",
        within=60,
    )
    await pilot.press(answer)
    await wait_until(pilot, lambda: app.screen is not dialog, what="the dialog to close")
    return execute


async def test_a_declined_run_leaves_nothing_tracked(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        execute = await _start_a_run(pilot, "n")
        await wait_until(pilot, lambda: execute.outcome is not None, what="the end")
        assert isinstance(execute.outcome, ev.Failed) and execute.outcome.error_type == "Declined"
        text = await wait_until(
            pilot, lambda: "DECLINED" in (t := screen_text(app)) and t, what="DECLINED"
        )
        assert "DECLINED" in text and "nothing was sent" in text and "FAILED" not in text
        await pilot.pause(0.5)
        assert app.live.requests == {}  # Live status never followed it
        rid = execute.request_id
    data = _configured_data_dir()
    with StatusStore.in_data_dir(data) as store:
        assert store.get(rid) is None and store.unfinished() == []
    with Journal.in_data_dir(data) as journal:
        run = journal.run(rid)
        assert run is not None and not run.sent and run.label == "declined, nothing sent"
        assert journal.unfinished() == [] and journal.latest_unfinished() is None


async def test_quit_during_a_run_asks_then_the_next_start_resumes_it(
    world: Any, tui_dir: Path
) -> None:
    # status answers fail (503) until cleared: the deposit is sent, the run keeps tracking
    world.faults.inject("503", 100_000, path="/intents/status")
    try:
        app = make_app(world, tui_dir)
        async with app.run_test(size=(120, 36)) as pilot:
            execute = await _start_a_run(pilot, "y")
            await wait_until(pilot, lambda: execute.followed, what="the deposit sent", within=60)
            assert execute.running
            rid = execute.request_id
            await pilot.press("ctrl+q")
            dialog = await wait_until(
                pilot,
                lambda: isinstance(app.screen, QuitDuringRunScreen) and app.screen,
                what="the quit question",
            )
            await wait_until(
                pilot, lambda: f"crossdeck resume {rid}" in screen_text(app), what="the command"
            )
            await pilot.press("escape")  # stay: the app and the run go on
            await wait_until(pilot, lambda: app.screen is not dialog, what="the dialog gone")
            assert execute.running and app.is_running
            await pilot.press("ctrl+q")
            await wait_until(
                pilot, lambda: isinstance(app.screen, QuitDuringRunScreen), what="asked again"
            )
            await pilot.press("y")
            await wait_until(pilot, lambda: app._exit, what="the app to quit")
            said = [str(r) for r in app._exit_renderables]
            assert any(f"continue it with: crossdeck resume {rid}" in s for s in said), said
            assert any("start `crossdeck demo` again" in s for s in said), said
    finally:
        world.faults.clear()

    with Journal.in_data_dir(_configured_data_dir()) as journal:
        assert [run.request_id for run in journal.unfinished()] == [rid]

    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        offer = await wait_until(
            pilot,
            lambda: isinstance(app.screen, ResumeOfferScreen) and app.screen,
            what="the offer to resume",
            within=30,
        )
        await wait_until(pilot, lambda: rid in screen_text(app), what="the run in the offer")
        assert [run.request_id for run in offer.runs] == [rid]
        # the offer names the move (amount and route), in a dialog centred on the screen
        assert " ETH on chain 8453 -> " in screen_text(app)
        box = offer.query_one("#resume-offer-box").region
        assert abs(box.x - (120 - box.right)) <= 1 and box.y > 0
        await pilot.press("enter")
        resumed: ExecuteScreen = await wait_until(
            pilot,
            lambda: isinstance(app.screen, ExecuteScreen) and app.screen,
            what="the Execute screen resuming it",
        )
        assert resumed.resume and resumed.request_id == rid
        await wait_until(pilot, lambda: resumed.outcome is not None, what="the end", within=60)
        outcome = resumed.outcome
        assert isinstance(outcome, ev.Finished) and outcome.status == "success", outcome
        started = [e for e in resumed.events if isinstance(e, ev.RunStarted)]
        assert started and started[0].resumed
        # what was sent before is found, not sent again
        assert not any(isinstance(e, ev.TxSent) for e in resumed.events)
        assert any(isinstance(e, ev.ItemSkipped) for e in resumed.events)
    with Journal.in_data_dir(_configured_data_dir()) as journal:
        assert journal.unfinished() == []
        assert journal.run(rid).final_status == "success"
