"""`StatusStore`: what a restarted tracker reads back."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from pathlib import Path

from crossdeck.models.status import RequestStatus
from crossdeck.track.store import StatusStore
from crossdeck.track.updates import Source, StatusUpdate

A, B, C, D = ("0x" + c * 64 for c in "abcd")


def update(rid: str, status: str, *, final: bool = False) -> StatusUpdate:
    return StatusUpdate(
        request_id=rid,
        status=RequestStatus(status),
        updated_at_ms=1_000,
        source=Source.WEBHOOK,
        observed_at=12.5,
        in_tx_hashes=("0x01",),
        details={"revert": "0x08c379a0"},
        fail_reason="N/A",
        final=final,
    )


def test_unfinished_survives_reopening_and_keeps_the_last_update(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "tracking.sqlite3"
    with StatusStore(path) as store:
        for rid in (A, B, C):
            store.add(rid)
        store.save(update(A, "pending"))
        store.save(update(A, "submitted"))
        store.save(update(B, "success", final=True))
        store.give_up(C, "the service does not know it (404)")
    with StatusStore(path) as store:
        unfinished = store.unfinished()
        assert [s.request_id for s in unfinished] == [A]
        assert unfinished[0].latest == update(A, "submitted")
        assert unfinished[0].latest.details == {"revert": "0x08c379a0"}  # type: ignore[union-attr]
        finished = {s.request_id: s for s in store.all() if s.finished}
        assert finished[B].final and finished[B].latest is not None
        assert finished[C].given_up == "the service does not know it (404)"
        assert finished[C].latest is None


def test_adding_again_retracks_a_given_up_id_and_remove_forgets(tmp_path: Path) -> None:
    with StatusStore(tmp_path / "t.sqlite3") as store:
        store.add(A)
        store.give_up(A, "gone")
        store.add(A)
        assert [s.request_id for s in store.unfinished()] == [A]
        store.add(A)  # idempotent
        assert len(store.all()) == 1
        store.remove(A)
        assert store.get(A) is None and store.all() == []


def test_save_adds_an_id_it_has_not_seen(tmp_path: Path) -> None:
    with StatusStore(":memory:") as store:
        store.save(update(A, "waiting"))
        stored = store.get(A)
        assert stored is not None and stored.latest is not None and not stored.finished


def test_the_file_holds_no_secret_and_is_plain_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    with StatusStore(path) as store:
        store.save(update(A, "pending"))
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(tracked)")]
    assert columns == ["request_id", "added_at", "final", "given_up", "latest"]


def test_opening_the_profile_store_prunes_old_finished_requests_only(tmp_path: Path) -> None:
    with StatusStore.in_data_dir(tmp_path) as store:
        for rid in (A, B, C, D):
            store.add(rid)
        store.save(update(A, "success", final=True))  # old and final: goes
        store.give_up(B, "gone")  # old and given up: goes
        # C: old but still open, D: final but recent: both stay
        store.save(update(D, "refund", final=True))
        path = Path(str(store.path))
    month_ago = time.time() - 31 * 86_400
    with sqlite3.connect(path) as db:
        db.execute("UPDATE tracked SET added_at = ? WHERE request_id != ?", (month_ago, D))
    with StatusStore.in_data_dir(tmp_path) as store:
        assert sorted(s.request_id for s in store.all()) == [C, D]
        assert [s.request_id for s in store.unfinished()] == [C]
        assert store.prune() == 0
        assert store.prune(older_than_s=-1) == 1  # D, once its time has come


def test_updates_written_behind_are_read_back_and_written_at_close(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    with StatusStore(path) as store:
        store.add(A)
        store.save_later(update(A, "pending"))
        store.save_later(update(A, "success", final=True))  # the later one wins
        store.save_later(update(B, "waiting"))
        # not in the file yet: another connection (a process after a crash) sees neither
        with sqlite3.connect(path) as db:
            rows = dict(db.execute("SELECT request_id, latest FROM tracked").fetchall())
        assert rows == {A: None}
        # every read of this store flushes first
        stored = store.get(A)
        assert stored is not None and stored.final and stored.latest is not None
        assert stored.latest.status is RequestStatus.SUCCESS
        assert [s.request_id for s in store.unfinished()] == [B]
        store.save_later(update(C, "pending"))
    with StatusStore(path) as store:  # close() wrote C
        stored_c = store.get(C)
        assert stored_c is not None and stored_c.latest is not None


def test_removing_an_id_drops_its_update_still_to_be_written(tmp_path: Path) -> None:
    with StatusStore(tmp_path / "t.sqlite3") as store:
        store.add(A)
        store.save_later(update(A, "pending"))
        store.remove(A)
        store.flush()
        assert store.get(A) is None and store.all() == []


def test_details_of_any_json_shape_are_read_back_as_they_were_given(tmp_path: Path) -> None:
    details = {
        "text": 'é \u2028 \U0001f600 "quoted"',
        "big": 2**80,
        "nested": [{"a": [1, 2.5, None, True]}],
        "nan": float("nan"),
    }
    with StatusStore(tmp_path / "t.sqlite3") as store:
        store.save(replace(update(A, "pending"), details=details))
    with StatusStore(tmp_path / "t.sqlite3") as store:
        stored = store.get(A)
    assert stored is not None and stored.latest is not None
    back = stored.latest.details
    assert back["nan"] != back["nan"]  # NaN, as json.dumps wrote it
    assert {k: v for k, v in back.items() if k != "nan"} == {
        k: v for k, v in details.items() if k != "nan"
    }


def test_updates_saved_while_another_thread_writes_land_newest_last(tmp_path: Path) -> None:
    """The store is thread-safe: with flushes in another thread while updates are saved,
    whatever the interleaving, each id's row ends as its newest update and none is lost."""
    import threading

    ids = ["0x" + f"{n:064x}" for n in range(40)]
    statuses = ["waiting", "pending", "submitted", "success"]
    with StatusStore(tmp_path / "t.sqlite3") as store:
        for rid in ids:
            store.add(rid)
        stop = threading.Event()

        def keep_writing() -> None:
            while not stop.is_set():
                store.flush()

        writer = threading.Thread(target=keep_writing)
        writer.start()
        try:
            for status in statuses:
                for rid in ids:
                    store.save_later(update(rid, status, final=status == "success"))
        finally:
            stop.set()
            writer.join()
        rows = {s.request_id: s.latest for s in store.all()}
    assert rows == {rid: update(rid, "success", final=True) for rid in ids}


def test_the_write_ahead_log_is_copied_into_the_file_beside_the_writer(tmp_path: Path) -> None:
    """SQLite's own checkpoint ran inside a commit (and held the event loop ~10 ms); the store
    checkpoints every CHECKPOINT_WRITES rows in a thread of its own, while it stays open."""
    import shutil
    from contextlib import closing

    from crossdeck.track.store import CHECKPOINT_WRITES

    path = tmp_path / "t.sqlite3"
    ids = ["0x" + f"{n:064x}" for n in range(CHECKPOINT_WRITES + 10)]

    def rows_in_the_file_alone() -> int:
        alone = tmp_path / "alone.sqlite3"  # the file without its log: what was checkpointed
        shutil.copyfile(path, alone)
        try:
            with closing(sqlite3.connect(alone)) as db:
                return db.execute("SELECT count(*) FROM tracked").fetchone()[0]
        except sqlite3.DatabaseError:  # not checkpointed yet (no table), or copied mid-way
            return 0

    with StatusStore(path) as store:
        for rid in ids:
            store.save_later(update(rid, "pending"))
        store.flush()
        assert (tmp_path / "t.sqlite3-wal").stat().st_size > 0
        deadline = time.monotonic() + 10
        while rows_in_the_file_alone() < len(ids) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert rows_in_the_file_alone() == len(ids)
        assert len(store.unfinished()) == len(ids)
