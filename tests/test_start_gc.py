"""The cyclic collector is off while a crossdeck process starts, on again after
(crossdeck.base.start_gc); a process that turned it off itself keeps it off."""

from __future__ import annotations

import subprocess
import sys

_WATCH = """
import gc, sys, time
{before}
import crossdeck
from crossdeck.base.start_gc import START_SECONDS
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


_FROZEN = """
import gc
import crossdeck
from crossdeck.base.start_gc import wait_start_over
frozen_before = gc.get_freeze_count()
over = wait_start_over(5)
print([frozen_before, over, gc.isenabled(), gc.get_freeze_count() > 1_000])
"""


def test_the_start_up_heap_is_frozen_when_the_hold_ends() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FROZEN], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[0, True, True, True]"


def test_a_process_that_keeps_the_collector_off_is_over_its_start_at_once() -> None:
    code = (
        "import gc; gc.disable(); import crossdeck.base.start_gc as s; print(s.wait_start_over(0))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"
