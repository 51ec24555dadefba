"""The light picker on its own: one line until opened; open, filter, choose, cancel, the Changed
message (once per change, from code as from a choice, silenced by `prevent`), focus back on the
picker, and a label that follows options arriving after the first frame."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input, OptionList
from tui_support import pick, screen_text, wait_until

from crossdeck.tui.widgets.picker import InvalidPickerValue, Picker
from crossdeck.tui.widgets.picker_list import PickerList, matching

CHAINS = [
    ("Ethereum (1)", 1),
    ("Optimism (10)", 10),
    ("Arbitrum One (42161)", 42161),
    ("Base (8453)", 8453),
    ("Venue (1337)", 1337),
    ("Bitcoin (8253038)", 8253038),
]


class PickerApp(App[None]):
    BINDINGS: ClassVar = [Binding("question_mark", "asked_help", "Help")]

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[tuple[str | None, object]] = []
        self.helped = 0

    def compose(self) -> ComposeResult:
        yield Picker[int](id="chain", prompt="chain")
        yield Input(id="after")

    @on(Picker.Changed)
    def _changed(self, event: Picker.Changed) -> None:
        self.changes.append((event.control.id, event.value))

    def action_asked_help(self) -> None:
        self.helped += 1

    @property
    def picker(self) -> Picker[int]:
        return self.query_one("#chain", Picker)


async def _loaded(pilot: Any, value: int = 1) -> Picker[int]:
    picker: Picker[int] = pilot.app.picker
    with pilot.app.prevent(Picker.Changed):
        picker.set_options(CHAINS)
        picker.value = value
    picker.focus()
    await pilot.pause()
    return picker


def _open_list(app: App[Any]) -> PickerList | None:
    return app.screen if isinstance(app.screen, PickerList) else None


def _shown(app: App[Any]) -> list[str]:
    options = app.screen.query_one("#picker-options", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_prompt_until_options_arrive_then_the_chosen_label() -> None:
    app = PickerApp()
    async with app.run_test(size=(40, 6)) as pilot:
        # the first frame: nothing loaded, the prompt; Enter has nothing to open
        assert app.picker.value is Picker.NULL and app.picker.selection is None
        assert "chain…" in screen_text(app) and "▾" in screen_text(app)
        app.picker.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert _open_list(app) is None
        # /chains arrives after the first frame
        app.picker.set_options(CHAINS)
        app.picker.value = 8453
        await pilot.pause()
        assert "Base (8453)" in screen_text(app) and "chain…" not in screen_text(app)
        assert app.changes == [("chain", 8453)]


async def test_enter_opens_typing_filters_and_enter_chooses_once() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        assert len(_shown(app)) == len(CHAINS)
        await pilot.press(*"bas")
        await wait_until(pilot, lambda: _shown(app) == ["Base (8453)"], what="only Base")
        await pilot.press("enter")
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list to close")
        assert picker.value == 8453
        assert app.changes == [("chain", 8453)]  # once
        assert app.focused is picker
        assert "Base (8453)" in screen_text(app)


async def test_arrows_move_and_the_current_choice_is_highlighted() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot, value=10)
        await pilot.press("space")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        options = app.screen.query_one("#picker-options", OptionList)
        assert options.highlighted == 1  # Optimism, the current one
        await pilot.press("down", "down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list to close")
        assert picker.value == 8453 and app.changes == [("chain", 8453)]


async def test_escape_cancels_and_choosing_the_same_posts_nothing() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot, value=10)
        await pilot.press("enter", *"base")
        await wait_until(pilot, lambda: _shown(app) == ["Base (8453)"], what="Base")
        await pilot.press("escape")
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list to close")
        assert picker.value == 10 and app.focused is picker
        await pilot.press("enter")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        await pilot.press("enter")  # the highlighted one is the current one
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list to close")
        assert picker.value == 10 and app.changes == []


async def test_typing_on_the_closed_picker_opens_it_filtered_and_keys_bound_keep_meaning() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot)
        await pilot.press("?")  # the app's help key, not a filter
        await pilot.pause()
        assert app.helped == 1 and _open_list(app) is None
        await pilot.press(*"arb")
        await wait_until(pilot, lambda: _shown(app) == ["Arbitrum One (42161)"], what="Arbitrum")
        assert app.screen.query_one("#picker-filter", Input).value == "arb"
        await pilot.press("enter")
        await wait_until(pilot, lambda: picker.value == 42161, what="Arbitrum chosen")
        assert app.focused is picker


async def test_a_filter_that_matches_nothing_says_so_and_enter_keeps_it_open() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot)
        await pilot.press("enter", *"zzz")
        await wait_until(pilot, lambda: _shown(app) == ["nothing matches “zzz”"], what="none")
        await pilot.press("enter")
        await pilot.pause()
        assert _open_list(app) is not None and picker.value == 1
        await pilot.press("backspace", "backspace", "backspace", *"8453", "enter")
        await wait_until(pilot, lambda: picker.value == 8453, what="Base by its chain id")


async def test_a_click_opens_and_a_click_on_an_option_chooses() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot)
        app.query_one("#after").focus()
        await pilot.click("#chain")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        # the list opens under the picker (row 0): its options start below the filter line
        options = app.screen.query_one("#picker-options", OptionList)
        assert options.region.y >= 2
        await pilot.click("#picker-options", offset=(2, 3))  # the fourth option: Base
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list to close")
        assert picker.value == 8453 and app.focused is picker
        # a click outside the list closes it, choosing nothing
        await pilot.click("#chain")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        await pilot.click(offset=(50, 18))
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list to close")
        assert picker.value == 8453 and app.changes == [("chain", 8453)]


class BottomPickerApp(PickerApp):
    CSS = "#chain { dock: bottom; width: 30; }"


async def test_a_picker_on_the_last_row_opens_its_list_above_it_on_screen() -> None:
    app = BottomPickerApp()
    async with app.run_test(size=(40, 12)) as pilot:
        picker = await _loaded(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        await pilot.pause()
        box = app.screen.query_one("#picker-box").region
        assert box.bottom <= picker.region.y and box.y >= 0 and box.right <= 40
        assert _shown(app)[0] == "Ethereum (1)"


async def test_code_sets_post_changed_once_prevent_silences_and_set_options_clears() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot)
        picker.value = 10
        picker.value = 10  # the same again: nothing
        await pilot.pause()
        assert app.changes == [("chain", 10)]
        with app.prevent(Picker.Changed):
            picker.value = 1
        await pilot.pause()
        assert app.changes == [("chain", 10)]
        with pytest.raises(InvalidPickerValue):
            picker.value = 999
        picker.set_options(CHAINS[:2])  # as Select's: the choice is cleared, and said
        await pilot.pause()
        assert picker.value is Picker.NULL and app.changes[-1] == ("chain", Picker.NULL)
        picker.disabled = True
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert _open_list(app) is None


async def test_the_drive_helper_picks_as_a_user_would() -> None:
    app = PickerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = await _loaded(pilot)
        await pick(pilot, "#chain", "venue")
        assert picker.value == 1337 and app.focused is picker


def test_matching_ranks_a_name_that_starts_with_the_text_first() -> None:
    labels = ["Ethereum (1)", "Base Sepolia (84532)", "Arbitrum One (42161)", "Base (8453)"]
    values = ["1", "84532", "42161", "8453"]
    assert matching(labels, values, "") == [0, 1, 2, 3]
    assert matching(labels, values, "bas") == [1, 3]
    assert matching(labels, values, "BASE  sep") == [1]
    assert matching(labels, values, "one") == [2]  # a word of the name
    assert matching(labels, values, "8453") == [1, 3]  # the id, in the label and the value
    assert matching(labels, values, "um") == [0, 2]
    addresses = ["0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "0x0000"]
    assert matching(["USDC", "ETH"], addresses, "0x8335") == [0]


async def test_leaving_the_screen_with_its_list_open_closes_the_list_on_return(
    world: Any, tui_dir: Any
) -> None:
    """F2-F7 switch screens over an open list; back on the Quote screen the list is closed,
    nothing chosen, and the picker has the focus. Help (F1) over the list keeps it open."""
    from tui_support import chains_loaded, make_app

    from crossdeck.tui.screens.help import HelpScreen

    app = make_app(world, tui_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await chains_loaded(pilot)
        picker = app.screen.query_one("#origin-chain", Picker)
        before = picker.value
        picker.focus()
        await pilot.press("enter", *"hyp")
        await wait_until(pilot, lambda: _open_list(app), what="the list")
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.press("escape")
        await wait_until(pilot, lambda: _open_list(app), what="the list again, under help")
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.current_mode == "venue", what="Venue")
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.current_mode == "quote", what="Quote again")
        await wait_until(pilot, lambda: _open_list(app) is None, what="the list closed")
        assert picker.value == before
        await wait_until(pilot, lambda: app.focused is picker, what="the focus on the picker")
