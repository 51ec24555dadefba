"""The service's memory: requests, API keys and venue nonce mappings, kept in SQLite.

This is the interface the solver and the World drive. Everything here is synchronous and
thread-safe (one lock around one SQLite connection), so the solver may call it from any thread.

Requests
--------
A quote creates a request in status ``waiting`` (``create_request``, called by the quote engine).
The solver then moves it along with ``advance``; every accepted change is committed first and
then announced to every ``subscribe``-d callback as a ``StatusChange`` (the World turns those into
webhooks; the HTTP status endpoints read the same rows, so they are live).

Transition table (``TRANSITIONS``; anything else raises ``InvalidTransition``):

=============  ==============================================================
from           allowed next statuses
=============  ==============================================================
waiting        depositing, pending, submitted, failure, refund
depositing     pending, submitted, failure, refund
pending        submitted, success, failure, refund
submitted      success, failure
failure        pending, refund   (failure is not final: facts.md, refund after a settle)
success        (final)
refund         (final)
=============  ==============================================================

``waiting -> submitted`` and ``pending -> success`` exist for same-chain and venue fills whose
deposit and fill are observed together; ``depositing`` is entered by the service itself when it
submits a permit deposit (``POST /execute/permits``). A refund leg that fails goes through
``refund_failed``: the request stays in (or moves to) ``failure`` with its refundFailReason, and
that is announced even when it was already in ``failure``.

A request keeps: id (``0x`` + 64 hex), status, user, recipient, refund_to, origin/destination
chain and currency, amount_in/amount_out (ints, smallest units), trade type, the full quote JSON,
the protocol order id (bytes32 hex), deposit-address info, the venue nonce, the *name* of the API
key that created it (never the key), referrer, parent id and kind of child requests, in/out
transactions (``Tx``), fees, subsidized flag, fail/refund-fail reasons, created/updated (ms from
the injectable clock), origin block number, status details, the fee sponsorship ``actual`` once
filled, and a ``demo`` tag for the demo triggers (see ``crossdeck.sim.service``).

Lookups for the solver: ``get``, ``by_order_id``, ``by_nonce(wallet, nonce)``,
``by_deposit_address``, ``by_venue_nonce``, ``open_requests``, ``children``.
Child legs: ``create_child(parent_id, kind="refund", ...)`` (refund of an excess, a duplicate
deposit marked DOUBLE_SPEND, ...). Non-status facts (a tx seen early, the actual amounts of an
open deposit address, the origin block) go through ``amend``.

API keys are registered in memory by the World (``api_keys.register(name, secret)``); only a
SHA-256 of each key is stored, so the database never holds a secret.

Deposit-address private keys are derived from an in-memory seed and the request id
(``deposit_account(request_id)``): nothing secret is written to disk; a World restarted with the
same seed can still sweep its old deposit addresses.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from eth_account import Account
from eth_account.signers.local import LocalAccount

from crossdeck.sim.service.faults import FaultInjector
from crossdeck.sim.service.money import format_units
from crossdeck.sim.service.search_keys import address_key, hash_key

Clock = Callable[[], int]
"""Returns Unix time in milliseconds."""


def system_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class Status(StrEnum):
    WAITING = "waiting"
    DEPOSITING = "depositing"
    PENDING = "pending"
    SUBMITTED = "submitted"
    SUCCESS = "success"
    FAILURE = "failure"
    REFUND = "refund"


FINAL_STATUSES = frozenset({Status.SUCCESS, Status.REFUND})

TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.WAITING: frozenset(
        {Status.DEPOSITING, Status.PENDING, Status.SUBMITTED, Status.FAILURE, Status.REFUND}
    ),
    Status.DEPOSITING: frozenset({Status.PENDING, Status.SUBMITTED, Status.FAILURE, Status.REFUND}),
    Status.PENDING: frozenset({Status.SUBMITTED, Status.SUCCESS, Status.FAILURE, Status.REFUND}),
    Status.SUBMITTED: frozenset({Status.SUCCESS, Status.FAILURE}),
    Status.FAILURE: frozenset({Status.PENDING, Status.REFUND}),
    Status.SUCCESS: frozenset(),
    Status.REFUND: frozenset(),
}


Reindexer = Callable[[int, str, str | None], Awaitable[tuple[list[dict[str, Any]], int]]]
"""(chain id, deposit address, currency or None) -> (triggered currencies, currencies checked)."""


class StateError(Exception):
    """Base of the errors ServiceState raises."""


class UnknownRequest(StateError):
    pass


class InvalidTransition(StateError):
    pass


class NonceAlreadyMapped(StateError):
    def __init__(self, wallet: str, nonce: int, request_id: str) -> None:
        super().__init__(f"nonce {nonce} of {wallet} is already mapped to request {request_id}")
        self.request_id = request_id


@dataclass(frozen=True)
class Tx:
    """One origin or destination transaction of a request (2.3 inTxs/outTxs element)."""

    hash: str
    chain_id: int
    from_: str = "0x0000000000000000000000000000000000000000"
    to: str = "0x0000000000000000000000000000000000000000"
    value: int = 0
    data: str = "0x"
    fee: int = 0
    timestamp: int = 0  # Unix seconds
    block: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "fee": str(self.fee),
            "data": {
                "to": self.to,
                "data": self.data,
                "from": self.from_,
                "value": str(self.value),
            },
            "hash": self.hash,
            "type": "onchain",
            "chainId": self.chain_id,
            "timestamp": self.timestamp,
        }
        if self.block is not None:
            out["block"] = self.block
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Tx:
        data = raw.get("data") or {}
        return cls(
            hash=raw["hash"],
            chain_id=int(raw["chainId"]),
            from_=data.get("from", cls.from_),
            to=data.get("to", cls.to),
            value=int(data.get("value", 0)),
            data=data.get("data", "0x"),
            fee=int(raw.get("fee", 0)),
            timestamp=int(raw.get("timestamp", 0)),
            block=raw.get("block"),
        )


@dataclass(frozen=True)
class DepositAddress:
    address: str
    type: str  # 'open' | 'strict'
    depositor: str | None = None
    deposit_tx_hash: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "depositAddressType": self.type,
            "depositor": self.depositor,
            "depositTxHash": self.deposit_tx_hash,
        }


@dataclass(frozen=True)
class RequestRecord:
    """A request as stored. Immutable snapshot; ``ServiceState`` returns fresh copies."""

    id: str
    status: Status
    user: str
    recipient: str
    refund_to: str
    origin_chain_id: int
    destination_chain_id: int
    origin_currency: str
    destination_currency: str
    amount_in: int
    amount_out: int
    trade_type: str
    order_id: str
    created_at: int
    updated_at: int
    quote: dict[str, Any] = field(default_factory=dict)
    kind: str = "main"  # 'main' for quoted requests; 'refund', 'duplicate', ... for child legs
    parent_id: str | None = None
    deposit_address: DepositAddress | None = None
    venue_nonce: int | None = None
    api_key_name: str | None = None
    referrer: str | None = None
    in_txs: tuple[Tx, ...] = ()
    out_txs: tuple[Tx, ...] = ()
    fees: dict[str, int] = field(default_factory=lambda: {"gas": 0, "fixed": 0, "price": 0})
    fees_usd: dict[str, int] = field(default_factory=lambda: {"gas": 0, "fixed": 0, "price": 0})
    subsidized: bool = False
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    origin_block: int | None = None
    details: Any = None
    fee_sponsorship_actual: dict[str, Any] | None = None
    nonce_authorized: bool = False
    demo: str | None = None  # demo trigger: 'fail' (fail then refund); see package docstring
    extra: dict[str, Any] = field(default_factory=dict)  # flow data: permit, topup, venue token

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES

    def to_json(self) -> dict[str, Any]:
        raw = asdict(self)
        raw["status"] = self.status.value
        raw["in_txs"] = [tx.to_json() for tx in self.in_txs]
        raw["out_txs"] = [tx.to_json() for tx in self.out_txs]
        raw["deposit_address"] = asdict(self.deposit_address) if self.deposit_address else None
        return raw

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> RequestRecord:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        values["status"] = Status(raw["status"])
        values["in_txs"] = tuple(Tx.from_json(t) for t in raw.get("in_txs", []))
        values["out_txs"] = tuple(Tx.from_json(t) for t in raw.get("out_txs", []))
        dep = raw.get("deposit_address")
        values["deposit_address"] = DepositAddress(**dep) if dep else None
        return cls(**values)


@dataclass(frozen=True)
class StatusChange:
    """What subscribers receive: the record after the change and the status before it."""

    record: RequestRecord
    previous: Status | None  # None when a child request is created


class ApiKeys:
    """API keys known to the service. Secrets stay in memory; the database sees hashes only."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}
        self._lock = threading.Lock()

    def register(self, name: str, secret: str) -> None:
        with self._lock:
            self._by_name[name] = secret

    def name_for(self, secret: str | None) -> str | None:
        """The name of the key whose secret this is, compared in constant time."""
        if not secret:
            return None
        with self._lock:
            for name, known in self._by_name.items():
                if hmac.compare_digest(known.encode(), secret.encode()):
                    return name
        return None

    def secret_for(self, name: str) -> str | None:
        """For the World's webhook signer: the HMAC secret of a key is the key itself (6.3)."""
        with self._lock:
            return self._by_name.get(name)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._by_name)

    def __repr__(self) -> str:
        return f"ApiKeys(names={self.names()!r})"


def key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS requests (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    user_addr TEXT NOT NULL,
    recipient TEXT NOT NULL,
    origin_chain INTEGER NOT NULL,
    destination_chain INTEGER NOT NULL,
    order_id TEXT,
    deposit_address TEXT,
    venue_nonce INTEGER,
    api_key_name TEXT,
    referrer TEXT,
    parent_id TEXT,
    origin_block INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS requests_created ON requests (created_at, seq);
CREATE INDEX IF NOT EXISTS requests_updated ON requests (updated_at, seq);
CREATE INDEX IF NOT EXISTS requests_order ON requests (order_id);
CREATE INDEX IF NOT EXISTS requests_deposit ON requests (deposit_address);
CREATE INDEX IF NOT EXISTS requests_parent ON requests (parent_id);
CREATE TABLE IF NOT EXISTS tx_hashes (
    request_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    direction TEXT NOT NULL,
    PRIMARY KEY (request_id, hash, direction)
);
CREATE INDEX IF NOT EXISTS tx_hashes_hash ON tx_hashes (hash);
CREATE TABLE IF NOT EXISTS nonce_mappings (
    wallet TEXT NOT NULL,
    nonce INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (wallet, nonce)
);
CREATE TABLE IF NOT EXISTS api_keys (
    name TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
"""

_INDEXED = (
    "status",
    "user_addr",
    "recipient",
    "origin_chain",
    "destination_chain",
    "order_id",
    "deposit_address",
    "venue_nonce",
    "api_key_name",
    "referrer",
    "parent_id",
    "origin_block",
    "created_at",
    "updated_at",
)


def _lower(value: str | None) -> str | None:
    return value.lower() if value else None


def _columns(record: RequestRecord) -> dict[str, Any]:
    return {
        "status": record.status.value,
        "user_addr": address_key(record.user),
        "recipient": address_key(record.recipient),
        "origin_chain": record.origin_chain_id,
        "destination_chain": record.destination_chain_id,
        "order_id": _lower(record.order_id) if record.kind == "main" else None,
        "deposit_address": _lower(record.deposit_address.address)
        if record.deposit_address
        else None,
        "venue_nonce": record.venue_nonce,
        "api_key_name": record.api_key_name,
        "referrer": record.referrer,
        "parent_id": record.parent_id,
        "origin_block": record.origin_block,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def _rescaled(amount_object: Any, amount: int) -> dict[str, Any] | None:
    """A parent's 2.1 currency amount object for a child leg's own amount (None if unknown)."""
    if not isinstance(amount_object, dict):
        return None
    currency = amount_object.get("currency") or {}
    decimals = currency.get("decimals")
    out: dict[str, Any] = {"currency": currency, "amount": str(amount)}
    if isinstance(decimals, int):
        out["amountFormatted"] = format_units(amount, decimals)
    return out


def new_request_id() -> str:
    return "0x" + secrets.token_hex(32)


def new_order_id() -> str:
    return "0x" + secrets.token_hex(32)


class ServiceState:
    """SQLite-backed service state. ``path`` is a file path or ``":memory:"``."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        clock: Clock = system_clock_ms,
        deposit_seed: bytes | None = None,
    ) -> None:
        self.clock = clock
        self.api_keys = ApiKeys()
        self.faults = FaultInjector()
        self._deposit_seed = deposit_seed or secrets.token_bytes(32)
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[StatusChange], None]] = []
        self._index_subscribers: list[Callable[[int, str], None]] = []
        self._indexed: list[tuple[int, str]] = []
        self.reindexer: Reindexer | None = None
        """Who answers POST /transactions/deposit-address/reindex (the World's solver)."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        # WAL, synced at checkpoints: a commit is not an fsync (one was 1-10 ms, and a test
        # seeding hundreds of requests or a demo quoting often waited on the disk), and a
        # service killed mid-run still keeps every committed change for its restart
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    # ---- plumbing -------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """Read-only SQL for the history endpoint (kept here so all access shares the lock)."""
        with self._lock:
            return list(self._db.execute(sql, tuple(params)))

    def now(self) -> int:
        return self.clock()

    def subscribe(self, callback: Callable[[StatusChange], None]) -> Callable[[], None]:
        """Call ``callback`` after every committed status change (and child creation).

        It runs synchronously in the thread that made the change; keep it short or hand the
        change to your own loop (e.g. ``loop.call_soon_threadsafe``). An exception in one
        callback is swallowed so it cannot undo or block the change. Returns an unsubscribe.
        """
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _announce(self, change: StatusChange) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(change)
            except Exception:  # a subscriber must not break the service
                continue

    def _write(self, conn: sqlite3.Connection, record: RequestRecord, *, insert: bool) -> None:
        cols = _columns(record)
        body = json.dumps(record.to_json(), separators=(",", ":"))
        if insert:
            names = ["id", *cols, "body"]
            conn.execute(
                f"INSERT INTO requests ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                [record.id, *cols.values(), body],
            )
        else:
            assign = ", ".join(f"{name} = ?" for name in [*cols, "body"])
            conn.execute(
                f"UPDATE requests SET {assign} WHERE id = ?", [*cols.values(), body, record.id]
            )
        for direction, txs in (("in", record.in_txs), ("out", record.out_txs)):
            for tx in txs:
                conn.execute(
                    "INSERT OR IGNORE INTO tx_hashes (request_id, hash, direction) "
                    "VALUES (?, ?, ?)",
                    (record.id, hash_key(tx.hash), direction),
                )

    def _load(self, conn: sqlite3.Connection, request_id: str) -> RequestRecord:
        row = conn.execute(
            "SELECT body FROM requests WHERE id = ?", (request_id.lower(),)
        ).fetchone()
        if row is None:
            raise UnknownRequest(f"no request with id {request_id}")
        return RequestRecord.from_json(json.loads(row["body"]))

    @staticmethod
    def record_of_row(row: sqlite3.Row) -> RequestRecord:
        return RequestRecord.from_json(json.loads(row["body"]))

    # ---- creation -------------------------------------------------------------------------

    def create_request(self, record: RequestRecord) -> RequestRecord:
        """Store a freshly quoted request (status ``waiting``). Called by the quote engine."""
        record = replace(record, id=record.id.lower())
        with self._tx() as conn:
            self._write(conn, record, insert=True)
        return record

    def copy_request(self, request_id: str, *, api_key_name: str) -> RequestRecord:
        """A fresh ``waiting`` request like ``request_id`` (its quote, route and amounts) with
        new ids, created now, no transactions yet, owned by ``api_key_name``: many requests to
        follow at once without quoting each (the status tests and the polling benchmark)."""
        now = self.clock()
        record = replace(
            self.get(request_id),
            id=new_request_id(),
            order_id=new_order_id(),
            status=Status.WAITING,
            created_at=now,
            updated_at=now,
            api_key_name=api_key_name,
            in_txs=(),
            out_txs=(),
        )
        return self.create_request(record)

    def create_child(
        self,
        parent_id: str,
        kind: str = "refund",
        *,
        status: Status | str = Status.PENDING,
        amount_in: int | None = None,
        amount_out: int | None = None,
        recipient: str | None = None,
        destination_chain_id: int | None = None,
        destination_currency: str | None = None,
        in_tx: Tx | None = None,
        out_tx: Tx | None = None,
        fail_reason: str | None = None,
        refund_fail_reason: str | None = None,
        details: Any = None,
    ) -> RequestRecord:
        """A child leg of ``parent_id``: a refund of excess, a duplicate deposit, a retry.

        Defaults: a refund leg goes back to the parent's refund target on the origin chain in
        the origin currency. The child is announced to subscribers with ``previous=None``.
        """
        status = Status(status)
        now = self.clock()
        with self._tx() as conn:
            parent = self._load(conn, parent_id)
            refund_like = kind in ("refund", "duplicate")
            amount = parent.amount_in if amount_in is None else amount_in
            paid_out = (
                (parent.amount_in if refund_like else parent.amount_out)
                if amount_out is None
                else amount_out
            )
            parent_details = parent.quote.get("details") or {}
            currency_in = parent_details.get("currencyIn")
            currency_out = currency_in if refund_like else parent_details.get("currencyOut")
            child = RequestRecord(
                id=new_request_id(),
                status=status,
                user=parent.user,
                recipient=recipient or (parent.refund_to if refund_like else parent.recipient),
                refund_to=parent.refund_to,
                origin_chain_id=parent.origin_chain_id,
                destination_chain_id=destination_chain_id
                or (parent.origin_chain_id if refund_like else parent.destination_chain_id),
                origin_currency=parent.origin_currency,
                destination_currency=destination_currency
                or (parent.origin_currency if refund_like else parent.destination_currency),
                amount_in=amount,
                amount_out=paid_out,
                trade_type="EXACT_INPUT",
                # what the history record reports as the leg's currencies and amounts
                quote={
                    "details": {
                        "currencyIn": _rescaled(currency_in, amount),
                        "currencyOut": _rescaled(currency_out, paid_out),
                    }
                },
                order_id=parent.order_id,
                created_at=now,
                updated_at=now,
                kind=kind,
                parent_id=parent.id,
                deposit_address=parent.deposit_address,
                api_key_name=parent.api_key_name,
                referrer=parent.referrer,
                in_txs=(in_tx,) if in_tx else (),
                out_txs=(out_tx,) if out_tx else (),
                fail_reason=fail_reason,
                refund_fail_reason=refund_fail_reason,
                details=details,
                origin_block=in_tx.block if in_tx and in_tx.block is not None else None,
            )
            self._write(conn, child, insert=True)
        self._announce(StatusChange(child, None))
        return child

    # ---- lifecycle ------------------------------------------------------------------------

    def advance(
        self,
        request_id: str,
        status: Status | str,
        *,
        in_tx: Tx | None = None,
        out_tx: Tx | None = None,
        fail_reason: str | None = None,
        refund_fail_reason: str | None = None,
        details: Any = None,
        sponsor_payment: dict[str, Any] | None = None,
    ) -> RequestRecord:
        """Move a request to ``status`` (checked against ``TRANSITIONS``) and announce it.

        ``in_tx``/``out_tx`` are appended (deduplicated by hash); an in_tx with a block number
        sets the origin block when none is known yet. ``fail_reason`` is recorded on failure and
        refund (kept from an earlier failure when not given). ``sponsor_payment``
        ({amount, address, chainId}) completes ``feeSponsorship.actual`` of a subsidized
        request; on ``success`` of a subsidized request the actual defaults to the quoted one.
        """
        status = Status(status)
        with self._tx() as conn:
            record = self._load(conn, request_id)
            previous = record.status
            if status not in TRANSITIONS[previous]:
                allowed = ", ".join(sorted(TRANSITIONS[previous])) or "none (final)"
                raise InvalidTransition(
                    f"request {record.id}: {previous} -> {status} is not allowed "
                    f"(from {previous}: {allowed})"
                )
            record = self._with_facts(record, in_tx=in_tx, out_tx=out_tx, details=details)
            changes: dict[str, Any] = {"status": status, "updated_at": self._tick(record)}
            if fail_reason is not None:
                changes["fail_reason"] = fail_reason
            elif status in (Status.FAILURE, Status.REFUND) and record.fail_reason is None:
                changes["fail_reason"] = "UNKNOWN"
            if refund_fail_reason is not None:
                changes["refund_fail_reason"] = refund_fail_reason
            actual = self._sponsorship_actual(record, status, sponsor_payment)
            if actual is not None:
                changes["fee_sponsorship_actual"] = actual
            record = replace(record, **changes)
            self._write(conn, record, insert=False)
        self._announce(StatusChange(record, previous))
        return record

    def refund_failed(
        self,
        request_id: str,
        refund_fail_reason: str,
        *,
        fail_reason: str | None = None,
        details: Any = None,
    ) -> RequestRecord:
        """A refund leg failed: record ``refund_fail_reason`` (and ``details``), leave the
        request in ``failure`` (final once settled, facts.md) and announce it.

        Unlike ``advance`` this also accepts a request already in ``failure`` (a failed fill
        whose refund then failed), so the reason always reaches subscribers (webhooks).
        Raises ``InvalidTransition`` for a final request (success or refund).
        """
        with self._tx() as conn:
            record = self._load(conn, request_id)
            previous = record.status
            if previous is not Status.FAILURE and Status.FAILURE not in TRANSITIONS[previous]:
                raise InvalidTransition(
                    f"request {record.id}: {previous} -> failure is not allowed "
                    "(a refund cannot fail on a final request)"
                )
            record = self._with_facts(record, in_tx=None, out_tx=None, details=details)
            record = replace(
                record,
                status=Status.FAILURE,
                updated_at=self._tick(record),
                fail_reason=fail_reason or record.fail_reason or "UNKNOWN",
                refund_fail_reason=refund_fail_reason,
            )
            self._write(conn, record, insert=False)
        self._announce(StatusChange(record, previous))
        return record

    def amend(
        self,
        request_id: str,
        *,
        in_tx: Tx | None = None,
        out_tx: Tx | None = None,
        details: Any = None,
        amount_in: int | None = None,
        amount_out: int | None = None,
        origin_block: int | None = None,
        depositor: str | None = None,
        deposit_tx_hash: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> RequestRecord:
        """Record facts that are not a status change (no announcement, no transition check)."""
        with self._tx() as conn:
            record = self._load(conn, request_id)
            record = self._with_facts(record, in_tx=in_tx, out_tx=out_tx, details=details)
            changes: dict[str, Any] = {"updated_at": self._tick(record)}
            if amount_in is not None:
                changes["amount_in"] = amount_in
            if amount_out is not None:
                changes["amount_out"] = amount_out
            if origin_block is not None:
                changes["origin_block"] = origin_block
            if extra:
                changes["extra"] = {**record.extra, **extra}
            if record.deposit_address and (depositor or deposit_tx_hash):
                changes["deposit_address"] = replace(
                    record.deposit_address,
                    depositor=depositor or record.deposit_address.depositor,
                    deposit_tx_hash=deposit_tx_hash or record.deposit_address.deposit_tx_hash,
                )
            record = replace(record, **changes)
            self._write(conn, record, insert=False)
        return record

    def _tick(self, record: RequestRecord) -> int:
        # updatedAt never goes backwards, even with a coarse or injected clock
        return max(self.clock(), record.updated_at)

    @staticmethod
    def _with_facts(
        record: RequestRecord, *, in_tx: Tx | None, out_tx: Tx | None, details: Any
    ) -> RequestRecord:
        changes: dict[str, Any] = {}
        if in_tx is not None and all(t.hash.lower() != in_tx.hash.lower() for t in record.in_txs):
            changes["in_txs"] = (*record.in_txs, in_tx)
            if record.origin_block is None and in_tx.block is not None:
                changes["origin_block"] = in_tx.block
        if out_tx is not None and all(
            t.hash.lower() != out_tx.hash.lower() for t in record.out_txs
        ):
            changes["out_txs"] = (*record.out_txs, out_tx)
        if details is not None:
            changes["details"] = details
        return replace(record, **changes) if changes else record

    @staticmethod
    def _sponsorship_actual(
        record: RequestRecord, status: Status, sponsor_payment: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        quoted = (record.quote.get("feeSponsorship") or {}).get("quoted")
        if not record.subsidized or not quoted:
            return None
        if sponsor_payment is None and status is not Status.SUCCESS:
            return None
        if sponsor_payment is None:
            sponsored = quoted["sponsoredTotal"]
            sponsor_payment = {
                "amount": sponsored["amount"],
                "address": sponsored["currency"]["address"],
                "chainId": sponsored["currency"]["chainId"],
            }
        return {**quoted, "sponsorPayment": dict(sponsor_payment)}

    # ---- lookups --------------------------------------------------------------------------

    def get(self, request_id: str) -> RequestRecord:
        """Raises ``UnknownRequest``."""
        with self._lock:
            return self._load(self._db, request_id)

    def find(self, request_id: str) -> RequestRecord | None:
        try:
            return self.get(request_id)
        except UnknownRequest:
            return None

    def _one(self, where: str, params: tuple[Any, ...]) -> RequestRecord | None:
        rows = self.query(f"SELECT body FROM requests WHERE {where} ORDER BY seq LIMIT 1", params)
        return self.record_of_row(rows[0]) if rows else None

    def by_order_id(self, order_id: str) -> RequestRecord | None:
        """The quoted (main) request whose protocol orderId this is."""
        return self._one("order_id = ?", (order_id.lower(),))

    def by_venue_nonce(self, nonce: int) -> RequestRecord | None:
        """The venue-withdrawal request quoted with this nonce (mapped or not)."""
        return self._one("venue_nonce = ? AND parent_id IS NULL", (int(nonce),))

    def by_nonce(self, wallet: str, nonce: int) -> RequestRecord | None:
        """The request a wallet's venue transfer nonce was mapped to through /authorize."""
        rows = self.query(
            "SELECT request_id FROM nonce_mappings WHERE wallet = ? AND nonce = ?",
            (wallet.lower(), int(nonce)),
        )
        return self.find(rows[0]["request_id"]) if rows else None

    def by_deposit_address(self, address: str) -> list[RequestRecord]:
        """Every main request tied to a deposit address, oldest first."""
        rows = self.query(
            "SELECT body FROM requests WHERE deposit_address = ? AND parent_id IS NULL "
            "ORDER BY seq",
            (address.lower(),),
        )
        return [self.record_of_row(r) for r in rows]

    def by_tx_hash(self, tx_hash: str) -> list[RequestRecord]:
        rows = self.query(
            "SELECT DISTINCT r.body, r.seq FROM requests r JOIN tx_hashes t "
            "ON t.request_id = r.id WHERE t.hash = ? ORDER BY r.seq",
            (hash_key(tx_hash),),
        )
        return [self.record_of_row(r) for r in rows]

    def children(self, parent_id: str) -> list[RequestRecord]:
        rows = self.query(
            "SELECT body FROM requests WHERE parent_id = ? ORDER BY seq", (parent_id.lower(),)
        )
        return [self.record_of_row(r) for r in rows]

    def open_requests(self) -> list[RequestRecord]:
        """Requests the solver may still act on: not final (failure included), oldest first."""
        rows = self.query(
            "SELECT body FROM requests WHERE status NOT IN ('success', 'refund') ORDER BY seq"
        )
        return [self.record_of_row(r) for r in rows]

    # ---- venue nonces and mappings --------------------------------------------------------

    def next_venue_nonce(self) -> int:
        """A fresh ms-timestamp-like venue nonce, strictly increasing across restarts."""
        with self._tx() as conn:
            row = conn.execute("SELECT value FROM counters WHERE name = 'venue_nonce'").fetchone()
            nonce = max(self.clock(), (row["value"] + 1) if row else 0)
            conn.execute(
                "INSERT INTO counters (name, value) VALUES ('venue_nonce', ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (nonce,),
            )
        return nonce

    def map_nonce(self, wallet: str, nonce: int, request_id: str) -> RequestRecord:
        """Tie a wallet's venue nonce to a request (POST /authorize). Refuses a second mapping."""
        with self._tx() as conn:
            existing = conn.execute(
                "SELECT request_id FROM nonce_mappings WHERE wallet = ? AND nonce = ?",
                (wallet.lower(), int(nonce)),
            ).fetchone()
            if existing is not None:
                raise NonceAlreadyMapped(wallet, nonce, existing["request_id"])
            record = self._load(conn, request_id)
            conn.execute(
                "INSERT INTO nonce_mappings (wallet, nonce, request_id, created_at) "
                "VALUES (?, ?, ?, ?)",
                (wallet.lower(), int(nonce), record.id, self.clock()),
            )
            record = replace(record, nonce_authorized=True, updated_at=self._tick(record))
            self._write(conn, record, insert=False)
        return record

    # ---- transactions announced early (POST /transactions/index) ------------------------

    def index_tx(self, chain_id: int, tx_hash: str) -> None:
        """A client told the service about a deposit tx; the solver may look at it early."""
        with self._lock:
            self._indexed.append((chain_id, tx_hash.lower()))
            subscribers = list(self._index_subscribers)
        for callback in subscribers:
            try:
                callback(chain_id, tx_hash.lower())
            except Exception:
                continue

    def on_tx_indexed(self, callback: Callable[[int, str], None]) -> None:
        """Call ``callback(chain_id, tx_hash)`` for every POST /transactions/index."""
        with self._lock:
            self._index_subscribers.append(callback)

    def indexed_txs(self) -> list[tuple[int, str]]:
        with self._lock:
            return list(self._indexed)

    # ---- API keys and deposit addresses ---------------------------------------------------

    def register_api_key(self, name: str, secret: str) -> None:
        """Make a key known (in memory) and remember its hash for the apiKey history filter."""
        self.api_keys.register(name, secret)
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO api_keys (name, key_hash) VALUES (?, ?) "
                "ON CONFLICT(name) DO UPDATE SET key_hash = excluded.key_hash",
                (name, key_hash(secret)),
            )

    def api_key_name_for_hash(self, secret: str) -> str | None:
        rows = self.query("SELECT name FROM api_keys WHERE key_hash = ?", (key_hash(secret),))
        return rows[0]["name"] if rows else None

    def deposit_account(self, request_id: str) -> LocalAccount:
        """The key of the deposit address of ``request_id`` (derived, never stored)."""
        digest = hmac.new(
            self._deposit_seed, bytes.fromhex(request_id.lower().removeprefix("0x")), "sha256"
        ).digest()
        account: LocalAccount = Account.from_key(digest)  # eth-account's combomethod: untyped
        return account

    def __repr__(self) -> str:
        return f"ServiceState(api_keys={self.api_keys.names()!r})"
