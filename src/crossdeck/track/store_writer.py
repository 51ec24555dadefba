"""`StoreWriter`: the status tracker's accepted updates, written to its `StatusStore` in batches.

Updates are written together `flush_seconds` after the first of them, or as soon as
`STORE_FLUSH_ROWS` wait: one transaction for many, not one per webhook or socket event on the
event loop, and none so long that the deliveries behind it wait. A crash in between loses only
those updates, which a resumed tracker's polls find again.
"""

from __future__ import annotations

import asyncio
import logging

from crossdeck.track.store import StatusStore
from crossdeck.track.updates import StatusUpdate

log = logging.getLogger(__name__)

STORE_FLUSH_SECONDS = 0.1
"""How long accepted updates wait to be written to the store together."""
STORE_FLUSH_ROWS = 64
"""Updates written at once when this many wait: about 0.5 ms of the event loop (~8 µs each)."""


class StoreWriter:
    def __init__(self, store: StatusStore, flush_seconds: float = STORE_FLUSH_SECONDS) -> None:
        self.store = store
        self.flush_seconds = flush_seconds
        self._handle: asyncio.Handle | None = None

    def save(self, update: StatusUpdate) -> None:
        soon = self.store.save_later(update) >= STORE_FLUSH_ROWS
        handle = self._handle
        if handle is not None and not (soon and isinstance(handle, asyncio.TimerHandle)):
            return  # a flush is on its way already
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # fed outside a loop: no timer would ever write it
            self.flush()
            return
        if handle is not None:
            handle.cancel()
        self._handle = (
            loop.call_soon(self.flush) if soon else loop.call_later(self.flush_seconds, self.flush)
        )

    def flush(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        try:
            self.store.flush()
        except Exception:  # kept for the next flush; the tracker goes on
            log.exception("writing tracked statuses to %r failed", self.store)
