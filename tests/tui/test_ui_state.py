"""The remembered theme: a small file in the data dir, never the config."""

from __future__ import annotations

from pathlib import Path

from crossdeck.tui.ui_state import UiState, load_ui_state, save_ui_state


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
