"""`Subscription`: one reader's view of the status tracker's ordered stream of updates."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from crossdeck.track.updates import StatusUpdate


class _End:
    pass


_END = _End()


class Subscription:
    """An async iterator of `StatusUpdate`s, registered as soon as it is created (so nothing
    emitted between creating it and the first `__anext__` is missed)."""

    def __init__(
        self,
        registry: set[Subscription],
        wants: Callable[[StatusUpdate], bool],
        *,
        ends_when: Callable[[], bool] | None,
        closed: bool = False,
        check_now: bool = True,
    ) -> None:
        """`registry`: the tracker's set of live subscriptions (this one joins it, and leaves
        it when it ends); `closed`: the tracker is closed already; `check_now`: see at once
        whether `ends_when` holds (not while nothing is tracked yet)."""
        self._registry = registry
        self._wants = wants
        self._ends_when = ends_when
        self._queue: asyncio.Queue[StatusUpdate | _End] = asyncio.Queue()
        self._closed = False
        registry.add(self)
        if closed:
            self._close()
        elif check_now:  # with nothing tracked yet, wait for something to finish
            self._check_end()

    def _push(self, update: StatusUpdate) -> None:
        if not self._closed and self._wants(update):
            self._queue.put_nowait(update)

    def _check_end(self) -> None:
        if self._ends_when is not None and self._ends_when():
            self._close()

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(_END)
            self._registry.discard(self)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> StatusUpdate:
        item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)
            raise StopAsyncIteration
        return item

    async def aclose(self) -> None:
        self._close()
