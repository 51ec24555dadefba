"""The app's start path reads its settings, themes and secrets without pydantic (issue 28 point
9): importing it and building its models cost about a sixth of the first frame. The Quote
screen's own models are not part of this path (they are imported when it is drawn)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_START = """
import sys
from crossdeck.config import load_settings
settings = load_settings(world=sys.argv[1])
import crossdeck.tui.themes, crossdeck.compose, crossdeck.tui.services, crossdeck.tui.waits
import crossdeck.tui.host
from crossdeck.compose import read_secrets
from crossdeck.tui.themes import load_all_themes
themes = load_all_themes()
secrets = read_secrets(settings)
print(sorted(themes.themes), themes.warnings, secrets.api_key is not None)
# (crossdeck's stand-in for pydantic's plugin loader has no file: nothing of pydantic is loaded)
named = [m for m in sys.modules if m == "pydantic" or m.startswith("pydantic.")]
print(sorted(m for m in named if getattr(sys.modules[m], "__file__", None)))
"""


def test_settings_themes_and_secrets_load_without_pydantic(tmp_path: Path) -> None:
    world = tmp_path / "world.json"
    world.write_text(
        json.dumps(
            {
                "service_url": "http://127.0.0.1:9/",
                "service_name": "Relay",
                "venue_url": "http://127.0.0.1:9",
                "rpc": {"8453": "http://127.0.0.1:9", "999": "http://127.0.0.1:9"},
                "wallet": {"address": "0x" + "11" * 20, "private_key": "0x" + "22" * 32},
                "api_key": "demo-key",
                "chains": [8453, 999],  # the world's own business: read by nobody here
            }
        )
    )
    config = tmp_path / "config.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n')
    done = subprocess.run(
        [sys.executable, "-c", _START, str(world)],
        capture_output=True,
        text=True,
        check=True,
        env={"CROSSDECK_CONFIG": str(config), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    loaded, imported = done.stdout.strip().splitlines()
    assert loaded == "['crossdeck-dark', 'crossdeck-high-contrast', 'crossdeck-light'] [] True"
    assert imported == "[]"
