"""One SQLite write transaction, for the journal and the status store alike.

`BEGIN IMMEDIATE` takes the write lock at once, so a second process writing the same file waits
(busy_timeout) at the start instead of failing at its first write; any exception, even a
KeyboardInterrupt, rolls the whole transaction back. The connections are opened with
`isolation_level=None`, so this is the only place a transaction begins or ends.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction on `db`: committed when the block ends, rolled back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
