"""The cyclic garbage collector waits out the process's start (issue 15).

A command's first moments are nearly all imports and clients being built: a venue withdrawal
makes some 200,000 objects that live until the process ends. CPython's collector, tuned for
long-lived processes, walks them again and again while they are made (in that withdrawal about
160 young collections, 15 middle ones and a full one: some 50 ms of a 0.5 s process) and finds
nothing to free. So it is off for the first `START_SECONDS` and on again after, by a daemon
timer: a command that ends sooner never collects, and one that goes on (tracking, `watch`, the
app) collects as before from then on. Reference counting frees everything else all along, so
only the few reference cycles of the start wait longer to be freed. Called first thing from
`crossdeck/__init__.py`, so the imports of every command and of the app are spared.
"""

from __future__ import annotations

import gc
import threading

START_SECONDS = 1.0


def hold_collector_during_start() -> None:
    """Turn the cyclic collector off for `START_SECONDS` (nothing when it is off already:
    whoever turned it off keeps it so)."""
    if not gc.isenabled():
        return
    gc.disable()
    timer = threading.Timer(START_SECONDS, gc.enable)
    timer.daemon = True  # never holds the process open at exit
    timer.name = "crossdeck-start-gc"
    timer.start()
