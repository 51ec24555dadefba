"""Status requests per finished request: the adaptive `StatusTracker` against a fixed 5 s poller.

Each run makes 3 x N requests in a demo world and gives the three sets the same simulated
lifetimes (seeded): the user pays after 5-60 s, `pending` lasts 2-15 s, `submitted` 1-5 s, then
`success`; one request in ten goes `failure` and is refunded 5-20 s later. Time runs `--scale`
times faster than that (all lifetimes, poll intervals and policy periods divided by it), and a
driver thread moves the requests with `ServiceState.advance`, the solver's own call, so each
change is seen by the status endpoint and sent as a webhook like any other.

Three followers run side by side, each on its own set and its own counted HTTP client:

- fixed:    one loop per request, GET /intents/status/v3 every 5 s until success or refund
            (what the public SDK does, minus its attempt limit);
- adaptive: `StatusTracker` polling only, default `PollPolicy`;
- webhooks: `StatusTracker` with a `WebhookReceiver` attached (the world sends this set's
            webhooks to it), default `PollPolicy`.

Reported per follower: status requests per finished request, and detection delay (final change
committed -> follower sees it), in unscaled seconds. The world's rate limit is lifted and the
trackers' budget set high, so only the polling policy is measured, not the budget.

    .venv/bin/python bench/status_polling_bench.py                # 100 x 3 requests, x5, 3 runs
    .venv/bin/python bench/status_polling_bench.py --requests 50 --scale 10 --runs 2

Bounded: each run has a time limit (--run-timeout); the tool exits by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from crossdeck.api import NO_RETRY, ServiceClient
from crossdeck.api.errors import ServiceError
from crossdeck.models.status import RequestStatus
from crossdeck.sim.service.state import Tx
from crossdeck.sim.world import World
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.receiver import WebhookReceiver
from crossdeck.track.tracker import StatusTracker

FIXED_INTERVAL = 5.0
NATIVE = "0x0000000000000000000000000000000000000000"


# -- the world side -----------------------------------------------------------------------------


@dataclass
class Lifetime:
    stages: list[tuple[float, str]]
    """(seconds after the start, status), unscaled."""

    @property
    def final_at(self) -> float:
        return self.stages[-1][0]


def lifetimes(n: int, seed: int) -> list[Lifetime]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        at = rng.uniform(5, 60)
        stages = [(at, "pending")]
        if rng.random() < 0.1:
            at += rng.uniform(2, 15)
            stages.append((at, "failure"))
            at += rng.uniform(5, 20)
            stages.append((at, "refund"))
        else:
            at += rng.uniform(2, 15)
            stages.append((at, "submitted"))
            at += rng.uniform(1, 5)
            stages.append((at, "success"))
        out.append(Lifetime(stages))
    return out


def make_requests(world: World, n: int, key_name: str) -> list[str]:
    """`waiting` requests: copies of one real quote's record, made with the service's own
    `copy_request` (a quote costs ~40 ms of route work; a copy is one row)."""
    state = world.state
    assert state is not None
    reply = httpx.post(
        f"{world.service_url}/quote/v2",
        json={
            "user": world.wallet_address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(10**15),
            "tradeType": "EXACT_INPUT",
        },
        headers={"x-api-key": world.api_key},
        timeout=30,
    )
    reply.raise_for_status()
    base = reply.json()["steps"][0]["requestId"]
    return [state.copy_request(base, api_key_name=key_name).id for _ in range(n)]


def _tx(chain_id: int) -> Tx:
    return Tx(hash="0x" + secrets.token_hex(32), chain_id=chain_id, timestamp=int(time.time()))


def drive(
    world: World,
    plan: list[tuple[float, str, str]],
    start: float,
    final_at: dict[str, float],
    stop: threading.Event,
) -> None:
    assert world.state is not None
    for at, rid, status in plan:
        while not stop.is_set() and time.monotonic() < start + at:
            time.sleep(min(0.01, max(0.0, start + at - time.monotonic())))
        if stop.is_set():
            return
        extra: dict[str, Any] = {}
        if status == "pending":
            extra = {"in_tx": _tx(8453)}
        elif status == "submitted":
            extra = {"out_tx": _tx(999)}
        elif status == "failure":
            extra = {"fail_reason": "SLIPPAGE"}
        world.state.advance(rid, status, **extra)
        if status in ("success", "refund"):
            final_at[rid] = time.monotonic()


# -- the followers ------------------------------------------------------------------------------


@dataclass
class Counting(httpx.AsyncBaseTransport):
    inner: httpx.AsyncBaseTransport = field(default_factory=httpx.AsyncHTTPTransport)
    status_requests: int = 0
    rate_limited: int = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.path.startswith("/intents/status"):
            self.status_requests += 1
            self.rate_limited += response.status_code == 429
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Outcome:
    name: str
    requests: int = 0
    finished: int = 0
    delays: list[float] = field(default_factory=list)
    """Unscaled seconds from the final change to the follower seeing it."""
    rate_limited: int = 0

    @property
    def per_finished(self) -> float:
        return self.requests / self.finished if self.finished else float("nan")


def client(world: World, transport: Counting) -> ServiceClient:
    return ServiceClient(
        world.service_url, api_key=world.api_key, retry=NO_RETRY, transport=transport
    )


async def fixed_poller(
    world: World, ids: list[str], interval: float, seen_final: dict[str, float]
) -> Counting:
    transport = Counting()
    async with client(world, transport) as service:

        async def follow(rid: str) -> None:
            while True:
                try:
                    status = await service.status_v3(rid)
                except ServiceError:
                    status = None
                if status is not None and status.known_status in (
                    RequestStatus.SUCCESS,
                    RequestStatus.REFUND,
                ):
                    seen_final[rid] = time.monotonic()
                    return
                await asyncio.sleep(interval)

        await asyncio.gather(*(follow(rid) for rid in ids))
    return transport


def scaled_policy(scale: float, base: PollPolicy) -> PollPolicy:
    return PollPolicy(
        fast=base.fast / scale,
        ramp=base.ramp,
        idle_ramp=base.idle_ramp,
        active_cap=base.active_cap / scale,
        idle_cap=base.idle_cap / scale,
        webhook_quiet=base.webhook_quiet / scale,
        failure_settle=base.failure_settle / scale,
        settle_interval=base.settle_interval / scale,
        error_base=base.error_base / scale,
        error_cap=base.error_cap / scale,
    )


async def adaptive(
    world: World,
    ids: list[str],
    scale: float,
    seen_final: dict[str, float],
    receiver: WebhookReceiver | None,
    policy: PollPolicy,
) -> tuple[Counting, StatusTracker]:
    transport = Counting()
    async with client(world, transport) as service:
        tracker = StatusTracker(
            service, budget=RateBudget(1000, burst=200), policy=scaled_policy(scale, policy)
        )
        async with tracker:
            updates = tracker.updates(until_done=True)
            tracker.track_many(ids)
            if receiver is not None:
                tracker.attach(receiver)
            async for update in updates:
                if update.final:
                    seen_final[update.request_id] = time.monotonic()
    return transport, tracker


# -- one run ------------------------------------------------------------------------------------


async def one_run(
    world: World, n: int, scale: float, seed: int, run_timeout: float, policy: PollPolicy
) -> list[Outcome]:
    lives = lifetimes(n, seed)
    sets = {
        "fixed 5 s": make_requests(world, n, "other"),
        "adaptive": make_requests(world, n, "other"),
        "adaptive+webhooks": make_requests(world, n, "demo"),
    }
    plan = sorted(
        (stage_at / scale, rid, status)
        for ids in sets.values()
        for rid, life in zip(ids, lives, strict=True)
        for stage_at, status in life.stages
    )
    final_at: dict[str, float] = {}
    seen: dict[str, dict[str, float]] = {name: {} for name in sets}
    stop = threading.Event()
    async with WebhookReceiver(world.api_key, queue_size=100_000) as receiver:
        world.set_webhook(world.api_key, receiver.url)
        start = time.monotonic()
        driver = threading.Thread(
            target=drive, args=(world, plan, start, final_at, stop), daemon=True
        )
        driver.start()
        try:
            async with asyncio.timeout(run_timeout):
                fixed_t, (adaptive_t, _), (hooked_t, _) = await asyncio.gather(
                    fixed_poller(
                        world, sets["fixed 5 s"], FIXED_INTERVAL / scale, seen["fixed 5 s"]
                    ),
                    adaptive(world, sets["adaptive"], scale, seen["adaptive"], None, policy),
                    adaptive(
                        world,
                        sets["adaptive+webhooks"],
                        scale,
                        seen["adaptive+webhooks"],
                        receiver,
                        policy,
                    ),
                )
        finally:
            stop.set()
            await asyncio.to_thread(driver.join, 10)

            async def unset() -> None:
                assert world.webhook_sender is not None
                world.webhook_sender.remove_endpoint(world.api_key)

            world.call(unset)
    outcomes = []
    for name, transport in (
        ("fixed 5 s", fixed_t),
        ("adaptive", adaptive_t),
        ("adaptive+webhooks", hooked_t),
    ):
        got = seen[name]
        outcome = Outcome(
            name, transport.status_requests, len(got), rate_limited=transport.rate_limited
        )
        outcome.delays = [(got[rid] - final_at[rid]) * scale for rid in got if rid in final_at]
        outcomes.append(outcome)
        await transport.aclose()
    return outcomes


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100, help="requests per follower")
    parser.add_argument("--scale", type=float, default=5.0, help="time runs this much faster")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--run-timeout", type=float, default=120.0)
    defaults = PollPolicy()
    for name in ("fast", "ramp", "idle_ramp", "active_cap", "idle_cap", "webhook_quiet"):
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=float,
            default=getattr(defaults, name),
            help=f"PollPolicy.{name} (unscaled; default %(default)s)",
        )
    args = parser.parse_args(argv)
    if args.requests < 1 or args.runs < 1 or args.scale <= 0:
        parser.error("--requests and --runs must be >= 1, --scale > 0")

    policy = replace(
        defaults,
        fast=args.fast,
        ramp=args.ramp,
        idle_ramp=args.idle_ramp,
        active_cap=args.active_cap,
        idle_cap=args.idle_cap,
        webhook_quiet=args.webhook_quiet,
    )
    print(f"tracker policy (unscaled): {policy}")
    world = World(speed=0, rate_limits=(100_000, 1_000_000))
    world.start_blocking()
    totals: dict[str, list[Outcome]] = {}
    try:
        for run in range(args.runs):
            outcomes = asyncio.run(
                one_run(world, args.requests, args.scale, args.seed + run, args.run_timeout, policy)
            )
            print(f"run {run + 1}/{args.runs} ({args.requests} requests each, x{args.scale:g})")
            for o in outcomes:
                totals.setdefault(o.name, []).append(o)
                print(
                    f"  {o.name:<18} {o.requests:>6} status requests, {o.finished:>4} finished, "
                    f"{o.per_finished:6.2f} per finished request; detection delay "
                    f"p50 {_pct(o.delays, 0.5):5.2f} s, p95 {_pct(o.delays, 0.95):5.2f} s, "
                    f"max {max(o.delays, default=float('nan')):5.2f} s; 429s {o.rate_limited}"
                )
    finally:
        world.stop()

    print("\nall runs")
    fixed = totals["fixed 5 s"]
    fixed_rate = sum(o.requests for o in fixed) / sum(o.finished for o in fixed)
    for name, runs in totals.items():
        per = sum(o.requests for o in runs) / sum(o.finished for o in runs)
        delays = [d for o in runs for d in o.delays]
        print(
            f"  {name:<18} {per:6.2f} status requests per finished request "
            f"({per / fixed_rate:5.2f} x fixed 5 s); delay mean {statistics.fmean(delays):5.2f} s, "
            f"p95 {_pct(delays, 0.95):5.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
