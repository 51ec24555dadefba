"""ServiceState: the lifecycle the solver drives, its announcements, lookups and persistence."""

from __future__ import annotations

from pathlib import Path

import pytest

from crossdeck.sim.service import (
    TRANSITIONS,
    InvalidTransition,
    ServiceState,
    Status,
    StatusChange,
    Tx,
    UnknownRequest,
    demo_fail_reason,
)
from crossdeck.sim.service.state import RequestRecord, new_order_id, new_request_id

from .support import USER, FakeClock

EXPECTED_TABLE = {
    "waiting": {"depositing", "pending", "submitted", "failure", "refund"},
    "depositing": {"pending", "submitted", "failure", "refund"},
    "pending": {"submitted", "success", "failure", "refund"},
    "submitted": {"success", "failure"},
    "failure": {"pending", "refund"},
    "success": set(),
    "refund": set(),
}


def make_record(clock: FakeClock, **changes) -> RequestRecord:
    values = {
        "id": new_request_id(),
        "status": Status.WAITING,
        "user": USER,
        "recipient": USER,
        "refund_to": USER,
        "origin_chain_id": 8453,
        "destination_chain_id": 999,
        "origin_currency": "0x" + "00" * 20,
        "destination_currency": "0x" + "a2" * 20,
        "amount_in": 1000,
        "amount_out": 990,
        "trade_type": "EXACT_INPUT",
        "order_id": new_order_id(),
        "created_at": clock.ms,
        "updated_at": clock.ms,
    }
    values.update(changes)
    return RequestRecord(**values)


def tx(n: int, block: int | None = None) -> Tx:
    return Tx(hash="0x" + f"{n:064x}", chain_id=8453, block=block, timestamp=1_750_000_000)


def test_transition_table_is_the_documented_one() -> None:
    assert {k.value: {s.value for s in v} for k, v in TRANSITIONS.items()} == EXPECTED_TABLE


@pytest.mark.parametrize("start", list(Status))
@pytest.mark.parametrize("target", list(Status))
def test_every_pair_follows_the_table(start: Status, target: Status) -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    record = state.create_request(make_record(clock, status=start))
    if target.value in EXPECTED_TABLE[start.value]:
        assert state.advance(record.id, target).status == target
    else:
        with pytest.raises(InvalidTransition, match=f"{start.value} -> {target.value}"):
            state.advance(record.id, target)
        assert state.get(record.id).status == start


def test_advance_announces_records_txs_and_timestamps() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    seen: list[StatusChange] = []
    state.subscribe(seen.append)
    record = state.create_request(make_record(clock))
    assert seen == []  # a quote is not a status change
    clock.advance(1500)
    pending = state.advance(record.id, "pending", in_tx=tx(1, block=42))
    assert pending.updated_at == record.created_at + 1500
    assert pending.origin_block == 42
    clock.advance(10)
    state.advance(record.id, "submitted", out_tx=tx(2))
    done = state.advance(record.id, "success", out_tx=tx(2))  # same hash is not added twice
    assert [(c.previous, c.record.status) for c in seen] == [
        ("waiting", "pending"),
        ("pending", "submitted"),
        ("submitted", "success"),
    ]
    assert [t.hash for t in done.in_txs] == [tx(1).hash]
    assert [t.hash for t in done.out_txs] == [tx(2).hash]
    assert done.is_final
    assert state.by_tx_hash(tx(2).hash)[0].id == record.id
    assert state.open_requests() == []


def test_failure_then_refund_keeps_the_reason() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    record = state.create_request(make_record(clock))
    state.advance(record.id, "pending")
    failed = state.advance(record.id, "failure", fail_reason="SLIPPAGE", details={"revert": "0x"})
    assert failed.fail_reason == "SLIPPAGE" and failed.details == {"revert": "0x"}
    assert [r.id for r in state.open_requests()] == [record.id]  # failure is not final
    refunded = state.advance(record.id, "refund", refund_fail_reason="AMOUNT_TOO_LOW_TO_REFUND")
    assert refunded.fail_reason == "SLIPPAGE"
    assert refunded.refund_fail_reason == "AMOUNT_TOO_LOW_TO_REFUND"


def test_refund_without_reason_records_unknown() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    record = state.create_request(make_record(clock))
    assert state.advance(record.id, "refund").fail_reason == "UNKNOWN"


def test_a_failing_subscriber_does_not_undo_the_change() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    seen: list[str] = []

    def broken(change: StatusChange) -> None:
        raise RuntimeError("boom")

    state.subscribe(broken)
    unsubscribe = state.subscribe(lambda c: seen.append(c.record.status.value))
    record = state.create_request(make_record(clock))
    state.advance(record.id, "pending")
    unsubscribe()
    state.advance(record.id, "submitted")
    assert seen == ["pending"]
    assert state.get(record.id).status == "submitted"


def test_children_default_to_a_refund_leg_and_are_announced() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    seen: list[StatusChange] = []
    state.subscribe(seen.append)
    refund_to = "0x" + "ef" * 20
    parent = state.create_request(make_record(clock, refund_to=refund_to))
    child = state.create_child(parent.id, amount_in=300, in_tx=tx(9, block=7))
    assert child.parent_id == parent.id and child.kind == "refund"
    assert child.recipient == refund_to
    assert child.destination_chain_id == parent.origin_chain_id
    assert child.destination_currency == parent.origin_currency
    assert (child.amount_in, child.amount_out) == (300, 1000)
    assert child.origin_block == 7
    assert seen[-1].previous is None and seen[-1].record.id == child.id
    duplicate = state.create_child(
        parent.id, "duplicate", status="refund", fail_reason="DOUBLE_SPEND"
    )
    assert duplicate.status == "refund" and duplicate.fail_reason == "DOUBLE_SPEND"
    assert [c.id for c in state.children(parent.id)] == [child.id, duplicate.id]
    # A child never shadows its parent in the orderId lookup.
    assert state.by_order_id(parent.order_id).id == parent.id
    with pytest.raises(UnknownRequest):
        state.create_child("0x" + "00" * 32)


def test_amend_records_facts_without_announcing() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    seen: list[StatusChange] = []
    state.subscribe(seen.append)
    record = state.create_request(make_record(clock))
    amended = state.amend(record.id, amount_in=5, amount_out=4, origin_block=9, extra={"k": 1})
    assert (amended.amount_in, amended.amount_out, amended.origin_block) == (5, 4, 9)
    assert amended.extra["k"] == 1 and amended.status == "waiting"
    assert seen == []


def test_sponsor_payment_completes_the_actual_sponsorship() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    quoted = {
        "selectedComponents": ["execution"],
        "capHit": False,
        "components": {},
        "sponsoredTotal": {
            "currency": {"chainId": 8453, "address": "0x" + "a1" * 20},
            "amount": "10000",
        },
        "userPaysTotal": {"amount": "0"},
        "maxSubsidizationAmount": "10000",
    }
    record = state.create_request(
        make_record(clock, subsidized=True, quote={"feeSponsorship": {"quoted": quoted}})
    )
    state.advance(record.id, "pending")
    assert state.get(record.id).fee_sponsorship_actual is None
    state.advance(record.id, "submitted")
    done = state.advance(record.id, "success")
    assert done.fee_sponsorship_actual["sponsorPayment"] == {
        "amount": "10000",
        "address": "0x" + "a1" * 20,
        "chainId": 8453,
    }
    other = state.create_request(
        make_record(clock, subsidized=True, quote={"feeSponsorship": {"quoted": quoted}})
    )
    paid = state.advance(
        other.id, "pending", sponsor_payment={"amount": "9", "address": USER, "chainId": 999}
    )
    assert paid.fee_sponsorship_actual["sponsorPayment"]["amount"] == "9"


def test_history_survives_a_restart(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "state" / "service.sqlite3"
    seed = b"\x01" * 32
    state = ServiceState(path, clock=clock, deposit_seed=seed)
    record = state.create_request(make_record(clock, venue_nonce=None))
    state.advance(record.id, "pending", in_tx=tx(3, block=5))
    nonce = state.next_venue_nonce()
    state.register_api_key("demo", "secret-1")
    address = state.deposit_account(record.id).address
    state.close()

    again = ServiceState(path, clock=clock, deposit_seed=seed)
    restored = again.get(record.id)
    assert restored.status == "pending" and restored.in_txs[0].hash == tx(3).hash
    assert again.next_venue_nonce() > nonce
    assert again.api_key_name_for_hash("secret-1") == "demo"
    assert again.api_keys.secret_for("demo") is None  # secrets are never written down
    assert again.deposit_account(record.id).address == address
    assert b"secret-1" not in path.read_bytes()


def test_nonce_mapping_is_made_once() -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    record = state.create_request(make_record(clock, origin_chain_id=1337, venue_nonce=77))
    state.map_nonce(USER.lower(), 77, record.id)
    assert state.by_nonce(USER, 77).id == record.id
    with pytest.raises(Exception, match="already mapped"):
        state.map_nonce(USER, 77, record.id)


def test_demo_fail_reason() -> None:
    clock = FakeClock()
    assert demo_fail_reason(make_record(clock, demo="fail")) == "TRANSFER_FAILED"
    assert demo_fail_reason(make_record(clock, demo="fail:slippage")) == "SLIPPAGE"
    assert demo_fail_reason(make_record(clock, demo=None)) is None
    assert demo_fail_reason(make_record(clock, demo="other")) is None


def test_api_keys_never_show_in_reprs() -> None:
    state = ServiceState()
    state.register_api_key("demo", "very-secret-key")
    assert "very-secret-key" not in repr(state)
    assert "very-secret-key" not in repr(state.api_keys)
    assert state.api_keys.name_for("very-secret-key") == "demo"
    assert state.api_keys.name_for("very-secret-kez") is None


@pytest.mark.parametrize("start", list(Status))
def test_refund_failed_ends_in_failure_with_the_reason_and_is_announced(start: Status) -> None:
    clock = FakeClock()
    state = ServiceState(clock=clock)
    record = state.create_request(make_record(clock, status=start))
    seen: list[StatusChange] = []
    state.subscribe(seen.append)
    if start in (Status.SUCCESS, Status.REFUND):
        with pytest.raises(InvalidTransition):
            state.refund_failed(record.id, "AMOUNT_TOO_LOW_TO_REFUND")
        assert state.get(record.id).status == start and seen == []
        return
    failed = state.refund_failed(
        record.id, "AMOUNT_TOO_LOW_TO_REFUND", fail_reason="SLIPPAGE", details="refund failed: x"
    )
    assert failed.status == Status.FAILURE
    assert (failed.fail_reason, failed.refund_fail_reason) == (
        "SLIPPAGE",
        "AMOUNT_TOO_LOW_TO_REFUND",
    )
    assert failed.details == "refund failed: x"
    assert seen == [StatusChange(failed, start)]
    assert state.get(record.id) == failed
