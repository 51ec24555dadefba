"""The webhook receiver's defaults, in one place, with no imports (the settings read them at start).

`crossdeck webhook serve`, `crossdeck watch --webhooks` and the app all listen on
`DEFAULT_WEBHOOK_PATH` unless told otherwise, so a sender configured for one reaches the others.
The demo world's sender (`crossdeck.sim.webhooks.DEFAULT_WEBHOOK_PATH`) keeps its own copy of
the literal, because the world never imports the client; a test checks the two agree.
"""

from __future__ import annotations

from typing import Final

DEFAULT_WEBHOOK_PATH: Final = "/webhooks/crossdeck"

MAX_BODY_BYTES: Final = 256 * 1024
"""Larger deliveries get 413. A status event is about 600 bytes; `details` may add some."""

READ_TIMEOUT_SECONDS: Final = 10.0
"""A request's headers must arrive within this long of the connection opening (or of the answer
before it, on a kept-alive connection), and its body within this long after them. Also how long
an idle kept-alive connection stays open."""

MAX_CONNECTIONS: Final = 256
"""Connections open at once (lowered to fit the process's open-file limit)."""

MAX_CONNECTIONS_PER_PEER: Final = 64
"""Connections open at once from one address."""

REPLAY_MEMORY: Final = 100_000
"""Status changes remembered within the replay window (about 20 MB at most)."""

QUEUE_SIZE: Final = 10_000
"""Verified events waiting for their consumer; beyond it deliveries get 503."""
