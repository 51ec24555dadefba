"""Fixtures of the app tests: an isolated config dir (no user config or themes leak in), and a
fast tracking policy so Live status sees changes within a test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_textual_snapshot

# pytest-textual-snapshot 1.0 names its extension with syrupy's old attribute (`_file_extension`);
# syrupy 7 reads `file_extension`, so without this the SVGs would be stored as `.raw` files.
pytest_textual_snapshot.SVGImageExtension.file_extension = "svg"


@pytest.fixture
def tui_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A config file (data dir inside tmp_path, quick status polling, no History refresh timer:
    the test of that timer turns it on) and nothing else."""
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        f'data_dir = "{tmp_path / "data"}"\n'
        "[track]\n"
        "poll_interval_seconds = 0.2\n"
        "poll_interval_cap_seconds = 0.5\n"
        "history_refresh_seconds = 0\n"
        "failure_settle_seconds = 1.0\n"
    )
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    for name in ("CROSSDECK_PROFILE", "CROSSDECK_WORLD"):
        monkeypatch.delenv(name, raising=False)
    yield tmp_path
