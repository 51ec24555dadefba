"""The solver's fill and refund legs when a payment fails, without chains: `_deliver` is
replaced by a script of outcomes, and every announced change (what becomes a webhook) is kept.

- after a paid fill, a failed gas top-up is recorded, never refunded (no double payment);
- a fill sent whose outcome is unknown is not refunded either;
- a refund leg that fails ends in ``failure`` with a refundFailReason, announced."""

from __future__ import annotations

from typing import Any

import pytest

from crossdeck.sim.service import ServiceState, Status, StatusChange, Tx
from crossdeck.sim.service.state import RequestRecord, new_order_id, new_request_id
from crossdeck.sim.solver import Solver
from crossdeck.sim.solver_chain import Unconfirmed
from crossdeck.sim.venue import VenueLedger
from helpers.keys import DEV_KEYS

# Publicly known anvil/hardhat test key #0: never real funds.
OPERATOR_KEY = DEV_KEYS[0]
USER = "0x" + "ab" * 20
NATIVE = "0x" + "00" * 20
USDC_999 = "0x" + "a2" * 20


def deposit_tx() -> Tx:
    return Tx(hash="0x" + "11" * 32, chain_id=8453, block=7, timestamp=1_750_000_000)


class Script:
    """Stands in for `Solver._deliver`: each call takes the next outcome (True/False for a
    mined transaction that succeeded/reverted, or an exception to raise)."""

    def __init__(self, *outcomes: bool | Exception) -> None:
        self.outcomes = list(outcomes)
        self.legs: list[str] = []

    async def __call__(
        self, chain_id: int, currency: str, to: str, amount: int, *, leg: str
    ) -> tuple[bool, Tx]:
        self.legs.append(leg.split(":")[0])
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        tx_hash = "0x" + f"{len(self.legs):064x}"
        return outcome, Tx(hash=tx_hash, chain_id=chain_id, to=to, value=amount, timestamp=1)


def new_record(**changes: Any) -> RequestRecord:
    """A request from Base to chain 999, waiting for its deposit."""
    values: dict[str, Any] = {
        "id": new_request_id(),
        "status": Status.WAITING,
        "user": USER,
        "recipient": USER,
        "refund_to": USER,
        "origin_chain_id": 8453,
        "destination_chain_id": 999,
        "origin_currency": NATIVE,
        "destination_currency": USDC_999,
        "amount_in": 1000,
        "amount_out": 990,
        "trade_type": "EXACT_INPUT",
        "order_id": new_order_id(),
        "created_at": 1,
        "updated_at": 1,
        **changes,
    }
    return RequestRecord(**values)


def new_solver(script: Script) -> tuple[ServiceState, Solver]:
    """A solver on a fresh service state, whose legs `script` answers."""
    state = ServiceState()
    solver = Solver(
        state,
        {},
        VenueLedger(),
        operator_key=OPERATOR_KEY,
        venue_depository="0x" + "5d" * 20,
        speed=0,
    )
    solver._deliver = script  # type: ignore[method-assign]
    return state, solver


def setup(script: Script, **changes: Any) -> tuple[Solver, RequestRecord, list[StatusChange]]:
    state, solver = new_solver(script)
    record = state.create_request(new_record(**changes))
    record = state.advance(record.id, Status.PENDING, in_tx=deposit_tx())
    changes_seen: list[StatusChange] = []
    state.subscribe(changes_seen.append)
    return solver, record, changes_seen


@pytest.mark.parametrize(
    "topup", [ConnectionError("RPC error during the top-up"), False], ids=["raises", "reverts"]
)
async def test_a_failed_gas_topup_after_a_paid_fill_is_recorded_not_refunded(
    topup: bool | Exception,
) -> None:
    script = Script(True, topup)
    solver, record, seen = setup(script, extra={"topupNative": 5})
    await solver._fill(record.id)

    assert script.legs == ["fill", "topup"]  # no refund leg: the fill is already paid
    final = solver.state.get(record.id)
    assert final.status is Status.SUCCESS
    assert "gas top-up" in final.details
    assert [c.record.status for c in seen] == [Status.SUBMITTED, Status.SUCCESS]


async def test_a_fill_that_cannot_be_sent_is_refunded() -> None:
    script = Script(ConnectionError("RPC down"), True)
    solver, record, seen = setup(script)
    await solver._fill(record.id)

    assert script.legs == ["fill", "refund"]
    assert [c.record.status for c in seen] == [Status.FAILURE, Status.REFUND]


async def test_a_fill_sent_with_an_unknown_outcome_is_not_refunded() -> None:
    script = Script(Unconfirmed("0x" + "22" * 32, TimeoutError("no receipt")))
    solver, record, seen = setup(script)
    await solver._fill(record.id)

    assert script.legs == ["fill"]  # it may have been paid: no refund leg
    final = solver.state.get(record.id)
    assert final.status is Status.FAILURE
    assert "outcome unknown" in final.details and "not refunded" in final.details
    assert [c.record.status for c in seen] == [Status.FAILURE]


@pytest.mark.parametrize("outcome", [ConnectionError("RPC down"), False], ids=["raises", "reverts"])
async def test_a_failed_refund_after_a_failed_fill_ends_in_failure_with_a_reason(
    outcome: bool | Exception,
) -> None:
    script = Script(False, outcome)  # the fill reverts, then so does (or fails) its refund
    solver, record, seen = setup(script)
    await solver._fill(record.id)

    assert script.legs == ["fill", "refund"]
    final = solver.state.get(record.id)
    assert final.status is Status.FAILURE
    assert final.fail_reason == "TRANSACTION_REVERTED"
    assert final.refund_fail_reason == "UNKNOWN"
    assert final.details.startswith("refund failed:")
    # failure (fill reverted), then failure again carrying the refund's reason: announced
    assert [c.record.status for c in seen] == [Status.SUBMITTED, Status.FAILURE, Status.FAILURE]
    assert seen[-1].record.refund_fail_reason == "UNKNOWN"


async def test_a_refund_too_small_to_pay_is_not_sent() -> None:
    script = Script()
    solver, record, seen = setup(script)
    await solver._refund(record.id, 0, NATIVE, "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL")

    assert script.legs == []
    final = solver.state.get(record.id)
    assert final.status is Status.FAILURE
    assert final.fail_reason == "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"
    assert final.refund_fail_reason == "AMOUNT_TOO_LOW_TO_REFUND"
    assert [(c.previous, c.record.status) for c in seen] == [(Status.PENDING, Status.FAILURE)]


class ServiceFirst:
    """Stands in for a SolverChain whose transaction fetch is slow enough that the service
    marks the permit deposit it submitted 'depositing' meanwhile (seen in CI on anvil)."""

    chain_id = 8453

    def __init__(self, state: ServiceState, request_id: str) -> None:
        self.state, self.request_id = state, request_id

    async def onchain_tx(self, tx_hash: str) -> Tx:
        tx = Tx(hash=tx_hash, chain_id=self.chain_id, block=7, timestamp=1_750_000_000)
        self.state.advance(self.request_id, Status.DEPOSITING, in_tx=tx)
        return tx


async def test_a_permit_deposit_the_service_marked_first_is_still_filled() -> None:
    script = Script(True)
    state, solver = new_solver(script)
    record = state.create_request(new_record(extra={"permit": True}))
    seen: list[StatusChange] = []
    state.subscribe(seen.append)
    await solver.start()
    try:
        chain: Any = ServiceFirst(state, record.id)
        # the record handed over was read before the fetch: still 'waiting'
        await solver._paid(chain, "8453:0xabc:0", record, NATIVE, 1000, USER, "0x" + "33" * 32)
        await solver.idle()
    finally:
        await solver.stop()

    assert script.legs == ["fill"]
    assert state.get(record.id).status is Status.SUCCESS
    statuses = [c.record.status for c in seen]
    assert statuses == [Status.DEPOSITING, Status.PENDING, Status.SUBMITTED, Status.SUCCESS]
