"""History lists the wallet's requests from /requests/v2; Live status follows requests with their
timelines, from polls and from webhooks (the world posts them to the app's receiver)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input
from tui_support import (
    chains_loaded,
    deposit_by_executor,
    make_app,
    screen_text,
    wait_until,
    world_settings,
)

from crossdeck import compose
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen

NATIVE = "0x" + "0" * 40
PERPS = "0x" + "0" * 32


@pytest.fixture(scope="module")
def own_world(start_world: Any) -> Iterator[Any]:
    """A world of this module's own: its webhook endpoint is re-pointed at the app here."""
    with start_world("py-evm") as world:
        yield world


@pytest.fixture(scope="module")
def finished_request(own_world: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    return asyncio.run(deposit_by_executor(own_world, tmp_path_factory.mktemp("journal")))


async def test_history_lists_the_request_and_t_follows_it_live(
    own_world: Any, finished_request: str, tui_dir: Path
) -> None:
    app = make_app(own_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f4")
        await wait_until(pilot, lambda: app.current_mode == "history", what="History")
        table = await wait_until(
            pilot,
            lambda: (t := app.screen.query_one(DataTable)).row_count and t,
            what="the first page of requests",
        )
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row[0] == finished_request[:8] + "…" + finished_request[-6:] or (
            finished_request[:8] in row[0]
        )
        assert row[1] == "success" and row[3] == "8453->1337"
        assert "1 request(s)" in screen_text(app) and "that is all" in screen_text(app)
        table.focus()
        await pilot.press("t")
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.current_mode == "live", what="Live status")
        tracked = await wait_until(
            pilot,
            lambda: (t := app.live.get(finished_request)) and t.final and t,
            what="the request's final status on Live",
        )
        assert tracked.status == "success"
        assert tracked.timeline[-1].source.value == "poll"
        text = screen_text(app)
        assert "success (final)" in text and "poll" in text


async def test_typed_in_id_is_checked_and_tracked(
    own_world: Any, finished_request: str, tui_dir: Path
) -> None:
    app = make_app(own_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.current_mode == "live", what="Live status")
        await pilot.press("slash")
        field = app.screen.query_one("#live-add", Input)
        assert app.focused is field
        field.value = "0x1234"
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: any("not 0x followed by 64" in n.message for n in app._notifications),
            what="the bad id to be refused",
        )
        field.value = finished_request.upper().replace("0X", "0x")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (t := app.live.get(finished_request)) and t.final,
            what="the typed-in request to be followed to its end",
        )
        await pilot.press("tab")  # from the id box to the list
        assert app.focused is app.screen.query_one("#live-requests")
        await pilot.press("x")  # untrack the selected one
        await wait_until(pilot, lambda: app.live.get(finished_request) is None, what="untrack")


async def test_webhooks_reach_live_status_with_their_source(
    own_world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the suite's 0.2 s polls would race the world's deliveries (and under load win them all);
    # polling slowly here lets each status change arrive by webhook first, by design. The
    # look the tracker takes at once after the client's own action (the nudge) would win them
    # too on a world at speed 0, so it waits as long as the polls here
    settings = world_settings(own_world, tui_dir)
    slow = dataclasses.replace(
        settings.tracking, poll_interval_seconds=5.0, poll_interval_cap_seconds=5.0
    )
    policy_of = compose.poll_policy
    monkeypatch.setattr(
        compose,
        "poll_policy",
        lambda s, **kw: dataclasses.replace(policy_of(s, **kw), first=5.0, nudge_delay=5.0),
    )
    app = make_app(own_world, tui_dir, settings=dataclasses.replace(settings, tracking=slow))
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        url = await wait_until(pilot, lambda: app.live.webhook_url, what="the webhook receiver")
        await asyncio.to_thread(own_world.set_webhook, own_world.api_key, url)
        try:
            app.quote_screen.query_one("#amount", Input).value = "0.02"
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: app.quote_screen.quote is not None, what="a quote")
            await pilot.press("ctrl+g")
            execute = await wait_until(
                pilot,
                lambda: (
                    isinstance(app.screen, (ExecuteScreen, ConfirmScreen))
                    and next(s for s in app.screen_stack if isinstance(s, ExecuteScreen))
                ),
                what="Execute",
            )
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
            await pilot.click("#confirm-sign")  # the mouse signs too
            await wait_until(pilot, lambda: execute.outcome is not None, what="the end", within=60)
            request_id = execute.request_id
            tracked = await wait_until(
                pilot,
                lambda: (t := app.live.get(request_id)) and t.final and t,
                what="Live status to see the final status",
            )
            sources = {u.source.value for u in tracked.timeline}
            assert "webhook" in sources, [(u.status, u.source) for u in tracked.timeline]
            # Execute followed the same tracker: its status lines carry their source too
            changes = [e for e in execute.events if type(e).__name__ == "StatusChanged"]
            assert {str(e.source) for e in changes} & {"webhook", "poll"}
            assert any(str(e.source) == "webhook" for e in changes), changes
            await pilot.press("ctrl+l")
            await wait_until(pilot, lambda: app.current_mode == "live", what="Live status")
            assert "webhook" in screen_text(app)
            assert f"webhooks: {url}" in screen_text(app)
        finally:
            await asyncio.to_thread(own_world.set_webhook, own_world.api_key, "http://127.0.0.1:9/")
