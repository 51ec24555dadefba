"""A test-only hook that kills the process at an execution boundary, like a power cut would.

Inert unless `CROSSDECK_CRASH_AT` is set. Its value is a boundary, optionally limited to one
step id: `after-sign` (signed and journalled, not yet sent or posted), `after-send` (sent or
accepted, before the receipt or before the journal marks it done), `after-authorize` (the
authorize POST was accepted, before the journal marks it done and before the sendAsset);
e.g. `CROSSDECK_CRASH_AT=after-sign:deposit`. The crash tests run the CLI in a subprocess with
it, then check that `crossdeck resume` finishes without sending anything twice.
"""

from __future__ import annotations

import os
import signal

ENV = "CROSSDECK_CRASH_AT"
BOUNDARIES = frozenset({"after-sign", "after-send", "after-authorize"})


def crash_point(boundary: str, step_id: str | None = None) -> None:
    spec = os.environ.get(ENV)
    if not spec:
        return
    wanted, _, only_step = spec.partition(":")
    if wanted != boundary or (only_step and only_step != step_id):
        return
    os.kill(os.getpid(), signal.SIGKILL)
