"""`StatusTracker`: follows many requests at once, merging its socket, webhooks and v3 polls.

    async with StatusTracker(client, store=store, budget=RateBudget(5)) as tracker:
        tracker.use_socket("wss://ws.example", api_key=key)   # optional: pushed changes
        tracker.track(request_id)
        tracker.attach(receiver)                 # optional: a started WebhookReceiver
        async for update in tracker.updates(until_done=True):
            print(update.request_id, update.status, update.source)

How it works (the polling half in `track.polling`, the socket in `track.socket_feed`, the
per-request state in `track.tracked`, batched store writes in `track.store_writer`):

- One scheduler task and a min-heap of (next poll time, request id), not a task per id. When a
  poll is due it waits for the shared `RateBudget`, then polls in a bounded pool.
- `PollPolicy` decides each request's next poll: soon after a change, less often while nothing
  changes, not at all while its webhooks flow, only every `socket_reconcile` seconds while the
  status socket pushes its changes, never again once final.
- `use_socket(url)`: every tracked request is subscribed on the service's status websocket.
  A pushed change is merged at once; a pushed final status (success, refund) is a claim that
  one status read confirms before it is announced (with the source `socket`); a read that
  disagrees wins and the claim is noted. While the socket is down the polls stand in, and each
  open request is read once after its subscription is acknowledged again. `nudge` reads
  nothing while the socket pushes the request's changes.
- Every observation, polled, pushed or streamed, goes through `crossdeck.track.updates.compare`:
  one ordered stream per request, newer `updatedAt` wins, stale and duplicate ones are
  dropped, so nothing moves a request backwards.
- A 429 pauses the whole budget for its Retry-After; no answer / 503 pauses it with backoff;
  other error answers (5xx, malformed, 408/425) back off that request alone; an id the service
  keeps answering 404 for, or refuses for good (another 4xx), is given up (`on_problem`).
- `nudge(request_id)` after the client's own action (deposit mined, signature posted): a poll
  at once (unless the socket pushes), then every `policy.first` seconds and growing.
- With a `StatusStore`, every tracked id and each accepted update is written down, so a new
  tracker calling `resume()` picks up the unfinished requests and their last-known status.
- `attach(receiver)`: a `WebhookReceiver` hands each verified delivery to `feed_webhook` in its
  handler, before answering it.

The `ServiceClient` handed in should not retry by itself (`retry=NO_RETRY`): a client that
sleeps out a 429's Retry-After inside one poll hides it from the budget, and the other polls
keep hitting the limit meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from crossdeck.base.secret import Secret
from crossdeck.models.status import RequestStatus, parse_status
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.polling import PollLoop
from crossdeck.track.socket_feed import SocketFeed, SocketLimits
from crossdeck.track.store import StatusStore
from crossdeck.track.store_writer import STORE_FLUSH_ROWS, STORE_FLUSH_SECONDS, StoreWriter
from crossdeck.track.subscription import Subscription
from crossdeck.track.tracked import (
    EventSource,
    FeedStatus,
    Problem,
    PushingSource,
    RequestState,
    StatusSource,
    TrackerStats,
)
from crossdeck.track.updates import (
    FINAL_STATUSES,
    Source,
    StatusUpdate,
    Verdict,
    compare,
    known_status,
    normalise_request_id,
)

if TYPE_CHECKING:
    # the webhook's model and the history records it holds: a run without webhooks never
    # loads them
    from crossdeck.models.webhook import WebhookEvent

__all__ = [
    "STORE_FLUSH_ROWS",
    "FeedStatus",
    "Problem",
    "StatusTracker",
    "Subscription",
    "TrackerStats",
]

log = logging.getLogger(__name__)

Clock = Callable[[], float]

DEFAULT_RATE = 5.0
"""Status requests per second when no budget is given; keep it below the key's limit."""


class StatusTracker(PollLoop):
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
        self._clock = clock
        self._wall = wall_clock
        self._requests: dict[str, RequestState] = {}
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
        self._writer = StoreWriter(store, store_flush_seconds) if store is not None else None
        self._detach: list[Callable[[], None]] = []
        self._socket: SocketFeed | None = None
        self._noted: set[str] = set()
        self.stats = TrackerStats()

    def __repr__(self) -> str:
        return (
            f"StatusTracker({len(self._requests)} tracked, {len(self._open)} open, "
            f"{self.stats.polls} polls, {self.stats.webhooks} webhooks)"
        )

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the scheduler (and the status socket, if any) on the running loop
        (idempotent)."""
        if self._closed:
            raise RuntimeError("the tracker is closed")
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(
                self._run(), name="status-tracker"
            )
        if self._socket is not None:
            self._socket.start()

    def use_socket(
        self, url: str, *, api_key: Secret | None = None, limits: SocketLimits | None = None
    ) -> SocketFeed:
        """Follow every tracked request over the service's status websocket at `url` too
        (`crossdeck.track.socket_feed`); started with the tracker."""
        if self._socket is not None:
            raise RuntimeError("the tracker has a status socket already")
        self._socket = SocketFeed(url, sink=self, api_key=api_key, limits=limits)
        for rid in self._open:
            self._socket.subscribe(rid)
        if self._runner is not None:
            self._socket.start()
        return self._socket

    @property
    def socket(self) -> SocketFeed | None:
        return self._socket

    def feed_status(self) -> FeedStatus:
        """Where statuses come from now (see `FeedStatus`)."""
        feed = self._socket
        if feed is None:
            return FeedStatus("off", "no status socket", 0.0)
        return FeedStatus(feed.state, feed.reason, feed.since)

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
        if self._socket is not None:
            await self._socket.aclose()
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
        if self._writer is not None:
            self._writer.flush()
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
        req = RequestState(rid, changed_at=now)
        if stored is not None and stored.latest is not None:
            req.latest = stored.latest
            req.final = stored.latest.final
            if parse_status(stored.latest.status) is RequestStatus.FAILURE and not req.final:
                req.failure_since = now  # the settle period starts again
        self._requests[rid] = req
        if not req.finished:
            self._open.add(rid)
            self._done.clear()
            if self._socket is not None:
                self._socket.subscribe(rid)
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
        if self._socket is not None:
            self._socket.unsubscribe(rid)
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

    def next_read_in(self, request_id: str) -> float | None:
        """Seconds until the request's next status read (0 while one is under way or due);
        None when none will come (finished, or not followed)."""
        req = self._requests.get(normalise_request_id(request_id))
        if req is None or req.finished:
            return None
        if req.in_flight:
            return 0.0
        return None if req.due is None else max(0.0, req.due - self._clock())

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
            self._subscriptions,
            lambda _u: True,
            ends_when=(lambda: not self._open) if until_done else None,
            closed=self._closed,
            check_now=bool(self._requests),
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

        sub = Subscription(
            self._subscriptions, lambda u: u.request_id == rid, ends_when=None, closed=self._closed
        )
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

    def nudge(self, request_id: str, *, read: bool = False) -> None:
        """The client just acted on `request_id` (deposit mined and announced, signature
        posted, venue transfer accepted): look again after `policy.nudge_delay` (at once by
        default: the service may know already), then from `policy.first` on, the back-off
        starting from here. Not while its webhooks flow: they bring the news.

        `read`: what happened may predate the socket's subscription (a run resumed by another
        process than the one that sent): read once even while the socket pushes the request,
        which pushes only what changes after it subscribed."""
        rid = normalise_request_id(request_id)
        if rid not in self._requests:
            self.track(rid)
        req = self._requests[rid]
        if req.finished:
            return
        now = self._clock()
        req.following = True
        req.changed_at = now
        if self._socket is not None and self._socket.acked(rid):
            if not read:
                return  # the socket pushes what the action changes: no read needed
        elif self._socket is not None and self._socket.live:
            req.catch_up = True  # subscribed, not yet acknowledged: read once when it is
        if req.in_flight:
            req.nudged = True
            return
        self._schedule(req, self._follow_up_due(req, now))

    def _follow_up_due(self, req: RequestState, now: float) -> float:
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

    # -- the status socket (`SocketSink`) -------------------------------------------------------

    def socket_event(self, update: StatusUpdate) -> None:
        """One event of the status socket (checked by the feed). A final status is only a
        claim: one status read confirms it before anything ends."""
        req = self._requests.get(update.request_id)
        if req is None or req.finished:
            return
        self.stats.socket_events += 1
        now = self._clock()
        if update.final:
            req.socket_claim = update
            if not req.in_flight:
                self._schedule(req, now)
            else:
                req.nudged = True
            return
        self._observe(req, update, now)
        if not req.in_flight:
            self._schedule(req, self._next_poll(req, now))

    def socket_acked(self, request_id: str) -> None:
        """The socket pushes this request's changes from now on: polls become a slow
        reconciliation; one read at once if changes may have gone unseen before."""
        req = self._requests.get(request_id)
        if req is None or req.finished or req.in_flight:
            return
        now = self._clock()
        if req.catch_up:
            req.catch_up = False
            self._schedule(req, now)
        else:
            self._schedule(req, self._next_poll(req, now))

    def socket_state(self, live: bool, reason: str) -> None:
        """The socket went down (polls stand in, and every open request is read once after
        its next acknowledgement) or came up."""
        if live:
            self._problem(Problem(None, "status socket live: changes are pushed"))
            return
        self._problem(Problem(None, f"status socket down ({reason}): polling stands in"))
        now = self._clock()
        for rid in self._open:
            req = self._requests[rid]
            req.catch_up = True
            if not req.in_flight:
                self._schedule(req, self._next_poll(req, now))

    def socket_note(self, kind: str, message: str) -> None:
        self._note(kind, message)

    def _note(self, kind: str, message: str) -> None:
        """Something the socket sent that changes nothing: said once per kind."""
        if kind in self._noted:
            return
        self._noted.add(kind)
        self._problem(Problem(None, message))

    # -- merging -----------------------------------------------------------------------------

    def _observe(self, req: RequestState, update: StatusUpdate, now: float) -> Verdict:
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
        status = known_status(update.status)
        if status is RequestStatus.FAILURE:
            if previous is None or str(previous.status) != str(update.status):
                req.failure_since = now
        else:
            req.failure_since = None
        final = status in FINAL_STATUSES
        req.changed_at = now
        # read from the service, an update says so already (a copy costs a third of a webhook)
        self._accept(req, update if update.final is final else update.with_final(final))
        return verdict

    def _accept(self, req: RequestState, update: StatusUpdate) -> None:
        req.latest = update
        if update.final:
            req.final = True
            self._open.discard(req.request_id)
            if self._socket is not None:
                self._socket.unsubscribe(req.request_id)
        if self._writer is not None:
            self._writer.save(update)
        self.stats.emitted += 1
        for sub in list(self._subscriptions):
            sub._push(update)
        self._check_done()

    def _settle(self, req: RequestState) -> None:
        """`failure` held for the settle period: announce it as final."""
        assert req.latest is not None
        settled = replace(req.latest, source=Source.SETTLE, observed_at=self._wall(), final=True)
        self._accept(req, settled)

    def _give_up(self, req: RequestState, reason: str, error: BaseException | None) -> None:
        req.given_up = reason
        self._open.discard(req.request_id)
        if self._socket is not None:
            self._socket.unsubscribe(req.request_id)
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

    # -- scheduling ----------------------------------------------------------------------------

    def _next_poll(self, req: RequestState, now: float) -> float:
        status = req.latest.status if req.latest is not None else None
        feed_live = (
            self._last_webhook_at is not None
            and now - self._last_webhook_at < self.policy.webhook_quiet
        )
        due = self.policy.next_poll(
            now=now,
            status=status,
            changed_at=req.changed_at,
            last_webhook_at=req.last_webhook_at,
            failure_since=req.failure_since,
            feed_live=feed_live,
            following=req.following,
        )
        if (
            self._socket is not None
            and self._socket.acked(req.request_id)
            and req.failure_since is None
            and req.socket_claim is None
        ):
            # the socket pushes every change: a read now and then only reconciles
            due = max(due, now + self.policy.socket_reconcile)
        elif self._socket is not None and self._socket.awaiting_ack(req.request_id):
            # its acknowledgement comes within the ack timeout and reschedules the request (a
            # read at once if it must catch up), or the socket is closed and the polls stand
            # in: a poll before it would only read what the socket is about to follow
            due = max(due, now + self._socket.limits.ack_timeout)
        return due
