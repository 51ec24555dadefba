"""An adversarial mix of 10,000+ deliveries: none answered wrong, each change once, memory flat.

A bounded, seeded fuzz loop (set CROSSDECK_FUZZ_SEED to explore other mixes): fresh valid
deliveries, retries the sender signed again, exact replays, bad signatures, wrong keys,
tampered bodies, stale and future timestamps, signed bodies that are not events (not JSON,
too deep, UTF-16, wrong event, missing fields) and oversized ones, from several concurrent
senders. The replay window is 3 s so that remembering and forgetting both happen many times.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field

import aiohttp
from track_support import API_KEY, body_of, independent_signature, status_payload

from crossdeck.track.receiver import WebhookReceiver

TOLERANCE = 3
MAX_BODY = 8192
DELIVERIES = 10_400
SENDERS = 4
SEED = int(os.environ.get("CROSSDECK_FUZZ_SEED", "16"))


def _headers(body: bytes, ts: int, key: str = API_KEY) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "X-Signature-Timestamp": str(ts),
        "X-Signature-SHA256": independent_signature(key, str(ts), body),
    }


@dataclass
class Sent:
    request_id: str
    body: bytes
    headers: dict[str, str]
    signed_at: int


@dataclass
class Model:
    """What the test knows it sent, to say what each answer must be."""

    rng: random.Random
    fresh: int = 0
    accepted: list[Sent] = field(default_factory=list)
    latest_signed: dict[str, int] = field(default_factory=dict)  # request id -> newest ts sent
    outcomes: Counter[str] = field(default_factory=Counter)
    max_remembered: int = 0
    max_footprint: int = 0

    def new_valid(self) -> tuple[bytes, dict[str, str], str]:
        self.fresh += 1
        payload = status_payload(f"0xfuzz{self.fresh}", self.rng.choice(["pending", "success"]))
        if self.rng.random() < 0.3:
            payload["data"]["details"] = {"note": "é✓" * self.rng.randrange(50)}
        body = body_of(payload)
        return body, _headers(body, int(time.time())), f"0xfuzz{self.fresh}"


BAD_BODIES = [
    b"not json",
    b"",
    b"[1,2,3]",
    b'{"event":"request.created","data":{}}',
    b'{"event":"request.status.updated","data":{"status":"pending","updatedAt":1}}',
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' + b"[" * 65 + b"]" * 65 + b"}",
    b'\\"' * 3000,
    b'{"event":"\xff"}',
    json.dumps(status_payload("0xutf16")).encode("utf-16"),
    json.dumps(status_payload("0xutf16le")).encode("utf-16-le"),
]


async def test_adversarial_mix_nothing_wrong_each_change_once_memory_bounded() -> None:
    rng = random.Random(SEED)
    model = Model(rng)
    processed: Counter[str] = Counter()
    async with (
        WebhookReceiver(API_KEY, tolerance_seconds=TOLERANCE, max_body_bytes=MAX_BODY) as rx,
        aiohttp.ClientSession() as session,
    ):

        async def consume() -> None:
            async for item in rx.events():
                processed[str(item.event.data.request_id)] += 1  # type: ignore[union-attr]

        consumer = asyncio.create_task(consume())

        async def post(body: bytes, headers: dict[str, str]) -> tuple[int, str]:
            async with session.post(rx.url, data=body, headers=headers) as resp:
                answer = await resp.json(content_type=None)
                return resp.status, answer.get("status") or answer.get("error")

        async def one() -> None:
            kind = rng.choices(
                ["valid", "retry", "replay", "bad_sig", "wrong_key", "tampered", "stale",
                 "future", "bad_body", "oversized"],
                weights=[30, 8, 12, 8, 5, 5, 6, 4, 14, 8],
            )[0]  # fmt: skip
            now = int(time.time())
            recent = [s for s in model.accepted[-200:] if s.signed_at >= now - 1]
            if kind in ("retry", "replay") and not model.accepted:
                kind = "valid"
            if kind == "retry" and not recent:
                kind = "replay"
            if kind == "valid":
                body, headers, rid = model.new_valid()
                got = await post(body, headers)
                assert got == (200, "accepted"), (SEED, kind, got)
                signed_at = int(headers["X-Signature-Timestamp"])
                model.accepted.append(Sent(rid, body, headers, signed_at))
                model.latest_signed[rid] = signed_at
            elif kind == "retry":  # the sender re-signs (and may re-encode) a recent change
                sent = rng.choice(recent)
                body = sent.body
                if rng.random() < 0.5:
                    body = json.dumps(json.loads(body), indent=1).encode()
                signed_at = int(time.time())
                got = await post(body, _headers(body, signed_at))
                assert got == (200, "duplicate"), (SEED, kind, got)
                # a change re-signed later is remembered until that timestamp is stale too
                model.latest_signed[sent.request_id] = signed_at
            elif kind == "replay":  # the exact bytes and headers of an accepted delivery
                sent = rng.choice(model.accepted)
                got = await post(sent.body, sent.headers)
                assert got in ((200, "duplicate"), (401, "stale")), (SEED, kind, got)
                if sent.signed_at >= int(time.time()) - 1:
                    assert got == (200, "duplicate"), (SEED, kind, got)
            elif kind in ("bad_sig", "wrong_key", "tampered"):
                body, headers, _rid = model.new_valid()
                if kind == "bad_sig":
                    sig = headers["X-Signature-SHA256"]
                    i = rng.randrange(len(sig))
                    flipped = "0" if sig[i] != "0" else "1"
                    headers["X-Signature-SHA256"] = sig[:i] + flipped + sig[i + 1 :]
                elif kind == "wrong_key":
                    headers = _headers(body, now, key=API_KEY + "x")
                else:
                    body = body.replace(b"0xfuzz", b"0xfuzZ", 1)
                got = await post(body, headers)
                assert got == (401, "mismatch"), (SEED, kind, got)
            elif kind in ("stale", "future"):
                body, _headers_now, _rid = model.new_valid()
                offset = rng.randrange(TOLERANCE + 2, 10_000)
                signed_at = now - offset if kind == "stale" else now + offset
                got = await post(body, _headers(body, signed_at))
                assert got == (401, kind), (SEED, kind, got)
            elif kind == "bad_body":
                body = rng.choice(BAD_BODIES)
                expected = (413, "too_large") if len(body) > MAX_BODY else (400, "bad_payload")
                got = await post(body, _headers(body, now))
                assert got == expected, (SEED, kind, got)
            else:
                body, _h, _rid = model.new_valid()
                pad = rng.randrange(MAX_BODY - len(body) + 1, 3 * MAX_BODY)
                body = body[:-1] + b" " * pad + b"}"
                got = await post(body, _headers(body, now))
                assert got == (413, "too_large"), (SEED, kind, got)
            model.outcomes[kind] += 1
            remembered = len(rx.replay_window)
            model.max_remembered = max(model.max_remembered, remembered)
            if sum(model.outcomes.values()) % 250 == 0:
                # only changes signed in the last TOLERANCE (+1 for whole seconds) s may remain
                floor = int(time.time()) - TOLERANCE - 1
                alive = sum(1 for ts in model.latest_signed.values() if ts >= floor)
                # (+ SENDERS: the other senders' accepted deliveries not yet noted here)
                assert remembered <= alive + SENDERS, (SEED, remembered, alive)
                model.max_footprint = max(model.max_footprint, rx.replay_window.footprint_bytes())

        queue = list(range(DELIVERIES))

        async def sender() -> None:
            while queue:
                queue.pop()
                await one()

        started = time.monotonic()
        await asyncio.gather(*(sender() for _ in range(SENDERS)))
        elapsed = time.monotonic() - started
        for _ in range(100):
            if sum(processed.values()) >= len(model.accepted):
                break
            await asyncio.sleep(0.05)
        await rx.stop()
        await asyncio.wait_for(consumer, timeout=10)

    total = sum(model.outcomes.values())
    assert total == DELIVERIES >= 10_000
    assert set(model.outcomes) >= {"valid", "retry", "replay", "bad_sig", "stale", "bad_body"}
    # every valid change processed exactly once, nothing else processed at all
    assert len(processed) == len(model.accepted) == rx.stats.accepted
    assert set(processed.values()) == {1}
    assert rx.stats.rejected["internal_error"] == 0
    # memory: the window, not the run, bounds what is remembered (about 200 bytes a change)
    assert model.max_remembered < len(model.accepted) or elapsed < TOLERANCE
    assert model.max_footprint <= 300 * model.max_remembered + 65_536, model.max_footprint
    print(
        f"\n{total} deliveries in {elapsed:.1f} s (seed {SEED}): {dict(model.outcomes)}; "
        f"{len(model.accepted)} accepted; at most {model.max_remembered} changes "
        f"({model.max_footprint} bytes) remembered"
    )
