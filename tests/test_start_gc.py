"""The cyclic collector is off while a crossdeck process starts, on again after
(crossdeck.start_gc); a process that turned it off itself keeps it off."""

from __future__ import annotations

import subprocess
import sys

_WATCH = """
import gc, sys, time
{before}
import crossdeck
from crossdeck.start_gc import START_SECONDS
seen = [gc.isenabled()]
end = time.monotonic() + START_SECONDS + 2
while time.monotonic() < end and gc.isenabled() == seen[0]:
    time.sleep(0.02)
seen.append(gc.isenabled())
print(seen)
"""


def _seen(before: str = "") -> str:
    code = _WATCH.format(before=before)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_collector_is_off_while_the_process_starts_and_on_after() -> None:
    assert _seen() == "[False, True]"


def test_a_collector_turned_off_before_stays_off() -> None:
    assert _seen("gc.disable()") == "[False, False]"
