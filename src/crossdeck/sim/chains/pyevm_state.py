"""Keep a py-evm chain across restarts: its whole key-value database in one file.

The database holds every block, receipt and state trie node, so a chain restored from it has
the same blocks, transaction hashes, receipts, balances and nonces as when it was saved; the
pending block is built anew on the restored head. A transaction still pending when the file was
written (interval mining only) is not in it.

The file is a magic line, then (key length, value length, key, value) records; it is written
whole to a temporary name and renamed, so a reader never sees half of it.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

from eth.db.atomic import AtomicDB
from eth.db.backends.memory import MemoryDB

MAGIC = b"crossdeck py-evm chain state 1\n"
_LENGTHS = struct.Struct(">II")


class ChainStateError(RuntimeError):
    """A saved chain file that cannot be read back."""


def _store(chain: Any) -> dict[bytes, bytes]:
    # eth-tester builds its chains on an AtomicDB over a MemoryDB (eth.db.get_db_backend)
    wrapped = chain.chaindb.db.wrapped_db
    if not isinstance(wrapped, MemoryDB):
        raise ChainStateError(f"cannot save a chain kept in {type(wrapped).__name__}")
    store: dict[bytes, bytes] = wrapped.kv_store
    return store


def save_chain(chain: Any, path: Path) -> None:
    """Write the chain's database to `path` (atomically)."""
    store = _store(chain)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as fh:
        fh.write(MAGIC)
        for key, value in store.items():
            fh.write(_LENGTHS.pack(len(key), len(value)))
            fh.write(key)
            fh.write(value)
        fh.flush()
        os.fsync(fh.fileno())
    partial.replace(path)


def load_store(path: Path) -> dict[bytes, bytes]:
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        raise ChainStateError(f"{path} is not a saved py-evm chain")
    store: dict[bytes, bytes] = {}
    offset = len(MAGIC)
    while offset < len(data):
        if offset + _LENGTHS.size > len(data):
            raise ChainStateError(f"{path} is cut short")
        key_len, value_len = _LENGTHS.unpack_from(data, offset)
        offset += _LENGTHS.size
        end = offset + key_len + value_len
        if end > len(data):
            raise ChainStateError(f"{path} is cut short")
        store[data[offset : offset + key_len]] = data[offset + key_len : end]
        offset = end
    return store


def restore_chain(chain: Any, path: Path) -> Any:
    """A chain of `chain`'s class (same chain id and forks) on the database saved in `path`."""
    base = AtomicDB(MemoryDB(load_store(path)))
    return type(chain)(base)
