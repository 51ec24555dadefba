"""End to end: `crossdeck demo` in a real terminal (tmux, at 120x36 and at 80x24, where the
panes stack), driven by keys, read back with
`tmux capture-pane`: quote a native deposit into the venue, execute it, confirm the signature,
and wait for SUCCESS on the screen. The tmux server is a private one (its own socket) and is
killed at the end, whatever happens."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CROSSDECK = Path(sys.executable).with_name("crossdeck")


def _server_env() -> dict[str, str]:
    # COLUMNS/LINES (pytest's own terminal size) would override the pane's size in the app
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}


class Tmux:
    def __init__(self, socket: str, session: str) -> None:
        self.socket = socket
        self.session = session

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=True,
            env=_server_env(),
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def resize(self, columns: int, lines: int) -> None:
        self.run("resize-window", "-t", self.session, "-x", str(columns), "-y", str(lines))

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def size(self) -> tuple[int, int]:
        width, height = self.run(
            "display-message", "-p", "-t", self.session, "#{pane_width} #{pane_height}"
        ).split()
        return int(width), int(height)

    def click(self, column: int, line: int) -> None:
        """A left click at (column, line), counted from 0, as the terminal reports it (SGR)."""
        at = f"{column + 1};{line + 1}"
        self.run("send-keys", "-t", self.session, "-l", f"\x1b[<0;{at}M")
        self.run("send-keys", "-t", self.session, "-l", f"\x1b[<0;{at}m")

    def wait_for(self, text: str, *, within: float = 60.0) -> str:
        return self.wait_until(lambda screen: text in screen, repr(text), within=within)

    def wait_until(self, shows: Callable[[str], object], what: str, *, within: float = 60.0) -> str:
        """The screen, once `shows(screen)` holds (polled; `within` is a limit, not a goal)."""
        deadline = time.monotonic() + within
        screen = ""
        while time.monotonic() < deadline:
            try:
                screen = self.screen()
            except subprocess.CalledProcessError:  # the session ended: the app exited
                break
            if shows(screen):
                return screen
            time.sleep(0.3)
        raise AssertionError(f"{what} did not appear within {within}s; the screen:\n{screen}")


@contextmanager
def demo_in_tmux(tmp_path: Path, columns: int, lines: int) -> Iterator[Tmux]:
    """`crossdeck demo` in a private tmux server sized columns x lines from its first frame;
    the server is killed at the end, whatever happens."""
    assert shutil.which("tmux"), "no tmux: `./scripts/bootstrap.sh --tools` installs it (apt)"
    assert CROSSDECK.exists(), f"{CROSSDECK} is not installed in this venv"
    config = tmp_path / "config.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[track]\npoll_interval_seconds = 0.3\n')
    socket = f"crossdeck-e2e-{uuid.uuid4().hex[:8]}"
    tmux = Tmux(socket, "demo")
    env = {
        "CROSSDECK_CONFIG": str(config),
        "TERM": "xterm-256color",
        "HOME": str(tmp_path),  # no user keyring, config or themes leak in
    }
    # the app draws on stderr (Textual's default), so nothing is redirected
    command = f"{CROSSDECK} demo --speed 0.2"
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    # size the window first (a placeholder holds it), then start the app in it: the app must
    # see its size from its first frame
    tmux.run(
        "-f", "/dev/null", "new-session", "-d", "-s", "demo", "-x", str(columns),
        "-y", str(lines), "sleep 600",
    )  # fmt: skip
    tmux.run("set-option", "-t", "demo", "status", "off")
    tmux.resize(columns, lines)
    tmux.run("respawn-pane", "-k", "-t", "demo", *env_args, command)
    try:
        yield tmux
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)
        socket_dir = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}"
        (socket_dir / socket).unlink(missing_ok=True)


@pytest.fixture(params=[(120, 36), (80, 24)], ids=["120x36", "80x24"])
def tmux(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Tmux]:
    with demo_in_tmux(tmp_path, *request.param) as session:
        yield session


def test_demo_quote_confirm_execute_success(tmux: Tmux) -> None:
    tmux.wait_for("USDC (perps)", within=90)  # the world is up and /chains is in the pickers
    # the Quote screen opens with the cursor in the amount (base ETH -> venue perps USDC)
    tmux.keys("0.01")
    tmux.wait_for("= 10000000000000000 (18 decimals)")
    tmux.keys("C-r")
    tmux.wait_for("Quoted ")
    tmux.keys("C-g")
    screen = tmux.wait_for("Sign (y)")
    assert "What will be signed" in screen and "the depository" in screen
    tmux.keys("y")
    screen = tmux.wait_for("SUCCESS", within=120)
    assert "received " in screen and "failReason" not in screen  # what came back
    tmux.keys("F2")  # the run has ended: a fresh form, the outcome said above it
    screen = tmux.wait_for("ended: success")
    assert "SUCCESS" not in screen
    tmux.keys("C-q")
