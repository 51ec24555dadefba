"""The account reads held to the public venue's recorded answers (`recorded/` beside this file,
from the venue SDKs' own test suites; SOURCES.md there names each): the client's models read
them, and the world's venue answers in the same shape, so the two cannot drift together."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from crossdeck.models.venue_account import LedgerUpdate, SubAccount, VaultEquity
from crossdeck.sim.venue import PERPS_USDC_ADDRESS, SPOT_USDC_TOKEN_ID, VenueLedger
from crossdeck.sim.venue import info as world_info

REALDATA = Path(__file__).resolve().parent / "recorded"


def recorded(name: str) -> Any:
    return json.loads((REALDATA / name).read_text())


def test_vault_equities_read_as_recorded_and_the_world_answers_alike() -> None:
    answer = recorded("pysdk-userVaultEquities-2025-08.json")
    equities = [VaultEquity.model_validate(e) for e in answer]
    assert equities[1].equity == Decimal("100.003834")
    assert [e.to_wire() for e in equities] == answer  # nothing lost
    ledger = VenueLedger()
    ledger.set_vault_equity("0x" + "11" * 20, "0x" + "22" * 20, 5 * 10**8, 1)
    [ours] = world_info.vault_equities(ledger, "0x" + "11" * 20)
    assert set(ours) == set(answer[0]) and isinstance(ours["lockedUntilTimestamp"], int)


def test_the_recorded_first_send_fee_is_read_as_a_send_that_left() -> None:
    answer = recorded("pysdk-userNonFundingLedgerUpdates-2025-08.json")
    updates = [LedgerUpdate.model_validate(u) for u in answer]
    user = "0x2ba553d9f990a3b66b03b2dc0d030dfc1c061036"
    left = [u for u in updates if u.sent_out_by(user)]
    assert [u.delta["type"] for u in left] == ["spotTransfer"]
    assert left[0].delta["fee"] == "1.0"  # the venue's first-send fee, as recorded
    # class transfers and deposits stay in the account
    assert not any(u.sent_out_by(user) for u in updates if u.delta["type"] != "spotTransfer")


def test_the_worlds_ledger_updates_have_the_recorded_keys() -> None:
    answer = recorded("pysdk-userNonFundingLedgerUpdates-2025-08.json")
    by_type = {u["delta"]["type"]: u for u in answer}
    from crossdeck.sim.venue.actions import apply_spot_send, apply_usd_class_transfer

    ledger, me, other = VenueLedger(), "0x" + "33" * 20, "0x" + "44" * 20
    ledger.credit(me, PERPS_USDC_ADDRESS, 50 * 10**8)
    ledger.open_account(other)  # the recorded send paid one fee: its destination had an account
    now = ledger.now_ms()
    apply_usd_class_transfer(ledger, signer=me, amount_text="12.0", to_perp=False, nonce=now)
    apply_spot_send(
        ledger, signer=me, destination=other, token=f"USDC:{SPOT_USDC_TOKEN_ID}",
        amount_text="10.5", nonce=now + 1,
    )  # fmt: skip
    ours = {u["delta"]["type"]: u for u in world_info.ledger_updates(ledger, me, 0, None)}
    for kind in ("accountClassTransfer", "spotTransfer"):
        assert set(ours[kind]) == set(by_type[kind])
        assert set(ours[kind]["delta"]) == set(by_type[kind]["delta"]), kind
    assert ours["spotTransfer"]["delta"]["fee"] == "1.0"


def test_user_role_as_recorded() -> None:
    assert set(recorded("pysdk-userRole-2025-08.json")) == {"role"}
    assert world_info.user_role(VenueLedger(), "0x" + "55" * 20) == {"role": "missing"}


def _keys(answer: Any) -> set[str]:
    return set(answer) if isinstance(answer, dict) else set()


def test_sub_accounts_read_as_recorded_and_the_world_answers_alike() -> None:
    answer = recorded("jkorf-subAccounts.json")
    [sub] = [SubAccount.model_validate(s) for s in answer]
    assert sub.name == "Test" and sub.clearinghouse_state is not None
    assert sub.clearinghouse_state.withdrawable == Decimal("29.78001")
    assert sub.spot_state is not None and sub.spot_state.balances[0].total == Decimal("0.22")
    assert sub.to_wire() == answer[0]  # nothing lost
    ledger, master = VenueLedger(), "0x" + "66" * 20
    address = ledger.add_sub_account(master, "Test")
    ledger.credit(address, PERPS_USDC_ADDRESS, 2 * 10**8)
    ledger.credit(address, SPOT_USDC_TOKEN_ID, 10**7)
    [ours] = world_info.sub_accounts(ledger, master) or []
    recorded_sub = answer[0]
    assert _keys(recorded_sub) <= _keys(ours)
    for part in ("clearinghouseState", "spotState"):
        assert _keys(recorded_sub[part]) <= _keys(ours[part]), part
    assert _keys(recorded_sub["clearinghouseState"]["marginSummary"]) == _keys(
        ours["clearinghouseState"]["marginSummary"]
    )
    assert _keys(recorded_sub["spotState"]["balances"][0]) == _keys(
        ours["spotState"]["balances"][0]
    )
    assert world_info.sub_accounts(ledger, "0x" + "77" * 20) is None  # none: null, as public


def test_the_first_send_fee_is_read_from_the_ledger_as_the_venue_charges_it() -> None:
    """The recorded account paid the fee on its spotTransfer (fee "1.0"): none is due. The
    same account before that send owes it; a bridge withdrawal (`withdraw`, its own fee) does
    not pay it; an account created by a transfer that carried the fee has paid it."""
    from crossdeck.venue.fee import FIRST_SEND_FEE, first_send_fee_of

    answer = recorded("pysdk-userNonFundingLedgerUpdates-2025-08.json")
    updates = [LedgerUpdate.model_validate(u) for u in answer]
    user = "0x2ba553d9f990a3b66b03b2dc0d030dfc1c061036"
    assert first_send_fee_of(updates, user) == 0
    before = [u for u in updates if u.delta["type"] != "spotTransfer"]
    assert first_send_fee_of(before, user) == FIRST_SEND_FEE
    assert first_send_fee_of([], user) == FIRST_SEND_FEE  # a fresh (or purged) account
    withdrawn = LedgerUpdate.model_validate(
        {"time": 10**15, "delta": {"type": "withdraw", "usdc": "5.0", "fee": "1.0", "nonce": 1}}
    )
    assert first_send_fee_of([*before, withdrawn], user) == FIRST_SEND_FEE
    created = LedgerUpdate.model_validate(
        {"time": 1, "delta": {**answer[2]["delta"], "user": "0x" + "55" * 20, "destination": user}}
    )  # another account's send that created this one, its fee "1.0" on it
    assert first_send_fee_of([created, *before[1:]], user) == 0
    # a later inbound send with a fee is the sender's own first send: not this account's
    later = created.model_copy(update={"time": 10**15})
    assert first_send_fee_of([*before, later], user) == FIRST_SEND_FEE


async def test_a_ledger_that_cannot_be_read_counts_the_fee_as_due() -> None:
    import socket

    from crossdeck.retry import RetryPolicy
    from crossdeck.venue.client import VenueClient
    from crossdeck.venue.fee import FIRST_SEND_FEE, read_send_fee

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    user = "0x" + "66" * 20
    async with VenueClient(f"http://127.0.0.1:{port}", retry=RetryPolicy(max_attempts=1)) as client:
        fee = await read_send_fee(client, user)
        assert fee.units == FIRST_SEND_FEE and fee.unread
        assert fee.words and fee.words.startswith("venue first-send fee 1 USDC if due (")
        assert (await read_send_fee(client, user, user.upper().replace("0X", "0x"))).units == 0


def test_the_world_and_the_client_agree_on_who_has_paid_the_fee() -> None:
    """A first send that creates its receiver pays the sender's first-send fee and the
    receiver's activation (the receiver's first send is free, its ledger's first entry carries
    the fee); the client reads each account as the world charges it."""
    from crossdeck.models.venue_account import LedgerUpdate
    from crossdeck.sim.venue.actions import apply_spot_send
    from crossdeck.venue.fee import FIRST_SEND_FEE, first_send_fee_of

    ledger = VenueLedger()
    me, new, third = ("0x" + c * 20 for c in ("77", "88", "99"))
    ledger.credit(me, SPOT_USDC_TOKEN_ID, 50 * 10**8)
    ledger.credit(third, SPOT_USDC_TOKEN_ID, 1 * 10**8)

    def owed(user: str) -> int:
        updates = world_info.ledger_updates(ledger, user, 0, None)
        return first_send_fee_of([LedgerUpdate.model_validate(u) for u in updates], user)

    assert (owed(me), owed(new)) == (FIRST_SEND_FEE, FIRST_SEND_FEE)
    token, now = f"USDC:{SPOT_USDC_TOKEN_ID}", ledger.now_ms()
    apply_spot_send(ledger, signer=me, destination=new, token=token, amount_text="10", nonce=now)
    assert ledger.balance(me, SPOT_USDC_TOKEN_ID) == 38 * 10**8  # 10 and the two fees
    assert (owed(me), owed(new)) == (0, 0)
    assert ledger.fee_paid(new)
    apply_spot_send(ledger, signer=new, destination=third, token=token, amount_text="4", nonce=now)
    assert ledger.balance(new, SPOT_USDC_TOKEN_ID) == 6 * 10**8  # free, as the client said
    # an account that existed before the send that reached it still owes its own
    assert owed(third) == FIRST_SEND_FEE and not ledger.fee_paid(third)
