"""`Subscription`: one reader's view of the status tracker's ordered stream of updates."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from crossdeck.track.updates import StatusUpdate


class Subscription:
    """An async iterator of `StatusUpdate`s, registered as soon as it is created (so nothing
    emitted between creating it and the first `__anext__` is missed).

    Its updates wait in a deque, and a reader that finds none waits on a future of its own,
    which the next push or the end resolves. This is `asyncio.Queue`'s job with less of its
    bookkeeping (no putters, no task counting): the tracker pushes every accepted update of a
    webhook inside the receiver's handler, and a queue's put and get were a visible part of a
    delivery's cost. A reader that finds updates waiting takes them without suspending."""

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
        self._items: deque[StatusUpdate] = deque()
        self._waiters: list[asyncio.Future[None]] = []
        """Readers waiting for an update (one, as a rule); each push or the end wakes them."""
        self._closed = False
        registry.add(self)
        if closed:
            self._close()
        elif check_now:  # with nothing tracked yet, wait for something to finish
            self._check_end()

    def _push(self, update: StatusUpdate) -> None:
        if not self._closed and self._wants(update):
            self._items.append(update)
            if self._waiters:
                self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _check_end(self) -> None:
        if self._ends_when is not None and self._ends_when():
            self._close()

    def _close(self) -> None:
        """No more updates join; what is waiting is still read, then the iteration ends."""
        if not self._closed:
            self._closed = True
            self._wake()
            self._registry.discard(self)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> StatusUpdate:
        items = self._items
        while not items:
            if self._closed:
                raise StopAsyncIteration
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if self._waiters and waiter in self._waiters:  # cancelled while waiting
                    self._waiters.remove(waiter)
        return items.popleft()

    async def aclose(self) -> None:
        self._close()
