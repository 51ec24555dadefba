"""What the app remembers: the theme and the recent recipients, a small file in the data dir,
never the config."""

from __future__ import annotations

from pathlib import Path

from crossdeck.tui.ui_state import RECENT_RECIPIENTS, UiState, load_ui_state, save_ui_state


def test_round_trip_and_config_edit_wins(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "tui-state.json"
    assert load_ui_state(path) == UiState()
    save_ui_state(path, UiState(theme="crossdeck-light", config_theme="crossdeck-dark"))
    state = load_ui_state(path)
    assert state.theme_for("crossdeck-dark") == "crossdeck-light"
    assert state.theme_for("crossdeck-high-contrast") is None  # the config changed since
    assert not (path.parent / "tui-state.json.partial").exists()


def test_unreadable_state_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "tui-state.json"
    path.write_text("{not json")
    assert load_ui_state(path) == UiState()
    path.write_text('{"theme": 5}')
    assert load_ui_state(path).theme is None


def test_recent_recipients_latest_first_per_family_and_kept_few(tmp_path: Path) -> None:
    path = tmp_path / "tui-state.json"
    state = UiState(theme="crossdeck-light")
    evm = [f"0x{n:040x}" for n in range(1, 8)]
    for address in evm:
        state = state.with_recipient("evm", address)
    state = state.with_recipient("evm", evm[3].upper().replace("0X", "0x"))  # checksum case
    state = state.with_recipient("bvm", "bc1qexample")
    assert state.recipients["evm"][0] == evm[3].upper().replace("0X", "0x")
    assert len(state.recipients["evm"]) == RECENT_RECIPIENTS
    assert [a.lower() for a in state.recipients["evm"]].count(evm[3]) == 1
    assert state.theme == "crossdeck-light"  # the theme is kept beside them
    save_ui_state(path, state)
    assert load_ui_state(path) == state


def test_remembered_recipients_that_are_not_addresses_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "tui-state.json"
    path.write_text(
        '{"recipients": {"evm": ["0xabc", 7, "", "0x1 ; rm"], "xyz": ["0x1"], "svm": "no"}}'
    )
    assert load_ui_state(path).recipients == {"evm": ["0xabc"]}
