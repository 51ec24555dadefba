"""The run screen names the child request that refunds what a strict deposit address got too
much: the `Finished` of a real overpaid run (the CLI's, against the world) shown on it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eth_account import Account
from textual.widgets import Static
from tui_support import chains_loaded, event_from_json, load_fixture, make_app, screen_text

from crossdeck.cli import main
from crossdeck.execute import events as ev
from crossdeck.models import Quote, QuoteRequest
from crossdeck.tui.screens.execute import ExecuteScreen

ETH = 10**18
NATIVE = "0x" + "0" * 40


async def _overpaid_run(world_file: Path) -> ev.Finished:
    args = [
        "--world", str(world_file), "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 100), "--recipient", Account.create().address,
        "--use-deposit-address", "--strict", "--refund-to", Account.create().address,
        "--deposit-amount", str(ETH // 100 + ETH // 1000), "--yes", "--json",
    ]  # fmt: skip
    result = await asyncio.to_thread(CliRunner().invoke, main, args)  # the CLI runs its own loop
    assert result.exit_code == 0, result.output
    [finished] = [
        event_from_json(e)
        for e in map(json.loads, result.stdout.splitlines())
        if e["event"] == "Finished"
    ]
    assert isinstance(finished, ev.Finished) and finished.children
    return finished


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_the_run_screen_names_the_excess_child(
    world: Any, world_file: Path, tui_dir: Path, size: tuple[int, int]
) -> None:
    finished = await _overpaid_run(world_file)
    [child] = finished.children
    data = load_fixture("run_deposit.json")
    app = make_app(world, tui_dir)
    async with app.run_test(size=size) as pilot:
        await chains_loaded(pilot)
        screen = ExecuteScreen(
            QuoteRequest.from_body(data["request"]),
            Quote.from_wire(data["quote"]),
            app.quote_screen.chains,
            autostart=False,
        )
        await app.push_screen(screen)
        screen.apply(finished)
        await pilot.pause(0.2)
        result = str(screen.query_one("#exec-result", Static).render())
        assert f"child request {child.request_id}" in result
        assert ": 0.001 ETH, refund" in result
        # what came back, read from the final record and carried through --json
        assert finished.came_back is not None and finished.came_back.sent
        assert f"sent {finished.came_back.sent}" in result
        assert f"child request {child.request_id}" in " ".join(screen_text(app).split())
