"""The rows every screen shares, each one widget (title, tabs, keys), and the first screen styled
in one pass: what the first frame costs (bench/tui_startup.py) rests on both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.css.stylesheet import Stylesheet
from textual.widget import Widget
from tui_support import chains_loaded, make_app, screen_text, wait_until

from crossdeck.tui.screens.help import HelpScreen
from crossdeck.tui.widgets.footer import KeysFooter
from crossdeck.tui.widgets.navbar import TABS_WIDTH, NavBar, tab_spans
from crossdeck.tui.widgets.title_bar import ICON_WIDTH, TitleBar


async def test_the_title_bar_names_profile_and_wallet_and_its_icon_opens_the_palette(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        title_row = screen_text(app).splitlines()[0]
        assert "◆" in title_row[:ICON_WIDTH]
        assert "crossdeck — profile demo" in title_row
        assert world.wallet_address[:6] in title_row  # the signer's short address
        # centred between the icon's cell and the clock's place, as textual's Header did
        start = title_row.index("crossdeck")
        end = len(title_row.rstrip())
        assert abs((start - ICON_WIDTH) - (120 - 10 - end)) <= 1
        app.sub_title = "changed sub-title"
        await wait_until(
            pilot, lambda: "changed sub-title" in screen_text(app).splitlines()[0], what="retitle"
        )
        await pilot.click(TitleBar, offset=(ICON_WIDTH + 20, 0))  # the title: nothing opens
        await pilot.pause(0.2)
        assert not isinstance(app.screen, CommandPalette)
        await pilot.click(TitleBar, offset=(1, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")


async def test_the_tab_row_lights_the_tab_under_the_pointer_and_cuts_its_hint_at_80(
    world: Any, tui_dir: Path
) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await chains_loaded(pilot)
        row = screen_text(app).splitlines()[1]
        assert row.startswith(" F2 Quote  F3 Venue ") and row.rstrip().endswith("^p")
        navbar = app.screen.query_one(NavBar)
        venue = next(start for start, _, mode in tab_spans() if mode == "venue")
        await pilot.hover(NavBar, offset=(venue + 2, 0))
        await wait_until(pilot, lambda: navbar.hovered == "venue", what="the hovered tab")
        assert navbar.tooltip == "Open the Venue screen (F3)"
        await pilot.hover(NavBar, offset=(TABS_WIDTH + 1, 0))  # the hint: no tab, no tooltip
        await wait_until(pilot, lambda: navbar.hovered is None, what="no tab lit")
        assert navbar.tooltip is None
    async with make_app(world, tui_dir).run_test(size=(120, 36)) as pilot:
        row = screen_text(pilot.app).splitlines()[1]
        assert row.rstrip().endswith("^p commands")


async def test_the_footer_draws_the_keys_and_a_click_runs_one(world: Any, tui_dir: Path) -> None:
    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        footer = app.screen.query_one(KeysFooter)
        line = screen_text(app).splitlines()[-1]
        assert line.startswith("^r Quote ^g Execute ^o Swap sides")
        assert "f1 Help" in line and "palette" not in line  # the tab row carries ^p here
        assert footer.keys_shown()[:2] == ["ctrl+r", "ctrl+g"]
        help_at = line.index("f1")
        await pilot.hover(KeysFooter, offset=(help_at, 0))
        await wait_until(pilot, lambda: footer.hovered is not None, what="the key lit")
        assert footer.hovered is not None and footer.hovered.key == "f1"
        await pilot.click(KeysFooter, offset=(help_at + 3, 0))  # its description: nothing
        await pilot.pause(0.2)
        assert not isinstance(app.screen, HelpScreen)
        await pilot.click(KeysFooter, offset=(help_at, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help by click")


async def test_the_first_screen_is_styled_once_in_its_size_classes(
    world: Any, tui_dir: Path, monkeypatch: Any
) -> None:
    """Before the first frame textual styled each widget of the first screen three times (its
    mount, the screen's resume, the size classes of its first resize) and parsed the whole
    stylesheet twice; crossdeck's mode screens start with their size classes and the current
    stylesheet, so each widget is styled at most twice (mount, resume; the focused field and
    its screen again as the focus arrives) and nothing is reparsed."""
    styled: dict[int, int] = {}
    reparses: list[int] = []
    apply, reparse = Stylesheet.apply, Stylesheet.reparse

    def counting_apply(self: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(node, Widget):
            styled[id(node)] = styled.get(id(node), 0) + 1
        apply(self, node, *args, **kwargs)

    def counting_reparse(self: Stylesheet) -> None:
        reparses.append(1)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "apply", counting_apply)
    monkeypatch.setattr(Stylesheet, "reparse", counting_reparse)
    seen: dict[str, Any] = {}
    app = make_app(world, tui_dir, on_first_frame=lambda: seen.update(styled=dict(styled)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "styled" in seen, what="the first frame")
        screen = app.screen
        assert {"-narrow", "-short"} <= set(screen.classes)
        widgets = [w for w in screen.walk_children(with_self=True) if id(w) in seen["styled"]]
        assert len(widgets) >= 20
        # focus restyles what it moves between (the amount field, and its screen)
        focus_moved = {id(screen), id(app.focused)}
        most = max(seen["styled"][id(w)] for w in widgets if id(w) not in focus_moved)
        assert most <= 2, most
        assert not reparses
        # and the look is the theme's, not textual's defaults: the app's own node was styled
        options = screen.query_one("#options-line", Widget)
        assert options.visual_style.foreground is not None
        assert options.visual_style.foreground.a > 0
