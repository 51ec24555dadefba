"""The execution journal: SQLite in the user data dir, so a crash never sends twice.

One row per run (request id, wallet, the quote as JSON, options, state) and one per step item
(`state`: intent -> signed -> sent -> done, or `reverted` when the transaction was mined but
reverted: final, never skipped as done, and a run holding one is never resumed; or `expired`
when a Solana transaction's blockhash expired before it landed: it can never land, so the run
ended with nothing taken and counts as having sent nothing). The order of writes is the point:

- `intent` is written before anything is signed;
- the signed artefact (raw transaction, signature + body, signed venue action + nonce) is
  written BEFORE it leaves the machine, so `resume` can re-send the very same bytes (same
  transaction hash, same venue nonce) instead of signing a second one;
- `sent` (with the hash) right after broadcasting; `done` once confirmed or accepted.

A run is *unfinished* only once something of it may have left the machine: an item past
`intent` (signed artefacts are written just before they are sent). A run declined at its first
confirmation, refused by a guard or stopped before its first signature sent nothing: it is
listed as such, never offered to `resume`, and the same quote may be run again.

WAL with `synchronous=NORMAL`: a row is in the file when the call returns, so it survives the
process being killed right after; the write of a signed artefact is also synced to the device
(`synchronous=FULL` for that one commit), with every write before it, so not even a power cut
can lose what is about to leave the machine. The other writes are not synced one by one (each
sync cost 1-5 ms, a dozen per run): lost to a power cut, they are found again by `resume`
(intents are redone, a sent artefact is re-sent as is or found). No key is ever written here:
a signed transaction or signature is not a secret key.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from crossdeck.base.sqlite_tx import immediate
from crossdeck.execute.errors import AlreadyStarted

JOURNAL_FILE = "journal.sqlite3"

ItemState = Literal["intent", "signed", "sent", "done", "reverted", "expired"]
RunState = Literal["running", "tracking", "finished", "failed", "refused"]
UNFINISHED: tuple[RunState, ...] = ("running", "tracking", "failed")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    request_id   TEXT PRIMARY KEY,
    wallet       TEXT NOT NULL,
    quote        TEXT NOT NULL,
    request      TEXT,
    options      TEXT NOT NULL,
    state        TEXT NOT NULL,
    final_status TEXT,
    error        TEXT,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
    request_id  TEXT NOT NULL,
    step_index  INTEGER NOT NULL,
    item_index  INTEGER NOT NULL,
    step_id     TEXT,
    kind        TEXT NOT NULL,
    state       TEXT NOT NULL,
    chain_id    INTEGER,
    from_nonce  INTEGER,
    raw_tx      TEXT,
    tx_hash     TEXT,
    venue_nonce INTEGER,
    signed      TEXT,
    response    TEXT,
    updated_at  REAL NOT NULL,
    PRIMARY KEY (request_id, step_index, item_index)
);
"""


@dataclass(frozen=True)
class RunRecord:
    """A journalled run: its request, wallet, quote, options and state."""

    request_id: str
    wallet: str
    quote: dict[str, Any]
    request: dict[str, Any] | None
    options: dict[str, Any]
    state: RunState
    final_status: str | None
    error: str | None
    created_at: float
    updated_at: float
    sent: bool = False
    """Something of the run may have left the machine (an item past `intent`) and may still
    land: a Solana transaction whose blockhash expired unlanded never will."""
    expired: bool = False
    """A transaction of the run expired unlanded (Solana): it ended, nothing was taken."""

    @property
    def unfinished(self) -> bool:
        """Worth resuming or following: something was sent and no final status was seen."""
        return self.sent and self.state in UNFINISHED

    @property
    def label(self) -> str:
        """The run's state in words for listings ('declined, nothing sent', 'tracking')."""
        if self.sent or self.state == "finished":
            return self.state
        if self.expired:
            return "expired unlanded, nothing taken"
        if self.state == "refused":
            return "refused, nothing sent"
        if self.error and self.error.startswith("declined"):
            return "declined, nothing sent"
        if self.state == "failed":
            return "stopped, nothing sent"
        return "not sent yet"


@dataclass(frozen=True)
class ItemRecord:
    """A journalled step item: what was signed or sent for it, and its state."""

    request_id: str
    step_index: int
    item_index: int
    step_id: str | None
    kind: str
    state: ItemState
    chain_id: int | None
    from_nonce: int | None
    raw_tx: str | None  # 0x hex of the signed transaction
    tx_hash: str | None
    venue_nonce: int | None
    signed: dict[str, Any] | None  # what was signed and is (re)posted
    response: dict[str, Any] | None


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=False)


class Journal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                # the journal holds signed transactions: readable by this user only
                fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # FULL for signed artefacts: `_tx`
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> Journal:
        return cls(Path(data_dir) / JOURNAL_FILE)

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r})"

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self, *, synced: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction; `synced`: on the device when it commits (with all before it)."""
        if synced:
            self._db.execute("PRAGMA synchronous=FULL")
        try:
            with immediate(self._db) as db:
                yield db
        finally:
            if synced:
                self._db.execute("PRAGMA synchronous=NORMAL")

    # -- runs --------------------------------------------------------------------------------

    def start_run(
        self,
        request_id: str,
        *,
        wallet: str,
        quote: dict[str, Any],
        options: dict[str, Any],
        request: dict[str, Any] | None = None,
    ) -> RunRecord:
        """Record a new run. A request already journalled is refused (`AlreadyStarted`) unless
        its only earlier run was refused by a guard before anything was signed."""
        now = time.time()
        with self._tx() as db:
            row = db.execute(
                "SELECT state FROM runs WHERE request_id = ?", (request_id,)
            ).fetchone()
            if row is not None:
                signed = db.execute(
                    "SELECT COUNT(*) FROM items WHERE request_id = ? AND state != 'intent'",
                    (request_id,),
                ).fetchone()[0]
                # a run that ended before anything left the machine may run again; one that
                # is still going (maybe at its first confirmation) may not
                if row["state"] not in ("refused", "failed") or signed:
                    raise AlreadyStarted(request_id)
                db.execute("DELETE FROM items WHERE request_id = ?", (request_id,))
                db.execute("DELETE FROM runs WHERE request_id = ?", (request_id,))
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, 'running', NULL, NULL, ?, ?)",
                (request_id, wallet, _dumps(quote), _dumps(request), _dumps(options), now, now),
            )
        run = self.run(request_id)
        assert run is not None
        return run

    def update_quote(self, request_id: str, quote: dict[str, Any]) -> None:
        """Keep the quote current (a POST answer may append steps) so resume sees them."""
        self._db.execute(
            "UPDATE runs SET quote = ?, updated_at = ? WHERE request_id = ?",
            (_dumps(quote), time.time(), request_id),
        )

    def set_run_state(
        self,
        request_id: str,
        state: RunState,
        *,
        final_status: str | None = None,
        error: str | None = None,
    ) -> None:
        self._db.execute(
            "UPDATE runs SET state = ?, final_status = COALESCE(?, final_status), error = ?, "
            "updated_at = ? WHERE request_id = ?",
            (state, final_status, error, time.time(), request_id),
        )

    def run(self, request_id: str) -> RunRecord | None:
        row = self._db.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE request_id = ?", (request_id,)
        ).fetchone()
        return None if row is None else _run(row)

    def runs(self) -> list[RunRecord]:
        rows = self._db.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY created_at DESC, rowid DESC"
        )
        return [_run(row) for row in rows]

    def unfinished(self) -> list[RunRecord]:
        """Runs that sent something and saw no final status, newest first; a run holding a
        reverted transaction is left out (it can never go on, and said so)."""
        return [run for run in self.runs() if run.unfinished and not self.reverted(run.request_id)]

    def finish(self, request_id: str, final_status: str) -> None:
        """A final status seen elsewhere (Live status, `crossdeck watch`): the run is over,
        so listings say what the tracker said."""
        self.set_run_state(request_id, "finished", final_status=final_status)

    def latest_unfinished(self) -> RunRecord | None:
        """The run a bare `resume` continues. A run holding a reverted transaction can never go
        on (its failure already said so), so it is passed over rather than refused again on
        every bare `resume`; `resume REQUEST_ID` still explains why it cannot continue. A run
        that sent nothing is not unfinished: there is nothing to continue."""
        runs = self.unfinished()
        return max(runs, key=lambda run: run.updated_at) if runs else None

    # -- items -------------------------------------------------------------------------------

    def reverted(self, request_id: str) -> list[ItemRecord]:
        """The run's items whose transaction was mined and reverted (the run cannot go on)."""
        return [i for i in self.items(request_id) if i.state == "reverted"]

    def expired(self, request_id: str) -> list[ItemRecord]:
        """The run's Solana transactions whose blockhash expired before they landed."""
        return [i for i in self.items(request_id) if i.state == "expired"]

    def item(self, request_id: str, step_index: int, item_index: int) -> ItemRecord | None:
        row = self._db.execute(
            "SELECT * FROM items WHERE request_id = ? AND step_index = ? AND item_index = ?",
            (request_id, step_index, item_index),
        ).fetchone()
        return None if row is None else _item(row)

    def items(self, request_id: str) -> list[ItemRecord]:
        rows = self._db.execute(
            "SELECT * FROM items WHERE request_id = ? ORDER BY step_index, item_index",
            (request_id,),
        )
        return [_item(row) for row in rows]

    def record(
        self,
        request_id: str,
        step_index: int,
        item_index: int,
        state: ItemState,
        *,
        step_id: str | None = None,
        kind: str | None = None,
        chain_id: int | None = None,
        from_nonce: int | None = None,
        raw_tx: str | None = None,
        tx_hash: str | None = None,
        venue_nonce: int | None = None,
        signed: dict[str, Any] | None = None,
        response: dict[str, Any] | None = None,
    ) -> ItemRecord:
        """Move an item to `state`; given fields are set, the others keep their values. The
        `signed` record is synced to the device before this returns (it is sent next)."""
        now = time.time()
        with self._tx(synced=state == "signed") as db:
            exists = db.execute(
                "SELECT 1 FROM items WHERE request_id = ? AND step_index = ? AND item_index = ?",
                (request_id, step_index, item_index),
            ).fetchone()
            if exists is None:
                if kind is None:
                    raise ValueError("the first record of an item needs its kind")
                db.execute(
                    "INSERT INTO items (request_id, step_index, item_index, step_id, kind, state,"
                    " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (request_id, step_index, item_index, step_id, kind, state, now),
                )
            fields: dict[str, Any] = {
                "state": state,
                "chain_id": chain_id,
                "from_nonce": from_nonce,
                "raw_tx": raw_tx,
                "tx_hash": tx_hash,
                "venue_nonce": venue_nonce,
                "signed": _dumps(signed),
                "response": _dumps(response),
            }
            given = {k: v for k, v in fields.items() if v is not None}
            assignments = ", ".join(f"{k} = ?" for k in given)
            db.execute(
                f"UPDATE items SET {assignments}, updated_at = ? "
                "WHERE request_id = ? AND step_index = ? AND item_index = ?",
                (*given.values(), now, request_id, step_index, item_index),
            )
            db.execute("UPDATE runs SET updated_at = ? WHERE request_id = ?", (now, request_id))
        record = self.item(request_id, step_index, item_index)
        assert record is not None
        return record

    def forget_intent(self, request_id: str, step_index: int, item_index: int) -> None:
        """Drop an item that never got past `intent` (nothing left the machine)."""
        self._db.execute(
            "DELETE FROM items WHERE request_id = ? AND step_index = ? AND item_index = ? "
            "AND state = 'intent'",
            (request_id, step_index, item_index),
        )


_RUN_COLUMNS = (
    "runs.*, EXISTS (SELECT 1 FROM items WHERE items.request_id = runs.request_id "
    "AND items.state NOT IN ('intent', 'expired')) AS sent, "
    "EXISTS (SELECT 1 FROM items WHERE items.request_id = runs.request_id "
    "AND items.state = 'expired') AS expired"
)


def _run(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        request_id=row["request_id"],
        wallet=row["wallet"],
        quote=_loads(row["quote"]),
        request=_loads(row["request"]),
        options=_loads(row["options"]) or {},
        state=row["state"],
        final_status=row["final_status"],
        error=row["error"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        sent=bool(row["sent"]),
        expired=bool(row["expired"]),
    )


def _item(row: sqlite3.Row) -> ItemRecord:
    return ItemRecord(
        request_id=row["request_id"],
        step_index=row["step_index"],
        item_index=row["item_index"],
        step_id=row["step_id"],
        kind=row["kind"],
        state=row["state"],
        chain_id=row["chain_id"],
        from_nonce=row["from_nonce"],
        raw_tx=row["raw_tx"],
        tx_hash=row["tx_hash"],
        venue_nonce=row["venue_nonce"],
        signed=_loads(row["signed"]),
        response=_loads(row["response"]),
    )
