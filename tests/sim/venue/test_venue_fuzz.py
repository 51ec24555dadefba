"""Hypothesis fuzz of the venue's HTTP surface: any body gets 200/400/422, never a 500 or a
crash, and nothing but an 'ok' moves money."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossdeck.sim.brand import BRANDS
from crossdeck.sim.venue import VenueLedger, make_venue_app

from .support import PAYER, PERPS_USDC, SOLVER, USDC_UNIT, signed_body

BRAND = BRANDS["neutral"]


class ThreadedVenue:
    """The venue on its own loop in a thread, so sync hypothesis tests can call it."""

    def __init__(self) -> None:
        self.ledger = VenueLedger()
        self.ledger.credit(PAYER.address, PERPS_USDC, 1_000_000 * USDC_UNIT)
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.url = ""

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.runner = web.AppRunner(make_venue_app(self.ledger, BRAND))
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}"
        self.ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.runner.cleanup())
        self.loop.close()

    def __enter__(self) -> ThreadedVenue:
        self.thread.start()
        assert self.ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def threaded() -> Iterator[tuple[ThreadedVenue, httpx.Client]]:
    with ThreadedVenue() as venue, httpx.Client(timeout=10) as http:
        yield venue, http


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["type", "signatureChainId", "venueChain", "destination", "sourceDex", "destinationDex",
          "token", "amount", "fromSubAccount", "nonce"]  # fmt: skip


def _total(venue: ThreadedVenue) -> tuple[int, int]:
    return venue.ledger.balance(PAYER.address, PERPS_USDC), venue.ledger.balance(SOLVER, PERPS_USDC)


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(body=json_values)
def test_arbitrary_json_never_crashes_either_endpoint(threaded, body: Any) -> None:
    venue, http = threaded
    before = _total(venue)
    for path in ("/info", "/exchange"):
        resp = http.post(venue.url + path, json=body)
        assert resp.status_code in (200, 400, 422), (path, body, resp.text)
        if resp.status_code == 200 and path == "/exchange":
            assert resp.json()["status"] == "err"
    assert _total(venue) == before


@FUZZ
@given(
    place=st.sampled_from(
        [("action", f) for f in FIELDS]
        + [("signature", f) for f in ("r", "s", "v")]
        + [("body", f) for f in ("nonce", "action", "signature")]
    ),
    value=json_values,
)
def test_one_mutated_field_of_a_signed_send_is_refused(threaded, place, value) -> None:
    venue, http = threaded
    where, field = place
    body = signed_body(BRAND, amount="1")
    target = body if where == "body" else body[where]
    if target.get(field, object()) == value:
        return  # not a mutation
    target[field] = value
    before = _total(venue)
    resp = http.post(venue.url + "/exchange", json=body)
    assert resp.status_code in (200, 422), resp.text
    if resp.status_code == 200:
        assert resp.json()["status"] == "err", (where, field, value)
    assert _total(venue) == before


@FUZZ
@given(raw=st.binary(max_size=200))
def test_raw_bytes_are_rejected_cleanly(threaded, raw: bytes) -> None:
    venue, http = threaded
    for path in ("/info", "/exchange"):
        resp = http.post(venue.url + path, content=raw)
        assert resp.status_code in (200, 400, 422)


@settings(max_examples=60, deadline=None)
@given(units=st.integers(min_value=1, max_value=10**14), pad=st.integers(0, 3))
def test_any_valid_amount_moves_exactly_its_smallest_units(threaded, units: int, pad: int) -> None:
    venue, http = threaded
    whole, frac = divmod(units, USDC_UNIT)
    text = f"{whole}.{str(frac).rjust(8, '0')}{'0' * pad}".rstrip(".")
    venue.ledger.credit(PAYER.address, PERPS_USDC, units + USDC_UNIT)  # amount + a possible fee
    before = _total(venue)
    resp = http.post(venue.url + "/exchange", json=signed_body(BRAND, amount=text))
    assert resp.json() == {"status": "ok", "response": {"type": "default"}}
    after = _total(venue)
    fee = venue.ledger.sends()[-1].fee
    assert after[1] - before[1] == units
    assert before[0] - after[0] == units + fee
