"""`crossdeck sim serve` in its own process, and the browser signer's page URL as crossdeck
prints it: what the tests that drive the page from outside (headless Chromium) share."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CROSSDECK = Path(sys.executable).with_name("crossdeck")
TEST_WALLET = Path(__file__).with_name("browser_wallet.py")


def isolated_env(home: Path) -> dict[str, str]:
    """This environment without CROSSDECK_* settings, with `home` as HOME, config and data."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")}
    (home / "config.toml").write_text("")
    return env | {
        "HOME": str(home),
        "CROSSDECK_CONFIG": str(home / "config.toml"),
        "CROSSDECK_DATA_DIR": str(home / "data"),
    }


@contextmanager
def world_served(home: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """`crossdeck sim serve --world-file W`: (W, its JSON), stopped with SIGTERM at the end."""
    world_file = home / "world.json"
    log = (home / "serve.log").open("w")
    process = subprocess.Popen(
        [CROSSDECK, "sim", "serve", "--speed", "0", "--world-file", str(world_file)],
        stdout=subprocess.PIPE, stderr=log, text=True, env=isolated_env(home),
    )  # fmt: skip
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 180)  # a hang guard
        assert ready, "sim serve printed nothing"
        yield world_file, json.loads(process.stdout.readline())
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(60)
        log.close()


def page_url(process: subprocess.Popen[str], seen: list[str]) -> str:
    """The page's URL from crossdeck's stderr, as a person reads it off the terminal; every
    line read is appended to `seen`."""
    assert process.stderr is not None
    while True:
        ready, _, _ = select.select([process.stderr], [], [], 120)  # a hang guard
        assert ready, "crossdeck printed no page URL:\n" + "".join(seen)
        line = process.stderr.readline()
        assert line, "crossdeck ended without a page URL:\n" + "".join(seen)
        seen.append(line)
        if "browser wallet: open " in line:
            return line.split("browser wallet: open ", 1)[1].split()[0]


@dataclass(frozen=True)
class BrowserRun:
    """A `crossdeck --world W --browser --browser-disable-open ...` run whose page the headless
    test wallet answered."""

    wallet: subprocess.CompletedProcess[str]  # the test wallet's run (its --json answers)
    code: int  # crossdeck's exit code
    out: str  # crossdeck's stdout
    said: str  # crossdeck's stderr, the page URL's line included
    url: str  # the page's URL, its token in the last part


def run_with_test_wallet(home: Path, world_file: Path, *args: str) -> BrowserRun:
    """Run crossdeck with `args` on the browser signer against the served `world_file`, and
    answer its page with tests/helpers/browser_wallet.py (headless Chromium, the world's demo
    wallet), as docs/browser-wallet-demo.md says."""
    crossdeck = subprocess.Popen(
        [CROSSDECK, "--world", str(world_file), "--browser", "--browser-disable-open", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=isolated_env(home),
    )  # fmt: skip
    try:
        seen: list[str] = []
        url = page_url(crossdeck, seen)
        tried = subprocess.run(
            [sys.executable, str(TEST_WALLET), "--world", str(world_file), "--json", url],
            capture_output=True, text=True, timeout=300, env=isolated_env(home),
        )  # fmt: skip
        out, err = crossdeck.communicate(timeout=120)
    finally:
        if crossdeck.poll() is None:
            crossdeck.kill()
            crossdeck.wait()
    return BrowserRun(tried, crossdeck.returncode, out, "".join(seen) + err, url)
