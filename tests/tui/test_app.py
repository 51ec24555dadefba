"""The app shell: screens by key and by mouse, help with binding ids, the command palette, the
user keymap, themes switched and remembered, settings without secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import DataTable
from tui_support import (
    chains_loaded,
    make_app,
    notifications,
    pick,
    read_text,
    screen_text,
    wait_until,
    world_settings,
)

from crossdeck.tui.screens.help import HelpScreen
from crossdeck.tui.widgets.navbar import NavBar, tab_spans


async def test_function_keys_and_clicks_switch_screens(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        for key, mode in [
            ("f3", "venue"),
            ("f4", "history"),
            ("f5", "live"),
            ("f6", "settings"),
            ("f2", "quote"),
        ]:
            await pilot.press(key)
            await wait_until(pilot, lambda m=mode: app.current_mode == m, what=f"mode {mode}")
        history = next(start for start, _, mode in tab_spans() if mode == "history")
        await pilot.click(NavBar, offset=(history + 1, 0))
        await wait_until(pilot, lambda: app.current_mode == "history", what="a click on History")


async def test_help_lists_every_binding_with_its_id_and_keymap_keys(
    world: Any, tui_dir: Path
) -> None:
    settings = world_settings(world, tui_dir, keymap={"quote.fetch": "ctrl+k", "nope.x": "z"})
    app = make_app(world, tui_dir, settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        warnings = [m for t, m, s in notifications(app) if s == "warning"]
        assert any("nope.x" in m for m in warnings), warnings
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        table = app.screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        # Where, Keys, Id, What it does (the footer's word, then the tooltip)
        by_id = {row[2]: row for row in rows}
        assert by_id["quote.fetch"][1] == "ctrl+k" and by_id["quote.fetch"][0] == "Quote"
        for binding_id in ("quote.execute", "app.help", "app.goto.venue", "app.quit"):
            assert binding_id in by_id and ": " in by_id[binding_id][3], binding_id  # tooltip
        assert by_id["app.help.question"][1] == "?"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help closed")
        # the remapped key really quotes (the amount is empty, so the field is named)
        await pilot.press("ctrl+k")
        await wait_until(
            pilot,
            lambda: any(t == "Quote failed" for t, _, _ in notifications(app)),
            what="ctrl+k to quote",
        )


async def test_command_palette_runs_app_and_screen_commands(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        await pilot.press("ctrl+p")
        await wait_until(
            pilot, lambda: "CommandPalette" in type(app.screen).__name__, what="the palette"
        )
        await pilot.press(*"Go to Venue")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.current_mode == "venue", what="the Venue screen")


async def test_theme_switch_is_remembered_not_written_to_config(world: Any, tui_dir: Path) -> None:
    config = tui_dir / "config" / "config.toml"
    before = read_text(config)
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        assert app.theme == "crossdeck-dark"
        await pilot.press("f6")
        await wait_until(pilot, lambda: app.current_mode == "settings", what="settings")
        await pick(pilot, "#theme-select", "crossdeck-high")
        await wait_until(pilot, lambda: app.theme == "crossdeck-high-contrast", what="the theme")
        await wait_until(pilot, lambda: (tui_dir / "tui-state.json").exists(), what="state file")
    state = json.loads(read_text(tui_dir / "tui-state.json"))
    assert state["theme"] == "crossdeck-high-contrast"
    assert read_text(config) == before
    again = make_app(world, tui_dir)
    async with again.run_test(size=(120, 36)) as pilot:
        assert again.theme == "crossdeck-high-contrast"
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: again.theme != "crossdeck-high-contrast", what="next theme")
        chosen = again.theme
    assert json.loads(read_text(tui_dir / "tui-state.json"))["theme"] == chosen


async def test_bad_user_theme_and_unknown_configured_theme_fall_back_with_warnings(
    world: Any, tui_dir: Path
) -> None:
    themes = tui_dir / "themes"
    themes.mkdir()
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    settings = world_settings(world, tui_dir, theme="broken")
    app = make_app(world, tui_dir, settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.theme == "crossdeck-dark"
        messages = [m for _, m, s in notifications(app) if s == "warning"]
        assert any("broken.toml skipped" in m and "primary" in m for m in messages), messages
        assert any("'broken' is not available" in m for m in messages), messages


async def test_settings_show_profile_urls_and_api_key_presence_never_secrets(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f6")
        await wait_until(pilot, lambda: "Service URL" in screen_text(app), what="settings")
        text = screen_text(app)
        assert "demo" in text and world.service_url in text and world.venue_url in text
        for chain_id, url in world.rpc.items():
            assert f"RPC {chain_id}" in text and url in text
        assert world.wallet_address in text and "Signing chain id  1" in text
        assert "API key           set" in text
        assert world.api_key not in text and world.wallet_key[2:] not in text


async def test_no_api_key_reads_unset_and_webhooks_say_why(world: Any, tui_dir: Path) -> None:
    from crossdeck.tui.services import Secrets

    app = make_app(world, tui_dir, secrets=Secrets(None, world.wallet_address))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f6")
        await wait_until(pilot, lambda: "API key           unset" in screen_text(app), what="unset")
        await pilot.press("f5")
        await wait_until(
            pilot, lambda: "webhooks: off (no API key" in screen_text(app), what="the webhook note"
        )


def test_run_app_reports_a_bad_profile_and_exits_with_its_code(tui_dir: Path, capsys: Any) -> None:
    import pytest

    from crossdeck.base.exitcodes import ExitCode
    from crossdeck.tui.app import run_app

    with pytest.raises(SystemExit) as exited:
        run_app("no-such-profile", None)
    assert exited.value.code == int(ExitCode.INVALID_INPUT)
    assert "unknown profile 'no-such-profile'" in capsys.readouterr().err


def test_live_redraws_coalesce_per_request_but_never_across_requests() -> None:
    from crossdeck.tui.app_live import LiveBoardChanged

    a, b = "0x" + "a" * 64, "0x" + "b" * 64
    assert LiveBoardChanged(a).can_replace(LiveBoardChanged(a))
    assert not LiveBoardChanged(a).can_replace(LiveBoardChanged(b))
    assert not LiveBoardChanged(None).can_replace(LiveBoardChanged(a))
