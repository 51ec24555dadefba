"""The journal: item states survive a reopen (the file is the only memory after a crash), a
started request cannot start again, a guard-refused one can, and resume finds the latest
unfinished run."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from crossdeck.execute import AlreadyStarted, Journal

RID = "0x" + "ab" * 32
QUOTE = {"steps": [{"id": "deposit", "requestId": RID, "items": []}]}


def start(journal: Journal, request_id: str = RID) -> None:
    journal.start_run(
        request_id, wallet="0xW", quote=QUOTE, options={"signing_chain_id": 1}, request=None
    )


def test_item_states_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        start(journal)
        journal.record(RID, 0, 0, "intent", step_id="deposit", kind="transaction", from_nonce=7)
        journal.record(RID, 0, 0, "signed", raw_tx="0x02f8", tx_hash="0x" + "cd" * 32)
    with Journal(path) as journal:
        [item] = journal.items(RID)
        assert (item.state, item.from_nonce, item.raw_tx) == ("signed", 7, "0x02f8")
        assert item.tx_hash == "0x" + "cd" * 32 and item.step_id == "deposit"
        journal.record(RID, 0, 0, "sent")
        assert journal.item(RID, 0, 0).raw_tx == "0x02f8"  # unspecified fields are kept
        run = journal.run(RID)
        assert run.quote == QUOTE and run.options == {"signing_chain_id": 1}
        assert run.state == "running"
    mode = stat.S_IMODE(os.stat(path).st_mode)
    assert mode & 0o077 == 0, oct(mode)  # signed transactions: readable by the owner only


def test_durable_settings(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as journal:
        db = journal._db
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL between writes


def test_a_signed_artefact_is_synced_to_the_device_before_it_is_sent(tmp_path: Path) -> None:
    """Every write is in the file when it returns (a killed process loses nothing); the signed
    one commits under synchronous=FULL (a power cut loses nothing about to leave either)."""
    with Journal(tmp_path / "j.sqlite3") as journal:
        db = journal._db
        commits: list[int] = []  # the synchronous level each COMMIT ran under

        def trace(statement: str) -> None:
            if statement == "COMMIT":
                commits.append(db.execute("PRAGMA synchronous").fetchone()[0])

        db.set_trace_callback(trace)
        start(journal)
        journal.record(RID, 0, 0, "intent", step_id="deposit", kind="transaction", from_nonce=7)
        journal.record(RID, 0, 0, "signed", raw_tx="0x02f8", tx_hash="0x" + "cd" * 32)
        journal.record(RID, 0, 0, "sent")
        journal.record(RID, 0, 0, "done")
        db.set_trace_callback(None)
        assert commits == [1, 1, 2, 1, 1]  # start, intent, SIGNED (FULL), sent, done
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 1


def test_a_request_starts_once(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as journal:
        start(journal)
        with pytest.raises(AlreadyStarted, match="crossdeck resume"):
            start(journal)
        journal.set_run_state(RID, "finished", final_status="success")
        with pytest.raises(AlreadyStarted):
            start(journal)
        assert journal.run(RID).final_status == "success"


def test_a_refused_run_may_start_again(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as journal:
        start(journal)
        journal.set_run_state(RID, "refused", error="guard refused")
        start(journal)
        assert journal.run(RID).state == "running"


def test_latest_unfinished(tmp_path: Path) -> None:
    other = "0x" + "cd" * 32
    with Journal(tmp_path / "j.sqlite3") as journal:
        assert journal.latest_unfinished() is None
        start(journal)
        start(journal, other)
        assert journal.latest_unfinished() is None  # nothing of either left the machine
        journal.record(RID, 0, 0, "sent", kind="transaction", tx_hash="0x" + "11" * 32)
        journal.set_run_state(other, "finished", final_status="refund")
        assert journal.latest_unfinished().request_id == RID
        journal.set_run_state(RID, "refused")
        assert journal.latest_unfinished() is None
        assert [r.request_id for r in journal.runs()] == [other, RID]


def test_latest_unfinished_passes_over_a_run_with_a_reverted_transaction(
    tmp_path: Path,
) -> None:
    other = "0x" + "cd" * 32
    with Journal(tmp_path / "j.sqlite3") as journal:
        start(journal)
        journal.record(RID, 0, 0, "signed", kind="signature", signed={"sig": "0x"})
        start(journal, other)
        journal.record(other, 0, 0, "intent", kind="transaction")
        journal.record(other, 0, 0, "reverted")
        journal.set_run_state(other, "failed", error="reverted")
        assert journal.latest_unfinished().request_id == RID
        assert [i.state for i in journal.reverted(other)] == ["reverted"]


def test_forget_intent_only_drops_what_never_left(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as journal:
        start(journal)
        journal.record(RID, 0, 0, "intent", kind="transaction")
        journal.record(RID, 1, 0, "intent", kind="signature")
        journal.record(RID, 1, 0, "signed", signed={"signature": "0x01"})
        journal.forget_intent(RID, 0, 0)
        journal.forget_intent(RID, 1, 0)
        assert [(i.step_index, i.state) for i in journal.items(RID)] == [(1, "signed")]
