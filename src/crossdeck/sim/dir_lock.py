"""One process at a time in a directory the world keeps: its state dir, the demo's home.

Two worlds on one state dir would both write its SQLite files and chain snapshots, each
believing its own copy (and a second `demo --fresh` would delete the first one's world under
it). An exclusive `flock` on a file in the directory is held for as long as the owner runs;
the kernel lets go of it when the process ends, however it ends, so a crash leaves no stale
lock. The file holds the owner's pid, for the message the next one gets.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

LOCK_FILE = ".crossdeck.lock"


class DirectoryBusy(RuntimeError):
    """Another process holds the directory (the message says which, and what to do)."""


class DirectoryLock:
    """Held from `acquire()` until `release()` (or the process's end)."""

    def __init__(self, directory: Path, what: str) -> None:
        self.directory = directory
        self.what = what
        """Who holds it, in words ("a demo world", "crossdeck demo"), for the message."""
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock, or raise `DirectoryBusy` naming the pid that holds it."""
        try:
            import fcntl
        except ImportError:  # Windows: no flock; the directory goes unguarded there
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        handle = (self.directory / LOCK_FILE).open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise DirectoryBusy(
                f"{self.what} is already running on {self.directory} (pid {holder}): stop "
                "it first, or give this one a directory of its own (--state-dir)"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing lets go of the flock
            self._file = None
