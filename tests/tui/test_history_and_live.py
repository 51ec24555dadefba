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
    settled_text,
    wait_until,
    world_settings,
)

from crossdeck import compose
from crossdeck.tui.screens.confirm import ConfirmScreen
from crossdeck.tui.screens.execute import ExecuteScreen

NATIVE = "0x" + "0" * 40
PERPS = "0x" + "0" * 32


def _shown(app: Any, selector: str) -> bool:
    """The widget is on screen where a click at its middle lands on it."""
    widget = app.screen.query_one(selector)
    region = widget.region
    if not region.area:
        return False
    x, y = region.x + region.width // 2, region.y + region.height // 2
    return bool(app.screen.get_widget_at(x, y)[0] is widget)


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
        assert "1 request(s)" in (await settled_text(pilot)) and "that is all" in (
            await settled_text(pilot)
        )
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
        text = await settled_text(pilot)
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


async def _record_amounts(world: Any, request_id: str) -> tuple[str, str]:
    """What the service's record of `request_id` says was sent and received, as a wallet shows
    them (read here on its own, from GET /requests/v3, not through the app)."""
    from crossdeck.api.client import ServiceClient
    from crossdeck.models import RequestsQuery
    from crossdeck.models.display import Unit, amount_text

    service = ServiceClient(world.service_url, api_key=world.api_key)
    try:
        page = await service.requests_v3(RequestsQuery(id=request_id))
    finally:
        await service.aclose()
    record = next(r for r in page.requests if r.id == request_id)
    said = []
    for moved in (record.currency_in, record.currency_out):
        assert moved is not None and moved.amount is not None and moved.decimals is not None
        text = amount_text(moved.amount, Unit(moved.symbol or "?", moved.decimals))
        said.append(text + (", $" if moved.amount_usd is not None else ""))
    return said[0], said[1]


async def test_live_rows_show_what_was_sent_and_received(
    own_world: Any, finished_request: str, tui_dir: Path
) -> None:
    """Each Live status row carries the amount sent and the amount received (units, and USD
    where the record has it), from the service's record; resized to 80 columns, the update
    count and last-seen time give way and the amounts stay."""
    sent, received = await _record_amounts(own_world, finished_request)
    assert sent.startswith("0.01 ETH")  # the deposit_by_executor paid 10**16 wei
    app = make_app(own_world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.current_mode == "live", what="Live status")
        app.track_request(finished_request)
        table = app.screen.query_one("#live-requests", DataTable)
        row = await wait_until(
            pilot,
            lambda: (r := [str(c) for c in table.get_row(finished_request)])[3] != "-" and r,
            what="what came back on the request's row",
        )
        assert [str(c.label) for c in table.ordered_columns] == [
            "request", "status", "sent", "received", "updates", "last seen"
        ]  # fmt: skip
        assert row[2].startswith(sent) and row[3].startswith(received), row
        summary = str(app.screen.query_one("#live-summary").render())
        assert f"sent {row[2]} · received {row[3]}" in summary
        await pilot.resize_terminal(80, 24)
        await wait_until(
            pilot,
            lambda: (
                [str(c.label) for c in table.ordered_columns]
                == ["request", "status", "sent", "received"]
            ),
            what="the narrow columns",
        )
        narrow = [str(c) for c in table.get_row(finished_request)]
        assert narrow[2:] == row[2:4]
        assert row[2] in (await settled_text(pilot)) and row[3] in (await settled_text(pilot))


async def test_webhooks_reach_live_status_with_their_source(
    own_world: Any, tui_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a world where the webhook is the first to tell. The status socket pushes the same
    # transitions as the webhooks, and whichever tells first names the update (the other's is
    # a duplicate, dropped): with the socket on, the webhooks race it, so it is off here. The
    # suite's 0.2 s polls would race the world's deliveries too (and under load win them all):
    # polling slowly here lets each status change arrive by webhook first, by design. The
    # look the tracker takes at once after the client's own action (the nudge) would win them
    # too on a world at speed 0, so it waits as long as the polls here
    settings = world_settings(own_world, tui_dir)
    slow = dataclasses.replace(
        settings.tracking,
        poll_interval_seconds=5.0,
        poll_interval_cap_seconds=5.0,
        websocket=False,
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
            # pushed is not yet composed, nor laid out: the click waits for the button to be
            # where the mouse lands (on a screen still settling it was under another widget)
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, ConfirmScreen) and _shown(app, "#confirm-sign"),
                what="confirm",
                within=60,  # a limit: under load the Confirm screen came after 20 s
            )
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
            assert "webhook" in (await settled_text(pilot))
            assert f"webhooks: {url}" in (await settled_text(pilot))
        finally:
            await asyncio.to_thread(own_world.set_webhook, own_world.api_key, "http://127.0.0.1:9/")
