"""Webhook receiving on loopback: verified deliveries per second, and delivery -> stream latency.

Anchor, measured in the same run with the same load generator: a bare aiohttp handler (in its
own process too) that reads the body and answers 200. Runs alternate between the two, and the
ratio printed is the median receiver rate over the median anchor rate at each sender count
(issue 15 asks for >= 0.9 at 1, 8 and 32 senders, and a stream p99 under 5 ms at 8).

The receiver (`crossdeck.track.receiver.WebhookReceiver`) runs in its own process, feeding a
`StatusTracker` set up as `crossdeck watch --webhooks` and the app set theirs up: a
`StatusStore` file (every accepted update is written down), and every request id tracked before
its deliveries come (the app tracks the requests it started); the senders run here, each
signing and POSTing its deliveries over keep-alive connections. For every delivery we record when
its POST started, when its 2xx came back ("answer"), when the tracker took the event from the
receiver ("taken"; the receiver hands it over in its handler, as it does for the app) and when
the tracker announced it in its merged update stream ("stream", the number a user feels). Both
processes read `time.monotonic()`, which on Linux is one system-wide clock. The tracker's polls
go to a service that never answers, so every update it streams came from a webhook. Both servers
start serving once crossdeck's start-up hold of the garbage collector is over
(`crossdeck.base.start_gc`), so every run measures the steady state of a process that has been up a
while, as the app's receiver is when deliveries come.

    .venv/bin/python bench/webhook_bench.py                 # defaults: 2000 x [1, 8, 32], 5 runs
    .venv/bin/python bench/webhook_bench.py --deliveries 500 --concurrency 4 --runs 2

Bounded: each run has a time limit (--run-timeout) and the tool exits by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import aiohttp
from aiohttp import web

from crossdeck.base.start_gc import START_SECONDS, wait_start_over
from crossdeck.track.hmac_sig import sign
from crossdeck.track.receiver import ReceivedEvent, WebhookReceiver
from crossdeck.track.store import StatusStore
from crossdeck.track.tracker import StatusTracker
from crossdeck.track.webhook_defaults import DEFAULT_WEBHOOK_PATH

API_KEY = "bench-api-key-not-a-secret"


class _NeverAnswers:
    """A status service that never answers: the tracker's polls stay in flight, so whatever the
    tracker streams came from webhooks."""

    async def status_v3(self, request_id: str) -> object:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class _Tap:
    """Passes the receiver's deliveries on to the tracker as the receiver itself would (its
    `deliver_to`), noting when the tracker took each."""

    def __init__(self, rx: WebhookReceiver, seen: dict[str, float]) -> None:
        self.rx = rx
        self.seen = seen

    def deliver_to(self, sink: Callable[[ReceivedEvent], None] | None) -> None:
        if sink is None:
            self.rx.deliver_to(None)
            return

        def noted(item: ReceivedEvent) -> None:
            data = item.event.data
            if data is not None and data.request_id is not None:
                self.seen[data.request_id] = time.monotonic()
            sink(item)

        self.rx.deliver_to(noted)


def _request_ids(deliveries: int) -> list[str]:
    return [f"0x{n:064x}" for n in range(deliveries)]


def _receiver_process(conn: Connection, expected: int, timeout: float) -> None:
    async def main(data_dir: str) -> None:
        rx = WebhookReceiver(API_KEY, queue_size=expected + 10)
        store = StatusStore.in_data_dir(Path(data_dir))
        tracker = StatusTracker(_NeverAnswers(), store=store)
        for request_id in _request_ids(expected):
            tracker.track(request_id, poll_now=False)
        await rx.start()
        wait_start_over(START_SECONDS + 5)  # the steady state (see above)
        conn.send(rx.port)
        cpu_start = time.process_time()
        taken: dict[str, float] = {}
        streamed: dict[str, float] = {}
        updates = tracker.updates()
        try:
            tracker.start()
            tracker.attach(_Tap(rx, taken))
            async with asyncio.timeout(timeout):
                async for update in updates:
                    streamed.setdefault(update.request_id, time.monotonic())
                    if len(streamed) >= expected:
                        break
        except TimeoutError:
            pass
        finally:
            await tracker.aclose()
            await rx.stop()
            store.close()
        cpu = time.process_time() - cpu_start
        conn.send((taken, streamed, rx.stats.accepted, dict(rx.stats.rejected), cpu))

    with tempfile.TemporaryDirectory(prefix="webhook-bench-") as data_dir:
        asyncio.run(main(data_dir))


def _bare_process(conn: Connection, expected: int, timeout: float) -> None:
    """The anchor: an aiohttp handler that reads the body and answers 200, nothing else."""

    async def main() -> None:
        answered: dict[str, float] = {}
        done = asyncio.Event()

        async def handle(request: web.Request) -> web.Response:
            await request.read()
            answered[str(len(answered))] = time.monotonic()
            if len(answered) >= expected:
                done.set()
            return web.Response(body=b'{"status":"accepted"}', content_type="application/json")

        app = web.Application()
        app.router.add_post(DEFAULT_WEBHOOK_PATH, handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        wait_start_over(START_SECONDS + 5)
        conn.send(runner.addresses[0][1])
        cpu_start = time.process_time()
        try:
            async with asyncio.timeout(timeout):
                await done.wait()
        except TimeoutError:
            pass
        finally:
            await runner.cleanup()
        conn.send(({}, {}, len(answered), {}, time.process_time() - cpu_start))

    asyncio.run(main())


def _body(request_id: str, pad: int) -> bytes:
    payload = {
        "event": "request.status.updated",
        "timestamp": time.time_ns() // 1_000_000,
        "data": {
            "status": "success",
            "inTxHashes": ["0x" + "ab" * 32],
            "txHashes": ["0x" + "cd" * 32],
            "updatedAt": time.time_ns() // 1_000_000,
            "originChainId": 8453,
            "destinationChainId": 1337,
            "depositAddress": None,
            "requestId": request_id,
            "details": "x" * pad if pad else None,
            "failReason": "N/A",
            "refundFailReason": "N/A",
        },
    }
    return json.dumps(payload, separators=(",", ":")).encode()


@dataclass
class RunResult:
    kind: str
    concurrency: int
    delivered: int
    streamed: int
    seconds: float
    answer_ms: list[float]
    taken_ms: list[float]
    stream_ms: list[float]
    rejected: dict[str, int]
    cpu_seconds: float
    """The server process's CPU time (user + system) while serving this run."""

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / self.delivered * 1e6 if self.delivered else float("nan")

    @property
    def rate(self) -> float:
        return self.delivered / self.seconds if self.seconds > 0 else 0.0


async def _send_all(
    port: int, deliveries: int, concurrency: int, pad: int, limit_seconds: float
) -> tuple[dict[str, float], list[float], int, float]:
    url = f"http://127.0.0.1:{port}{DEFAULT_WEBHOOK_PATH}"
    ids = _request_ids(deliveries)
    started: dict[str, float] = {}
    answer_ms: list[float] = []
    delivered = 0
    next_index = 0

    async def sender(session: aiohttp.ClientSession) -> None:
        nonlocal delivered, next_index
        while next_index < len(ids):
            request_id = ids[next_index]
            next_index += 1
            body = _body(request_id, pad)
            t0 = time.monotonic()
            ts = str(int(time.time()))
            headers = {
                "Content-Type": "application/json",
                "X-Signature-Timestamp": ts,
                "X-Signature-SHA256": sign(API_KEY, ts, body),
            }
            started[request_id] = t0
            async with session.post(url, data=body, headers=headers) as resp:
                await resp.read()
                if resp.status == 200:
                    delivered += 1
            answer_ms.append((time.monotonic() - t0) * 1000)

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        begin = time.monotonic()
        async with asyncio.timeout(limit_seconds):
            await asyncio.gather(*(sender(session) for _ in range(concurrency)))
        seconds = time.monotonic() - begin
    return started, answer_ms, delivered, seconds


def run_once(kind: str, deliveries: int, concurrency: int, pad: int, timeout: float) -> RunResult:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    target = _receiver_process if kind == "receiver" else _bare_process
    proc = ctx.Process(target=target, args=(child, deliveries, timeout), daemon=True)
    proc.start()
    try:
        if not parent.poll(30):
            raise RuntimeError("receiver process did not start")
        port = parent.recv()
        started, answer_ms, delivered, seconds = asyncio.run(
            _send_all(port, deliveries, concurrency, pad, timeout)
        )
        if not parent.poll(timeout):
            raise RuntimeError("receiver process did not report")
        taken, streamed, _accepted, rejected, cpu = parent.recv()
    finally:
        proc.join(10)
        if proc.is_alive():
            proc.kill()
    taken_ms = [(taken[k] - started[k]) * 1000 for k in taken if k in started]
    stream_ms = [(streamed[k] - started[k]) * 1000 for k in streamed if k in started]
    return RunResult(
        kind, concurrency, delivered, len(streamed), seconds, answer_ms, taken_ms, stream_ms,
        rejected, cpu,
    )  # fmt: skip


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _row(result: RunResult, run: int) -> str:
    streamed = f"{result.streamed:>8}" if result.kind == "receiver" else f"{'-':>8}"
    row = (
        f"{result.kind:>8} {result.concurrency:>7} {run:>3} {result.delivered:>6} {streamed} "
        f"{result.seconds:>8.2f} {result.rate:>8.0f} {result.cpu_us:>7.0f} "
        f"{_pct(result.answer_ms, 50):>8.2f}ms {_pct(result.answer_ms, 99):>8.2f}ms"
    )
    if result.kind == "receiver":
        row += (
            f" {_pct(result.taken_ms, 50):>8.2f}ms {_pct(result.taken_ms, 99):>8.2f}ms"
            f" {_pct(result.stream_ms, 50):>8.2f}ms {_pct(result.stream_ms, 99):>8.2f}ms"
        )
    return row + (f"  rejected={result.rejected}" if result.rejected else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=2000, help="per run")
    parser.add_argument("--concurrency", default="1,8,32", help="comma-separated sender counts")
    parser.add_argument("--runs", type=int, default=5, help="runs of each, interleaved")
    parser.add_argument("--pad", type=int, default=0, help="extra bytes in data.details")
    parser.add_argument("--run-timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    levels = [int(c) for c in args.concurrency.split(",") if c.strip()]

    body_size = len(_body("0x" + "0" * 64, args.pad))
    print(
        f"webhook receiver bench: {args.deliveries} deliveries/run, body {body_size} bytes, "
        f"{args.runs} runs of each per sender count (interleaved), servers in their own "
        "process, loopback; anchor: a bare aiohttp handler answering 200"
    )
    header = (
        f"{'server':>8} {'senders':>7} {'run':>3} {'ok':>6} {'streamed':>8} {'seconds':>8} "
        f"{'deliv/s':>8} {'cpu µs':>7} {'answer p50':>10} {'answer p99':>10} {'taken p50':>10} "
        f"{'taken p99':>10} {'stream p50':>10} {'stream p99':>10}"
    )
    print(header)
    print("-" * len(header))
    summary: list[tuple[int, float, float, float, float, float, float]] = []
    failed = False
    began = time.monotonic()
    for level in levels:
        rates: dict[str, list[float]] = {"bare": [], "receiver": []}
        cpus: dict[str, list[float]] = {"bare": [], "receiver": []}
        p50s, p99s = [], []
        for run in range(1, args.runs + 1):
            # alternate which goes first, so neither always runs on a warmer machine
            order = ("bare", "receiver") if run % 2 else ("receiver", "bare")
            for kind in order:
                result = run_once(kind, args.deliveries, level, args.pad, args.run_timeout)
                expected_stream = args.deliveries if kind == "receiver" else 0
                if (
                    result.rejected
                    or result.delivered != args.deliveries
                    or (result.streamed != expected_stream)
                ):
                    failed = True
                print(_row(result, run))
                rates[kind].append(result.rate)
                cpus[kind].append(result.cpu_us)
                if kind == "receiver":
                    p50s.append(_pct(result.stream_ms, 50))
                    p99s.append(_pct(result.stream_ms, 99))
        summary.append(
            (
                level,
                statistics.median(rates["bare"]),
                statistics.median(rates["receiver"]),
                statistics.median(p50s),
                statistics.median(p99s),
                statistics.median(cpus["bare"]),
                statistics.median(cpus["receiver"]),
            )
        )
    print()
    print(f"medians of {args.runs} runs ({time.monotonic() - began:.0f} s in all):")
    for level, bare, receiver, p50, p99, bare_cpu, receiver_cpu in summary:
        print(
            f"  {level:>3} senders: receiver {receiver:>6.0f} verified deliveries/s, "
            f"bare aiohttp {bare:>6.0f}/s, ratio {receiver / bare:.2f}x (goal >= 0.9); "
            f"delivery->tracker stream p50 {p50:.2f} ms, p99 {p99:.2f} ms"
            + (" (goal < 5 ms)" if level == 8 else "")
            + f"; server CPU per delivery {receiver_cpu:.0f} µs vs {bare_cpu:.0f} µs"
        )
    if failed:
        print("some deliveries were rejected or never reached the stream", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
