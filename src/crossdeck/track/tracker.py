"""`StatusTracker`: follows many requests at once, merging webhooks and v3 polls.

    async with StatusTracker(client, store=store, budget=RateBudget(5)) as tracker:
        tracker.track(request_id)
        tracker.attach(receiver)                 # optional: a started WebhookReceiver
        async for update in tracker.updates(until_done=True):
            print(update.request_id, update.status, update.source)

How it works:

- One scheduler task and a min-heap of (next poll time, request id), not a task per id, so
  thousands of ids cost a heap entry each. When a poll is due it waits for the shared
  `RateBudget`, then polls in a bounded pool of concurrent requests.
- `PollPolicy` decides each request's next poll: soon after a change, less often while nothing
  changes, not at all while its webhooks flow, never again once final.
- Every observation, polled or pushed, goes through `crossdeck.track.updates.compare`: one
  ordered stream per request, newer `updatedAt` wins, stale and duplicate ones are dropped.
- A 429 pauses the whole budget for its Retry-After; no answer / 503 pauses it with backoff;
  other error answers (5xx, malformed, 408/425) back off that request alone and are tried again
  for as long as it is tracked; an id the service keeps answering 404 for, or one it refuses
  for good (another 4xx), is given up (reported through `on_problem`).
- `nudge(request_id)` after the client's own action (deposit mined, signature posted, transfer
  accepted): a poll at once, then every `policy.first` seconds and growing, the back-off
  starting again from there (`crossdeck.execute` follows its runs this way, through `follow`).
- With a `StatusStore`, every tracked id and each accepted update is written down, so a new
  tracker calling `resume()` picks up the unfinished requests and their last-known status.
  An id is written when tracking begins; updates are written together `STORE_FLUSH_SECONDS`
  after the first of them, or as soon as `STORE_FLUSH_ROWS` wait (one transaction for many, not
  one per webhook on the event loop, and none so long that the deliveries behind it wait).
  A crash in between loses only those updates, which the resumed tracker's polls find again.
- `attach(receiver)`: a `WebhookReceiver` hands each verified delivery to `feed_webhook` in its
  handler, before answering it (no queue and no task switch per delivery; a delivery is
  answered 200 once the tracker has taken it).

The `ServiceClient` handed in should not retry by itself (`retry=NO_RETRY`): a client that
sleeps out a 429's Retry-After inside one poll hides it from the budget, and the other polls
keep hitting the limit meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from crossdeck.api.errors import (
    MalformedResponseError,
    RateLimitedError,
    ServiceConnectionError,
    ServiceError,
    ServiceUnavailableError,
)
from crossdeck.base.errors import CrossdeckError
from crossdeck.models.status import RequestStatus, StatusV3, parse_status
from crossdeck.models.webhook import WebhookEvent
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.store import StatusStore
from crossdeck.track.updates import (
    Source,
    StatusUpdate,
    Verdict,
    compare,
    normalise_request_id,
)

log = logging.getLogger(__name__)

Clock = Callable[[], float]

DEFAULT_RATE = 5.0
"""Status requests per second when no budget is given; keep it below the key's limit."""

STORE_FLUSH_SECONDS = 0.1
"""How long accepted updates wait to be written to the store together (see the module's note)."""
STORE_FLUSH_ROWS = 64
"""Updates written at once when this many wait: about 0.5 ms of the event loop (~8 µs each)."""


class StatusSource(Protocol):
    """What the tracker needs of the service: `ServiceClient` fits."""

    async def status_v3(self, request_id: str) -> StatusV3: ...


class EventSource(Protocol):
    """What `attach` needs at least: items with `.event` and `.received_at`."""

    def events(self) -> AsyncIterator[Any]: ...


@runtime_checkable
class PushingSource(Protocol):
    """A source that hands each item to a function as it comes: `WebhookReceiver` fits."""

    def deliver_to(self, sink: Callable[[Any], None] | None) -> None: ...


@dataclass(frozen=True)
class Problem:
    """Something went wrong tracking one request (or all of them, when `request_id` is None)."""

    request_id: str | None
    message: str
    given_up: bool = False
    error: BaseException | None = field(default=None, compare=False, repr=False)


@dataclass
class TrackerStats:
    polls: int = 0
    """Status requests sent."""
    poll_errors: int = 0
    webhooks: int = 0
    """Webhook events fed in for tracked ids."""
    webhooks_ignored: int = 0
    """Webhook events for ids not tracked."""
    emitted: int = 0
    stale: int = 0
    duplicates: int = 0
    unchanged: int = 0


@dataclass
class _Request:
    request_id: str
    changed_at: float
    latest: StatusUpdate | None = None
    final: bool = False
    given_up: str | None = None
    last_webhook_at: float | None = None
    failure_since: float | None = None
    errors: int = 0
    not_found: int = 0
    polls: int = 0
    webhooks: int = 0
    heap_seq: int = -1
    in_flight: bool = False
    following: bool = False
    """The client acts on this request (`nudge`): polls may come as soon as `policy.first`."""
    nudged: bool = False
    """Nudged while a poll was in flight (its answer may predate the action): poll again as
    soon as it is back."""
    problem: str | None = None
    """The last answer that was waited out (cleared by a good one)."""

    @property
    def finished(self) -> bool:
        return self.final or self.given_up is not None


class _End:
    pass


_END = _End()


class Subscription:
    """An async iterator of `StatusUpdate`s, registered as soon as it is created (so nothing
    emitted between creating it and the first `__anext__` is missed)."""

    def __init__(
        self,
        tracker: StatusTracker,
        wants: Callable[[StatusUpdate], bool],
        *,
        ends_when: Callable[[], bool] | None,
    ) -> None:
        self._tracker = tracker
        self._wants = wants
        self._ends_when = ends_when
        self._queue: asyncio.Queue[StatusUpdate | _End] = asyncio.Queue()
        self._closed = False
        tracker._subscriptions.add(self)
        if tracker._closed:
            self._close()
        elif tracker._requests:  # with nothing tracked yet, wait for something to finish
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
            self._tracker._subscriptions.discard(self)

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


class StatusTracker:
    def __init__(
        self,
        service: StatusSource,
        *,
        store: StatusStore | None = None,
        budget: RateBudget | None = None,
        policy: PollPolicy | None = None,
        max_concurrency: int = 16,
        on_problem: Callable[[Problem], None] | None = None,
        track_unknown_webhooks: bool = False,
        store_flush_seconds: float = STORE_FLUSH_SECONDS,
        clock: Clock = time.monotonic,
        wall_clock: Clock = time.time,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.service = service
        self.store = store
        self.budget = budget or RateBudget(DEFAULT_RATE)
        self.policy = policy or PollPolicy()
        self.on_problem = on_problem
        self.track_unknown_webhooks = track_unknown_webhooks
        self.store_flush_seconds = store_flush_seconds
        self._clock = clock
        self._wall = wall_clock
        self._requests: dict[str, _Request] = {}
        self._open: set[str] = set()
        self._heap: list[tuple[float, int, str]] = []
        self._seq = 0
        self._wake = asyncio.Event()
        self._slots = asyncio.Semaphore(max_concurrency)
        self._done = asyncio.Event()
        self._done.set()
        self._subscriptions: set[Subscription] = set()
        self._runner: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self._last_webhook_at: float | None = None
        self._flush_handle: asyncio.Handle | None = None
        self._detach: list[Callable[[], None]] = []
        self.stats = TrackerStats()

    def __repr__(self) -> str:
        return (
            f"StatusTracker({len(self._requests)} tracked, {len(self._open)} open, "
            f"{self.stats.polls} polls, {self.stats.webhooks} webhooks)"
        )

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the scheduler on the running loop (idempotent)."""
        if self._closed:
            raise RuntimeError("the tracker is closed")
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(
                self._run(), name="status-tracker"
            )

    async def run(self) -> None:
        """Run the scheduler until `aclose()`; cancelling `run()` stops the scheduler too."""
        self.start()
        assert self._runner is not None
        try:
            await self._runner
        except asyncio.CancelledError:
            if not self._closed:
                raise

    async def aclose(self) -> None:
        """Stop polling and consuming webhooks; every subscription ends. The store stays open
        (whoever made it closes it)."""
        self._closed = True
        for detach in self._detach:
            detach()
        self._detach.clear()
        tasks = list(self._tasks)
        if self._runner is not None:
            tasks.append(self._runner)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._flush_store()
        for sub in list(self._subscriptions):
            sub._close()

    async def __aenter__(self) -> StatusTracker:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- what is tracked ---------------------------------------------------------------------

    def track(self, request_id: str, *, poll_now: bool = True) -> StatusUpdate | None:
        """Follow `request_id` (a no-op when already followed). Returns its last-known status
        from the store, if any; an unfinished request is polled right away (`poll_now`), or
        after the policy's interval."""
        rid = normalise_request_id(request_id)
        existing = self._requests.get(rid)
        if existing is not None and existing.given_up is None:
            return existing.latest
        stored = self.store.get(rid) if self.store is not None else None
        if self.store is not None:
            self.store.add(rid)
        now = self._clock()
        req = _Request(rid, changed_at=now)
        if stored is not None and stored.latest is not None:
            req.latest = stored.latest
            req.final = stored.latest.final
            if parse_status(stored.latest.status) is RequestStatus.FAILURE and not req.final:
                req.failure_since = now  # the settle period starts again
        self._requests[rid] = req
        if not req.finished:
            self._open.add(rid)
            self._done.clear()
            self._schedule(req, now if poll_now else self._next_poll(req, now))
        self._check_done()
        return req.latest

    def track_many(self, request_ids: Iterable[str]) -> None:
        for rid in request_ids:
            self.track(rid)

    def resume(self) -> list[StatusUpdate | None]:
        """Track again every unfinished request of the store; their last-known statuses."""
        if self.store is None:
            return []
        return [self.track(stored.request_id) for stored in self.store.unfinished()]

    def untrack(self, request_id: str) -> None:
        """Stop following `request_id` (and forget it in the store)."""
        rid = normalise_request_id(request_id)
        self._requests.pop(rid, None)
        self._open.discard(rid)
        if self.store is not None:
            self.store.remove(rid)
        self._check_done()

    def tracked(self) -> list[str]:
        return list(self._requests)

    def unfinished(self) -> list[str]:
        return sorted(self._open)

    def given_up(self) -> dict[str, str]:
        return {r.request_id: r.given_up for r in self._requests.values() if r.given_up}

    def latest(self, request_id: str) -> StatusUpdate | None:
        req = self._requests.get(normalise_request_id(request_id))
        return req.latest if req is not None else None

    def is_final(self, request_id: str) -> bool:
        req = self._requests.get(normalise_request_id(request_id))
        return req is not None and req.final

    def polls_of(self, request_id: str) -> int:
        req = self._requests.get(normalise_request_id(request_id))
        return req.polls if req is not None else 0

    def last_problem(self, request_id: str) -> str | None:
        """The last status answer that was waited out for `request_id`, in words (None after
        a good one); a poll still unanswered says so."""
        req = self._requests.get(normalise_request_id(request_id))
        if req is None:
            return None
        if req.problem is None and req.in_flight:
            return "the last status request was still unanswered"
        return req.given_up or req.problem

    async def wait_done(self) -> None:
        """Until every tracked request is final or given up."""
        await self._done.wait()

    # -- streams -----------------------------------------------------------------------------

    def updates(self, *, until_done: bool = False) -> Subscription:
        """Every accepted update of every request, in order per request. With `until_done`
        it ends once no tracked request is open: at once if all tracked ones are finished, or,
        when nothing is tracked yet, after the last of those tracked later finishes."""
        return Subscription(
            self, lambda _u: True, ends_when=(lambda: not self._open) if until_done else None
        )

    def stream(self, request_id: str, *, replay: bool = True) -> Subscription:
        """The updates of one request, ending after its final one. With `replay`, the
        last-known status comes first."""
        rid = normalise_request_id(request_id)
        if rid not in self._requests:
            self.track(rid)

        def finished() -> bool:
            req = self._requests.get(rid)
            return req is None or req.finished

        sub = Subscription(self, lambda u: u.request_id == rid, ends_when=None)
        req = self._requests[rid]
        if replay and req.latest is not None:
            sub._push(req.latest)
        sub._ends_when = finished
        sub._check_end()
        return sub

    def follow(self, request_id: str) -> Subscription:
        """`stream(request_id)` with the scheduler started: what a run reads its request's
        statuses from (`crossdeck.execute.follow.Follower`). A request followed anew is first
        polled after the policy's interval, not at once: it is `waiting` until the client acts,
        and its `nudge` then brings the look forward (webhooks count from now on)."""
        self.start()
        if normalise_request_id(request_id) not in self._requests:
            self.track(request_id, poll_now=False)
        return self.stream(request_id)

    def nudge(self, request_id: str) -> None:
        """The client just acted on `request_id` (deposit mined and announced, signature
        posted, venue transfer accepted): look again after `policy.nudge_delay` (at once by
        default: the service may know already), then from `policy.first` on, the back-off
        starting from here. Not while its webhooks flow: they bring the news."""
        rid = normalise_request_id(request_id)
        if rid not in self._requests:
            self.track(rid)
        req = self._requests[rid]
        if req.finished:
            return
        now = self._clock()
        req.following = True
        req.changed_at = now
        if req.in_flight:
            req.nudged = True
            return
        self._schedule(req, self._follow_up_due(req, now))

    def _follow_up_due(self, req: _Request, now: float) -> float:
        due = now + self.policy.nudge_delay
        if req.last_webhook_at is not None:  # its webhooks flow: they will bring the news
            due = max(due, req.last_webhook_at + self.policy.webhook_quiet)
        return due

    # -- webhooks ----------------------------------------------------------------------------

    def feed_webhook(self, event: WebhookEvent, *, received_at: float | None = None) -> Verdict:
        """One verified webhook event. Returns what the merge made of it."""
        try:
            update = StatusUpdate.from_webhook(event, observed_at=received_at)
        except ValueError:
            self.stats.webhooks_ignored += 1
            return Verdict.STALE
        req = self._requests.get(update.request_id)
        if req is None and self.track_unknown_webhooks and not self._closed:
            self.track(update.request_id)
            req = self._requests.get(update.request_id)
        if req is None:
            self.stats.webhooks_ignored += 1
            return Verdict.STALE
        self.stats.webhooks += 1
        req.webhooks += 1
        now = self._clock()
        req.last_webhook_at = now
        self._last_webhook_at = now
        verdict = self._observe(req, update, now)
        if not req.finished and not req.in_flight:
            self._schedule(req, self._next_poll(req, now))
        return verdict

    def attach(self, receiver: EventSource | PushingSource) -> None:
        """Feed every event of `receiver` (a started `WebhookReceiver`) into the tracker, until
        `aclose()`.

        A receiver that can push (`deliver_to`) calls `feed_webhook` from its handler, before
        it answers the delivery; any other source's `events()` is read by a task."""
        if isinstance(receiver, PushingSource):
            receiver.deliver_to(self._take_delivery)
            self._detach.append(lambda: receiver.deliver_to(None))
            return

        async def consume() -> None:
            async for item in receiver.events():
                self._take_delivery(item)

        self._keep(asyncio.get_running_loop().create_task(consume(), name="status-webhooks"))

    def _take_delivery(self, item: Any) -> None:
        self.feed_webhook(item.event, received_at=getattr(item, "received_at", None))

    # -- merging -----------------------------------------------------------------------------

    def _observe(self, req: _Request, update: StatusUpdate, now: float) -> Verdict:
        verdict = compare(update, req.latest)
        if verdict is Verdict.STALE:
            self.stats.stale += 1
            return verdict
        if verdict is Verdict.DUPLICATE:
            self.stats.duplicates += 1
            return verdict
        if verdict is Verdict.UNCHANGED:
            self.stats.unchanged += 1
            assert req.latest is not None
            req.latest = replace(req.latest, updated_at_ms=update.updated_at_ms)
            return verdict
        previous = req.latest
        status = parse_status(update.status)
        if status is RequestStatus.FAILURE:
            if previous is None or str(previous.status) != str(update.status):
                req.failure_since = now
        else:
            req.failure_since = None
        final = status is not None and status.is_final
        req.changed_at = now
        # read from the service, an update says so already (a copy costs a third of a webhook)
        self._accept(req, update if update.final is final else update.with_final(final))
        return verdict

    def _accept(self, req: _Request, update: StatusUpdate) -> None:
        req.latest = update
        if update.final:
            req.final = True
            self._open.discard(req.request_id)
        if self.store is not None:
            self._save(update)
        self.stats.emitted += 1
        for sub in list(self._subscriptions):
            sub._push(update)
        self._check_done()

    def _save(self, update: StatusUpdate) -> None:
        assert self.store is not None
        soon = self.store.save_later(update) >= STORE_FLUSH_ROWS
        handle = self._flush_handle
        if handle is not None and not (soon and isinstance(handle, asyncio.TimerHandle)):
            return  # a flush is on its way already
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # fed outside a loop: no timer would ever write it
            self._flush_store()
            return
        if handle is not None:
            handle.cancel()
        self._flush_handle = (
            loop.call_soon(self._flush_store)
            if soon
            else loop.call_later(self.store_flush_seconds, self._flush_store)
        )

    def _flush_store(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self.store is None:
            return
        try:
            self.store.flush()
        except Exception:  # kept for the next flush; the tracker goes on
            log.exception("writing tracked statuses to %r failed", self.store)

    def _settle(self, req: _Request) -> None:
        """`failure` held for the settle period: announce it as final."""
        assert req.latest is not None
        settled = replace(req.latest, source=Source.SETTLE, observed_at=self._wall(), final=True)
        self._accept(req, settled)

    def _give_up(self, req: _Request, reason: str, error: BaseException | None) -> None:
        req.given_up = reason
        self._open.discard(req.request_id)
        if self.store is not None:
            self.store.give_up(req.request_id, reason)
        self._problem(Problem(req.request_id, reason, given_up=True, error=error))
        self._check_done()

    def _check_done(self) -> None:
        if self._open:
            return
        self._done.set()
        for sub in list(self._subscriptions):
            sub._check_end()

    def _problem(self, problem: Problem) -> None:
        log.info("tracking %s: %s", problem.request_id or "(all)", problem.message)
        if self.on_problem is not None:
            try:
                self.on_problem(problem)
            except Exception:
                log.exception("on_problem callback failed")

    # -- scheduling --------------------------------------------------------------------------

    def _next_poll(self, req: _Request, now: float) -> float:
        status = req.latest.status if req.latest is not None else None
        feed_live = (
            self._last_webhook_at is not None
            and now - self._last_webhook_at < self.policy.webhook_quiet
        )
        return self.policy.next_poll(
            now=now,
            status=status,
            changed_at=req.changed_at,
            last_webhook_at=req.last_webhook_at,
            failure_since=req.failure_since,
            feed_live=feed_live,
            following=req.following,
        )

    def _schedule(self, req: _Request, due: float) -> None:
        self._seq += 1
        req.heap_seq = self._seq
        heapq.heappush(self._heap, (due, self._seq, req.request_id))
        self._wake.set()

    def _head(self) -> tuple[float, _Request] | None:
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

    async def _poll(self, req: _Request) -> None:
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

    def _next_due_after_poll(self, req: _Request) -> float:
        now = self._clock()
        if req.nudged:
            req.nudged = False
            return self._follow_up_due(req, now)
        if req.errors:
            return max(now + self.policy.error_delay(req.errors), self._next_poll(req, now))
        return self._next_poll(req, now)

    async def _poll_once(self, req: _Request) -> None:
        rid = req.request_id
        try:
            body = await self.service.status_v3(rid)
        except RateLimitedError as exc:
            self.stats.poll_errors += 1
            req.problem = _short(exc)
            pause = self.budget.rate_limited(exc.retry_after)
            self._problem(Problem(None, f"rate limited (429): pausing {pause:g} s", error=exc))
            return
        except (ServiceUnavailableError, ServiceConnectionError) as exc:
            self.stats.poll_errors += 1
            req.problem = _short(exc)
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
            elif _refused_for_good(exc):
                self._give_up(req, f"the service refuses the status of {rid}: {_short(exc)}", exc)
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
        now = self._clock()
        verdict = self._observe(req, update, now)
        if (
            not verdict.is_news
            and req.failure_since is not None
            and now - req.failure_since >= self.policy.failure_settle
        ):
            self._settle(req)

    def _request_error(self, req: _Request, exc: BaseException) -> None:
        self.stats.poll_errors += 1
        req.errors += 1
        req.problem = _short(exc)
        self._problem(Problem(req.request_id, f"status poll failed: {exc}", error=exc))


# 4xx answers that say "not now" rather than "never" (with 404, counted apart, and 429)
_TRANSIENT_CLIENT_STATUSES = frozenset({404, 408, 425, 429})


def _refused_for_good(exc: ServiceError) -> bool:
    """A 4xx that no later poll can outlive (a bad key, a request id the service refuses)."""
    status = exc.status
    return status is not None and 400 <= status < 500 and status not in _TRANSIENT_CLIENT_STATUSES


def _short(exc: BaseException) -> str:
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return text if len(text) <= 160 else text[:160] + "…"
