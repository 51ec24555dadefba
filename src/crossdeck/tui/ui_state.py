"""What the app remembers between runs (not configuration): the theme picked in the app, and the
recipients the user sent to, per chain family (the Quote options' recent recipients). Public
addresses only: nothing secret is ever written here.

A small JSON file in the user data dir (`Settings.data_dir / tui-state.json`), never the config
file. The config's `theme` is stored beside the choice: when the user later edits the config to
another theme, that edit wins over the older in-app choice.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

log = logging.getLogger(__name__)

STATE_FILE_NAME = "tui-state.json"
RECENT_RECIPIENTS = 5  # kept per chain family, most recent first
FAMILIES = ("evm", "svm", "bvm")  # `models.addresses.Family`'s values (not imported: start path)
MAX_ADDRESS_LENGTH = 100


@dataclass
class UiState:
    theme: str | None = None
    config_theme: str | None = None  # the config's theme when `theme` was picked
    recipients: dict[str, list[str]] = field(default_factory=dict)
    """Addresses a run sent to, most recent first, by chain family ('evm', 'svm', 'bvm')."""

    def with_recipient(self, family: str, address: str) -> UiState:
        """`address` first among `family`'s recent recipients (EVM addresses compared without
        their checksum case; Solana and Bitcoin ones are case-sensitive)."""
        same = (lambda a: a.lower() == address.lower()) if family == "evm" else address.__eq__
        kept = [a for a in self.recipients.get(family, []) if not same(a)]
        recipients = {**self.recipients, family: [address, *kept][:RECENT_RECIPIENTS]}
        return replace(self, recipients=recipients)

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
        recipients=_recipients(raw.get("recipients")),
    )


def _recipients(raw: object) -> dict[str, list[str]]:
    """The remembered recipients, keeping only what looks like an address (the Quote form
    checks a chosen one against its chain's family again)."""
    if not isinstance(raw, dict):
        return {}
    found: dict[str, list[str]] = {}
    for family, addresses in raw.items():
        if family not in FAMILIES or not isinstance(addresses, list):
            continue
        found[family] = [
            a
            for a in addresses
            if isinstance(a, str) and 0 < len(a) <= MAX_ADDRESS_LENGTH and a.isalnum()
        ][:RECENT_RECIPIENTS]
    return found


def save_ui_state(path: Path, state: UiState) -> None:
    """Write the state whole, then rename, so a crash never leaves half a file.
    Raises OSError when the directory cannot be written (the caller warns)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(asdict(state), indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)
