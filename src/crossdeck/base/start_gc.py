"""The cyclic garbage collector waits out the process's start (issue 15).

A command's first moments are nearly all imports and clients being built: a venue withdrawal
makes some 200,000 objects that live until the process ends. CPython's collector, tuned for
long-lived processes, walks them again and again while they are made (in that withdrawal about
160 young collections, 15 middle ones and a full one: some 50 ms of a 0.5 s process) and finds
nothing to free. So it is off for the first `START_SECONDS` and on again after, by a daemon
timer: a command that ends sooner never collects. Called first thing from
`crossdeck/__init__.py`, so the imports of every command and of the app are spared.

When the hold ends, one full collection frees the start's few reference cycles and what is left
is frozen (`gc.freeze`: out of the collector's reach for good) before it is turned on again. A
process that goes on (tracking, `watch`, the app, the webhook receiver) would otherwise walk that
whole start-up heap in its first middle collection after the hold (~60-70 ms with the app's
modules imported, holding the GIL) and again in every full one after; frozen, its collections
walk only what it made since (under 1 ms each). The collection at the end of the hold takes
about as long as that first walk did (~75 ms), once, on the timer's thread. Reference counting
frees everything else all along, frozen or not; freezing costs no memory.
"""

from __future__ import annotations

import gc
import threading

START_SECONDS = 1.0

_over = threading.Event()
"""Set once the collector is as it will stay (held and frozen, or never held)."""


def hold_collector_during_start() -> None:
    """Turn the cyclic collector off for `START_SECONDS` (nothing when it is off already:
    whoever turned it off keeps it so)."""
    if not gc.isenabled():
        _over.set()
        return
    gc.disable()
    timer = threading.Timer(START_SECONDS, _end_hold)
    timer.daemon = True  # never holds the process open at exit
    timer.name = "crossdeck-start-gc"
    timer.start()


def _end_hold() -> None:
    try:
        gc.collect()
        gc.freeze()
    finally:
        gc.enable()
        _over.set()


def wait_start_over(timeout: float | None = None) -> bool:
    """Block until the hold has ended (or `timeout` passed); whether it has. For measurements of
    a process's steady state, such as the webhook bench's."""
    return _over.wait(timeout)
