"""The polling half of the status tracker: the schedule of status reads and one read.

`PollLoop` is mixed into `crossdeck.track.tracker.StatusTracker`, which owns the state it reads
(declared below for the type checker) and the merge its answers go through (`_observe`). One
scheduler task and a min-heap of (next poll time, request id), not a task per id: when a poll
is due it waits for the shared `RateBudget`, then polls in a bounded pool of concurrent
requests. The error rules are in the tracker module's docstring.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from crossdeck.api.errors import (
    MalformedResponseError,
    RateLimitedError,
    ServiceConnectionError,
    ServiceError,
    ServiceUnavailableError,
)
from crossdeck.base.errors import CrossdeckError
from crossdeck.track.tracked import (
    Problem,
    RequestState,
    StatusSource,
    TrackerStats,
    refused_for_good,
    short_reason,
)
from crossdeck.track.updates import Source, StatusUpdate, Verdict

if TYPE_CHECKING:
    from crossdeck.track.budget import RateBudget
    from crossdeck.track.policy import PollPolicy

log = logging.getLogger(__name__)


class PollLoop:
    if TYPE_CHECKING:  # the tracker's own state and merge, which the polls feed
        service: StatusSource
        budget: RateBudget
        policy: PollPolicy
        stats: TrackerStats
        _requests: dict[str, RequestState]
        _heap: list[tuple[float, int, str]]
        _seq: int
        _wake: asyncio.Event
        _slots: asyncio.Semaphore
        _tasks: set[asyncio.Task[Any]]
        _clock: Callable[[], float]
        _wall: Callable[[], float]

        def _observe(self, req: RequestState, update: StatusUpdate, now: float) -> Verdict: ...
        def _give_up(self, req: RequestState, reason: str, error: BaseException | None) -> None: ...
        def _problem(self, problem: Problem) -> None: ...
        def _settle(self, req: RequestState) -> None: ...
        def _next_poll(self, req: RequestState, now: float) -> float: ...
        def _follow_up_due(self, req: RequestState, now: float) -> float: ...
        def _note(self, kind: str, message: str) -> None: ...

    # -- scheduling --------------------------------------------------------------------------

    def _schedule(self, req: RequestState, due: float) -> None:
        self._seq += 1
        req.heap_seq = self._seq
        req.due = due
        heapq.heappush(self._heap, (due, self._seq, req.request_id))
        self._wake.set()

    def _head(self) -> tuple[float, RequestState] | None:
        """The earliest valid heap entry (stale entries are dropped on the way)."""
        while self._heap:
            due, seq, rid = self._heap[0]
            req = self._requests.get(rid)
            if req is None or req.heap_seq != seq or req.finished or req.in_flight:
                heapq.heappop(self._heap)
                continue
            return due, req
        return None

    async def _wait_for_due(self) -> None:
        while True:
            head = self._head()
            self._wake.clear()
            if head is None:
                await self._wake.wait()
                continue
            delay = head[0] - self._clock()
            if delay <= 0:
                return
            # not wait_for: on 3.11 it swallows a cancel that lands in the tick the wake is set,
            # and aclose() then waits for a scheduler that never stops
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()

    async def _run(self) -> None:
        while True:
            await self._wait_for_due()
            await self._slots.acquire()
            try:
                await self.budget.acquire()
            except BaseException:
                self._slots.release()
                raise
            head = self._head()
            if head is None or head[0] > self._clock():
                # rescheduled while waiting (a webhook came): nothing to send after all
                self.budget.give_back()
                self._slots.release()
                continue
            req = head[1]
            heapq.heappop(self._heap)
            req.in_flight = True
            self._keep(asyncio.get_running_loop().create_task(self._poll(req)))

    def _keep(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- one poll ----------------------------------------------------------------------------

    async def _poll(self, req: RequestState) -> None:
        rid = req.request_id
        self.stats.polls += 1
        req.polls += 1
        try:
            await self._poll_once(req)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never let one answer stop the tracker
            log.exception("polling %s failed", rid)
            self._request_error(req, exc)
        finally:
            req.in_flight = False
            self._slots.release()
            if self._requests.get(rid) is req and not req.finished:
                self._schedule(req, self._next_due_after_poll(req))

    def _next_due_after_poll(self, req: RequestState) -> float:
        now = self._clock()
        if req.nudged:
            req.nudged = False
            return self._follow_up_due(req, now)
        if req.errors:
            return max(now + self.policy.error_delay(req.errors), self._next_poll(req, now))
        return self._next_poll(req, now)

    async def _poll_once(self, req: RequestState) -> None:
        rid = req.request_id
        try:
            body = await self.service.status_v3(rid)
        except RateLimitedError as exc:
            self.stats.poll_errors += 1
            req.problem = short_reason(exc)
            pause = self.budget.rate_limited(exc.retry_after)
            self._problem(Problem(None, f"rate limited (429): pausing {pause:g} s", error=exc))
            return
        except (ServiceUnavailableError, ServiceConnectionError) as exc:
            self.stats.poll_errors += 1
            req.problem = short_reason(exc)
            pause = self.budget.unavailable()
            self._problem(Problem(None, f"service unreachable: pausing {pause:g} s", error=exc))
            return
        except MalformedResponseError as exc:
            self.budget.answered()
            self._request_error(req, exc)
            return
        except ServiceError as exc:
            self.budget.answered()
            if exc.status == 404:
                req.not_found += 1
                if req.not_found >= self.policy.not_found_limit:
                    self._give_up(req, f"the service does not know {rid} (404)", exc)
                    return
            elif refused_for_good(exc):
                self._give_up(
                    req, f"the service refuses the status of {rid}: {short_reason(exc)}", exc
                )
                return
            self._request_error(req, exc)
            return
        except CrossdeckError as exc:  # e.g. an id the client refuses to send
            self._give_up(req, str(exc), exc)
            return
        self.budget.answered()
        if self._requests.get(rid) is not req or req.finished:
            return  # untracked, or a webhook brought the final status meanwhile
        try:
            update = StatusUpdate.from_v3(rid, body, observed_at=self._wall())
        except ValueError as exc:
            self._request_error(req, exc)
            return
        req.errors = 0
        req.not_found = 0
        req.problem = None
        update = self._confirmed(req, update)
        now = self._clock()
        verdict = self._observe(req, update, now)
        if (
            not verdict.is_news
            and req.failure_since is not None
            and now - req.failure_since >= self.policy.failure_settle
        ):
            self._settle(req)

    def _request_error(self, req: RequestState, exc: BaseException) -> None:
        self.stats.poll_errors += 1
        req.errors += 1
        req.problem = short_reason(exc)
        self._problem(Problem(req.request_id, f"status poll failed: {exc}", error=exc))

    def _confirmed(self, req: RequestState, update: StatusUpdate) -> StatusUpdate:
        """A status read answered while the socket's final status waited for it: the socket
        told first (the update keeps its name) when the read agrees; otherwise the claim is
        dropped, noted once, and the read stands."""
        claim, req.socket_claim = req.socket_claim, None
        if claim is None:
            return update
        if str(claim.status) == str(update.status):
            return replace(update, source=Source.SOCKET)
        self.stats.socket_unconfirmed += 1
        self._note(
            "unconfirmed",
            f"the status socket said {req.request_id} is {claim.status}, the service's status "
            f"read says {update.status}: the socket's word is ignored",
        )
        return update
