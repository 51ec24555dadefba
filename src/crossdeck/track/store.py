"""`StatusStore`: the tracked request ids and their last-known status, in SQLite.

A restarted tracker (or `crossdeck watch` with no ids) reads `unfinished()` and goes on where
the last one stopped; the last-known status makes the first poll after a restart a duplicate
instead of a fresh announcement.

One row per request id: when tracking started, the last accepted `StatusUpdate` (as JSON),
whether it is final, and why tracking stopped early if it did (`given_up`). Nothing secret is
stored. The file is written in WAL mode with `synchronous=NORMAL`: a crash may lose the last
few updates, which the next poll finds again, but never corrupts the file.

Updates can be written behind (`save_later`, then `flush`): many in one transaction cost a
fifth of one each, which matters to a tracker taking thousands of webhooks a second on its event
loop. Reads flush first, so every reader sees them. A crash before the flush loses those
updates and nothing else: their ids were written when tracking began (`add` writes at once) and
stay unfinished in the file, so the tracker that resumes them polls and learns them again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pydantic_core

from crossdeck.base.sqlite_tx import immediate
from crossdeck.track.updates import StatusUpdate

log = logging.getLogger(__name__)

DEFAULT_FILENAME = "tracking.sqlite3"
CHECKPOINT_WRITES = 2000
"""Rows written (a transaction counts one at least) between two checkpoints of the file's
write-ahead log, which run in a thread beside the writer (see `StatusStore`)."""
KEEP_FINISHED_SECONDS = 30 * 86_400
"""Finished requests are forgotten this long after tracking began: the file stays small, and
the service's own history still has them (`crossdeck requests --id ID`)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tracked (
    request_id TEXT PRIMARY KEY,
    added_at REAL NOT NULL,
    final INTEGER NOT NULL DEFAULT 0,
    given_up TEXT,
    latest TEXT
);
CREATE INDEX IF NOT EXISTS tracked_open ON tracked (final, given_up);
"""
_UPSERT = (
    "INSERT INTO tracked (request_id, added_at, final, latest) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (request_id) DO UPDATE SET final = excluded.final, latest = excluded.latest"
)


@dataclass(frozen=True)
class StoredRequest:
    """A followed request as the status store keeps it."""

    request_id: str
    added_at: float
    """Unix seconds."""
    final: bool
    given_up: str | None
    latest: StatusUpdate | None

    @property
    def finished(self) -> bool:
        return self.final or self.given_up is not None


class StatusStore:
    """`path` is a file, or `":memory:"`. Thread-safe (one lock, one connection).

    SQLite copies its write-ahead log back into the file (a checkpoint) in whichever commit
    finds the log long; at thousands of webhooks a second that commit held the tracker's event
    loop 7-11 ms (4-5 ms of it CPU) every ~2,400 deliveries. Here the log is checkpointed every
    `CHECKPOINT_WRITES` rows by a thread of its own on a connection of its own, PASSIVE (the
    writer never waits for it); SQLite lets go of the GIL for all of it, so it runs on another
    core. `close()` waits for it."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._checkpoints = str(path) != ":memory:"
        if self._checkpoints:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # ours run beside (see the class)
        self._db.executescript(_SCHEMA)
        self._writes = 0
        """Rows written since the last checkpoint began."""
        self._checkpointer: threading.Thread | None = None
        self._pending: dict[str, StatusUpdate] = {}
        """Updates `save_later` holds until the next flush, the latest per request id."""

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> StatusStore:
        """The profile's store, with finished requests older than KEEP_FINISHED_SECONDS pruned."""
        store = cls(Path(data_dir) / DEFAULT_FILENAME)
        store.prune()
        return store

    def __repr__(self) -> str:
        return f"StatusStore({str(self.path)!r})"

    def close(self) -> None:
        with self._lock:
            try:
                self._flush_locked()
            finally:
                if self._checkpointer is not None:
                    self._checkpointer.join()
                self._db.close()  # the last connection to close checkpoints what is left

    def __enter__(self) -> StatusStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._tx_held() as db:
            yield db

    @contextmanager
    def _tx_held(self) -> Iterator[sqlite3.Connection]:
        """A transaction, for a caller that holds the lock."""
        with immediate(self._db) as db:
            yield db
        self._wrote(1)

    def _wrote(self, rows: int) -> None:
        self._writes += rows
        if not self._checkpoints or self._writes < CHECKPOINT_WRITES:
            return
        if self._checkpointer is not None and self._checkpointer.is_alive():
            return  # one at a time: a later write starts the next
        self._writes = 0
        self._checkpointer = threading.Thread(
            target=self._checkpoint, name="crossdeck-store-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _checkpoint(self) -> None:
        try:
            with closing(sqlite3.connect(str(self.path), isolation_level=None)) as db:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:  # the log goes on growing until the next one works
            log.warning("checkpointing %r failed", self, exc_info=True)

    # -- writing ---------------------------------------------------------------------------

    def add(self, request_id: str) -> None:
        """Start tracking `request_id`; an id given up earlier is tracked again."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO tracked (request_id, added_at) VALUES (?, ?) "
                "ON CONFLICT (request_id) DO UPDATE SET given_up = NULL",
                (request_id, time.time()),
            )

    def save(self, update: StatusUpdate) -> None:
        """Record `update` as the request's last-known status (adding the id if needed)."""
        with self._lock:
            self._pending[update.request_id] = update
            self._flush_locked()

    def save_later(self, update: StatusUpdate) -> int:
        """Record `update` at the next `flush()` (or read, or `close()`); a later update of
        the same request replaces it. Returns how many updates wait. See the module's note on
        what a crash loses."""
        with self._lock:
            self._pending[update.request_id] = update
            return len(self._pending)

    def flush(self) -> None:
        """Write every update `save_later` holds, in one transaction."""
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._pending:
            return
        now = time.time()
        rows = [
            (update.request_id, now, int(update.final), _encoded(update))
            for update in self._pending.values()
        ]
        with self._tx_held() as db:
            db.executemany(_UPSERT, rows)
        self._wrote(len(rows) - 1)  # the transaction counted one
        self._pending.clear()

    def give_up(self, request_id: str, reason: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE tracked SET given_up = ? WHERE request_id = ?", (reason, request_id))

    def prune(self, older_than_s: float = KEEP_FINISHED_SECONDS) -> int:
        """Forget finished (final or given-up) requests whose tracking began more than
        `older_than_s` ago; unfinished ones are kept however old. Returns how many went."""
        cutoff = time.time() - older_than_s
        with self._lock:
            self._flush_locked()
            with self._tx_held() as db:
                gone = db.execute(
                    "DELETE FROM tracked WHERE added_at < ? "
                    "AND (final = 1 OR given_up IS NOT NULL)",
                    (cutoff,),
                )
        return gone.rowcount

    def remove(self, request_id: str) -> None:
        with self._lock, self._tx_held() as db:
            self._pending.pop(request_id, None)  # a later flush would write the row again
            db.execute("DELETE FROM tracked WHERE request_id = ?", (request_id,))

    # -- reading ---------------------------------------------------------------------------

    def get(self, request_id: str) -> StoredRequest | None:
        with self._lock:
            self._flush_locked()
            row = self._db.execute(
                "SELECT * FROM tracked WHERE request_id = ?", (request_id,)
            ).fetchone()
        return _stored(row) if row is not None else None

    def unfinished(self) -> list[StoredRequest]:
        """Requests neither final nor given up, oldest first."""
        with self._lock:
            self._flush_locked()
            rows = self._db.execute(
                "SELECT * FROM tracked WHERE final = 0 AND given_up IS NULL "
                "ORDER BY added_at, request_id"
            ).fetchall()
        return [_stored(row) for row in rows]

    def all(self) -> list[StoredRequest]:
        with self._lock:
            self._flush_locked()
            rows = self._db.execute(
                "SELECT * FROM tracked ORDER BY added_at, request_id"
            ).fetchall()
        return [_stored(row) for row in rows]


def _encoded(update: StatusUpdate) -> str:
    """The update as compact JSON text. pydantic's encoder, not `json.dumps`: about 2 µs
    against 5, paid for every accepted update (half of what writing a row cost); it writes what
    `json.dumps` wrote, as UTF-8 rather than escapes (NaN kept, an unknown object as its `str`)."""
    encoded = pydantic_core.to_json(update.to_json(), fallback=str, inf_nan_mode="constants")
    return encoded.decode("utf-8")


def _stored(row: sqlite3.Row) -> StoredRequest:
    latest = StatusUpdate.from_json(json.loads(row["latest"])) if row["latest"] else None
    return StoredRequest(
        request_id=row["request_id"],
        added_at=row["added_at"],
        final=bool(row["final"]),
        given_up=row["given_up"],
        latest=latest,
    )
