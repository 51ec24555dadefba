"""VenueLedger on its own: units, persistence across a restart, settings."""

from __future__ import annotations

import pytest

from crossdeck.sim.venue import (
    CURRENCIES,
    InsufficientBalance,
    UnknownCurrency,
    VenueLedger,
    format_units,
    parse_units,
)

from .support import PAYER, PERPS_USDC, SOLVER, SPOT_USDC_ID, USDC_UNIT, signed_body

OK = {"status": "ok", "response": {"type": "default"}}


def test_currencies_cover_perps_spot_and_hip3() -> None:
    by_address = {c.address: c for c in VenueLedger.currencies()}
    assert by_address[PERPS_USDC].dex == "" and by_address[PERPS_USDC].decimals == 8
    assert by_address[SPOT_USDC_ID].dex == "spot"
    assert by_address[SPOT_USDC_ID + "78797a"].dex == "xyz"
    assert set(by_address) == set(CURRENCIES)
    assert len(by_address) == 5


def test_credit_debit_and_errors() -> None:
    ledger = VenueLedger()
    assert ledger.credit(PAYER.address, PERPS_USDC, 5) == 5
    assert ledger.debit(PAYER.address.lower(), PERPS_USDC, 2) == 3
    with pytest.raises(InsufficientBalance, match="needs"):
        ledger.debit(PAYER.address, PERPS_USDC, 4)
    with pytest.raises(UnknownCurrency):
        ledger.credit(PAYER.address, "0x1234", 1)
    with pytest.raises(ValueError, match="positive int"):
        ledger.credit(PAYER.address, PERPS_USDC, 0)
    with pytest.raises(ValueError, match="address"):
        ledger.credit("alice", PERPS_USDC, 1)
    assert ledger.balances(PAYER.address) == {PERPS_USDC: 3}
    assert ledger.withdrawable(PAYER.address) == 3


def test_first_send_fee_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="first_send_fee"):
        VenueLedger(first_send_fee=-1)


def test_units_round_trip() -> None:
    assert format_units(0, 8) == "0.0"
    assert format_units(123450000000, 8) == "1234.5"
    assert format_units(1, 8) == "0.00000001"
    assert parse_units("1234.5", 8) == 123450000000
    assert parse_units("1.50000000000", 8) == 150000000  # trailing zeros are exact
    for bad in ("1.000000001", "0.0", "abc", "1e8", "+1"):
        with pytest.raises(ValueError):
            parse_units(bad, 8)


async def test_restart_keeps_balances_fee_and_used_nonces(tmp_path, make_venue) -> None:
    db = tmp_path / "venue.sqlite"
    first = await make_venue("neutral", VenueLedger(db))
    first.ledger.credit(PAYER.address, PERPS_USDC, 10 * USDC_UNIT)
    body = signed_body(first.brand, amount="2")
    assert (await first.exchange(body)).json() == OK
    first.ledger.close()

    again = await make_venue("neutral", VenueLedger(db))
    assert again.ledger.balance(PAYER.address, PERPS_USDC) == 7 * USDC_UNIT
    assert again.ledger.balance(SOLVER, PERPS_USDC) == 2 * USDC_UNIT
    assert again.ledger.fee_paid(PAYER.address)
    assert again.ledger.nonce_used(PAYER.address, body["nonce"])
    assert [r.nonce for r in again.ledger.sends()] == [body["nonce"]]
    replay = (await again.exchange(body)).json()
    assert replay == {"status": "err", "response": "Invalid nonce: duplicate nonce"}
    second = signed_body(again.brand, amount="2")
    assert (await again.exchange(second)).json() == OK
    assert again.ledger.balance(PAYER.address, PERPS_USDC) == 5 * USDC_UNIT  # no second fee
    again.ledger.close()


async def test_fee_setting_is_honoured(make_venue) -> None:
    venue = await make_venue("public", VenueLedger(first_send_fee=0))
    venue.ledger.credit(PAYER.address, PERPS_USDC, 3 * USDC_UNIT)
    assert (await venue.exchange(signed_body(venue.brand, amount="3"))).json() == OK
    assert venue.ledger.balance(PAYER.address, PERPS_USDC) == 0


async def test_injected_clock_decides_nonce_freshness(make_venue) -> None:
    venue = await make_venue("neutral", VenueLedger(clock_ms=lambda: 1_000_000_000_000))
    venue.ledger.credit(PAYER.address, PERPS_USDC, 3 * USDC_UNIT)
    stale = (await venue.exchange(signed_body(venue.brand, amount="1"))).json()
    assert "future" in stale["response"]  # the real 'now' is in the ledger's far future
    fresh = signed_body(venue.brand, amount="1", nonce=1_000_000_000_000 - 5)
    assert (await venue.exchange(fresh)).json() == OK


async def test_unsubscribe_stops_notifications(make_venue) -> None:
    venue = await make_venue()
    venue.ledger.credit(PAYER.address, PERPS_USDC, 10 * USDC_UNIT)
    seen: list[int] = []
    unsubscribe = venue.ledger.on_send_asset(lambda r: seen.append(r.nonce))
    failing = venue.ledger.on_send_asset(lambda r: 1 / 0)  # a broken subscriber harms nobody
    assert (await venue.exchange(signed_body(venue.brand, amount="1"))).json() == OK
    unsubscribe()
    failing()
    assert (await venue.exchange(signed_body(venue.brand, amount="1"))).json() == OK
    assert len(seen) == 1
