"""What the app remembers between runs (not configuration): the theme picked in the app.

A small JSON file in the user data dir (`Settings.data_dir / tui-state.json`), never the config
file. The config's `theme` is stored beside the choice: when the user later edits the config to
another theme, that edit wins over the older in-app choice.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger(__name__)

STATE_FILE_NAME = "tui-state.json"


@dataclass
class UiState:
    theme: str | None = None
    config_theme: str | None = None  # the config's theme when `theme` was picked

    def theme_for(self, configured: str | None) -> str | None:
        """The remembered theme, unless the config's theme changed since it was picked."""
        if self.theme is None or self.config_theme != configured:
            return None
        return self.theme


def state_path(data_dir: Path) -> Path:
    return data_dir / STATE_FILE_NAME


def load_ui_state(path: Path) -> UiState:
    """The remembered state; a missing or unreadable file is an empty state."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return UiState()
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable app state %s: %s", path, exc)
        return UiState()
    if not isinstance(raw, dict):
        return UiState()
    theme = raw.get("theme")
    config_theme = raw.get("config_theme")
    return UiState(
        theme=theme if isinstance(theme, str) else None,
        config_theme=config_theme if isinstance(config_theme, str) else None,
    )


def save_ui_state(path: Path, state: UiState) -> None:
    """Write the state whole, then rename, so a crash never leaves half a file.
    Raises OSError when the directory cannot be written (the caller warns)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(asdict(state), indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)
