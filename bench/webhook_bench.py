"""Webhook receiving on loopback: verified deliveries per second, and delivery -> stream latency.

The receiver (`crossdeck.track.receiver.WebhookReceiver`) runs in its own process, feeding a
`StatusTracker` (as `crossdeck watch --webhooks` and the app do); the senders run here, each
signing and POSTing its deliveries over keep-alive connections. For every delivery we record when
its POST started, when its 2xx came back ("answer"), when the event came out of the receiver's
queue ("queue") and when the tracker announced it in its merged update stream ("stream", the
number a user feels). Both processes read `time.monotonic()`, which on Linux is one system-wide
clock. The tracker's polls go to a service that never answers, so every update it streams came
from a webhook.

    .venv/bin/python bench/webhook_bench.py                 # defaults: 2000 x [1, 8, 32], 3 runs
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
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import aiohttp

from crossdeck.track.hmac_sig import sign
from crossdeck.track.receiver import WebhookReceiver
from crossdeck.track.tracker import StatusTracker

API_KEY = "bench-api-key-not-a-secret"


class _NeverAnswers:
    """A status service that never answers: the tracker's polls stay in flight, so whatever the
    tracker streams came from webhooks."""

    async def status_v3(self, request_id: str) -> object:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class _QueueTap:
    """Passes the receiver's events on to the tracker, noting when each left the queue."""

    def __init__(self, rx: WebhookReceiver, seen: dict[str, float]) -> None:
        self.rx = rx
        self.seen = seen

    async def events(self) -> AsyncIterator[Any]:
        async for item in self.rx.events():
            data = item.event.data
            if data is not None and data.request_id is not None:
                self.seen[data.request_id] = time.monotonic()
            yield item


def _receiver_process(conn: Connection, expected: int, timeout: float) -> None:
    async def main() -> None:
        rx = WebhookReceiver(API_KEY, dedup_size=expected + 10, queue_size=expected + 10)
        await rx.start()
        conn.send(rx.port)
        queued: dict[str, float] = {}
        streamed: dict[str, float] = {}
        tracker = StatusTracker(_NeverAnswers(), track_unknown_webhooks=True)
        updates = tracker.updates()
        try:
            tracker.start()
            tracker.attach(_QueueTap(rx, queued))
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
        conn.send((queued, streamed, rx.stats.accepted, dict(rx.stats.rejected)))

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
    concurrency: int
    delivered: int
    streamed: int
    seconds: float
    answer_ms: list[float]
    queue_ms: list[float]
    stream_ms: list[float]
    rejected: dict[str, int]

    @property
    def rate(self) -> float:
        return self.delivered / self.seconds if self.seconds > 0 else 0.0


async def _send_all(
    port: int, deliveries: int, concurrency: int, pad: int, limit_seconds: float
) -> tuple[dict[str, float], list[float], int, float]:
    url = f"http://127.0.0.1:{port}/webhooks"
    ids = [f"0x{n:064x}" for n in range(deliveries)]
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


def run_once(deliveries: int, concurrency: int, pad: int, timeout: float) -> RunResult:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_receiver_process, args=(child, deliveries, timeout), daemon=True)
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
        queued, streamed, _accepted, rejected = parent.recv()
    finally:
        proc.join(10)
        if proc.is_alive():
            proc.kill()
    queue_ms = [(queued[k] - started[k]) * 1000 for k in queued if k in started]
    stream_ms = [(streamed[k] - started[k]) * 1000 for k in streamed if k in started]
    return RunResult(
        concurrency, delivered, len(streamed), seconds, answer_ms, queue_ms, stream_ms, rejected
    )


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=2000, help="per run")
    parser.add_argument("--concurrency", default="1,8,32", help="comma-separated sender counts")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pad", type=int, default=0, help="extra bytes in data.details")
    parser.add_argument("--run-timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    levels = [int(c) for c in args.concurrency.split(",") if c.strip()]

    body_size = len(_body("0x" + "0" * 64, args.pad))
    print(
        f"webhook receiver bench: {args.deliveries} deliveries/run, body {body_size} bytes, "
        f"{args.runs} runs per concurrency, receiver in its own process, loopback"
    )
    header = (
        f"{'senders':>7} {'run':>3} {'ok':>6} {'streamed':>8} {'seconds':>8} {'deliv/s':>8} "
        f"{'answer p50':>10} {'answer p99':>10} {'queue p50':>10} {'queue p99':>10} "
        f"{'stream p50':>10} {'stream p99':>10}"
    )
    print(header)
    print("-" * len(header))
    summary: list[tuple[int, float, float, float]] = []
    failed = False
    for level in levels:
        rates, p50s, p99s = [], [], []
        for run in range(1, args.runs + 1):
            result = run_once(args.deliveries, level, args.pad, args.run_timeout)
            if result.rejected or result.streamed != args.deliveries:
                failed = True
            print(
                f"{level:>7} {run:>3} {result.delivered:>6} {result.streamed:>8} "
                f"{result.seconds:>8.2f} {result.rate:>8.0f} "
                f"{_pct(result.answer_ms, 50):>8.2f}ms {_pct(result.answer_ms, 99):>8.2f}ms "
                f"{_pct(result.queue_ms, 50):>8.2f}ms {_pct(result.queue_ms, 99):>8.2f}ms "
                f"{_pct(result.stream_ms, 50):>8.2f}ms {_pct(result.stream_ms, 99):>8.2f}ms"
                + (f"  rejected={result.rejected}" if result.rejected else "")
            )
            rates.append(result.rate)
            p50s.append(_pct(result.stream_ms, 50))
            p99s.append(_pct(result.stream_ms, 99))
        summary.append(
            (level, statistics.median(rates), statistics.median(p50s), statistics.median(p99s))
        )
    print()
    print("median over runs:")
    for level, rate, p50, p99 in summary:
        print(
            f"  {level:>3} senders: {rate:>6.0f} verified deliveries/s, "
            f"delivery->tracker stream p50 {p50:.2f} ms, p99 {p99:.2f} ms"
        )
    if failed:
        print("some deliveries were rejected or never reached the stream", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
