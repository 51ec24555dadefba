"""Whether a browser can open here, and opening one only then.

Python's `webbrowser` would, on a machine with no display (a server, an SSH session, a
container), pick a text browser such as lynx and run it inside the terminal the app draws on,
or find nothing and return False: the app must not say "opened" then. A browser can open where
the user named one (`BROWSER`), on macOS and Windows outside SSH, and on other systems where a
graphical session is there to show it (`DISPLAY`, `WAYLAND_DISPLAY`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def can_open_browser(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get("BROWSER"):
        return True
    over_ssh = bool(env.get("SSH_CONNECTION") or env.get("SSH_TTY"))
    if platform == "darwin" or platform.startswith("win"):
        return not over_ssh
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def open_in_browser(url: str) -> bool:
    """Open `url` in a browser where one can open (see `can_open_browser`); False when none
    did, so that the caller copies the link and says so instead."""
    if not can_open_browser():
        return False
    import webbrowser

    try:
        return webbrowser.open(url, new=2)
    except webbrowser.Error:
        return False
