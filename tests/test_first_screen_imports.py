"""The app's first screen, the Quote form, is drawn before any wire model or network client is
imported (issue 28 point 9; bench/tui_startup.py lists them at the first frame): importing the
app and the Quote screen's module loads neither pydantic nor httpx. A widget that needs them
for a read after the first frame imports them where it reads."""

from __future__ import annotations

import subprocess
import sys

_IMPORT = """
import sys
import crossdeck.tui.app
from crossdeck.tui.app import _mode_screen_class
_mode_screen_class("quote")
heavy = ("pydantic", "httpx", "web3", "eth_account", "crossdeck.api.client")
print(sorted(m for m in heavy if m in sys.modules))
"""


def test_the_quote_screen_imports_no_wire_model_and_no_client() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout
