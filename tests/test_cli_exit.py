"""How the console script ends (crossdeck.cli.guard): without the interpreter's teardown once
the command has left no thread of its own, with what atexit handlers and buffered streams hold
still written and the exit code kept; as usual while a thread of the command is still at work."""

from __future__ import annotations

import subprocess
import sys
import threading

from crossdeck.cli.guard import _only_daemons_left

_SCRIPT = """
import atexit, sys, threading, time
from crossdeck.cli import guard

atexit.register(lambda: print("atexit ran", flush=False))
sys.stdout.write("buffered, not flushed")
if sys.argv[1] == "worker":
    # a thread of the command's own still at work: the interpreter waits for it as usual
    threading.Thread(target=lambda: (time.sleep(0.3), print(" worker done"))).start()
try:
    raise SystemExit(int(sys.argv[2]))
except SystemExit as done:
    if guard._only_daemons_left():
        guard._end_now(done.code)
    print(" normal exit")
    raise
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _SCRIPT, *args], capture_output=True, text=True, timeout=60
    )


def test_a_finished_command_ends_at_once_with_its_output_and_code() -> None:
    done = _run("alone", "7")
    assert done.returncode == 7
    assert done.stdout == "buffered, not flushedatexit ran\n"
    assert done.stderr == ""


def test_a_command_whose_thread_still_works_ends_the_usual_way() -> None:
    done = _run("worker", "3")
    assert done.returncode == 3
    assert done.stdout.startswith("buffered, not flushed normal exit")
    assert " worker done" in done.stdout and done.stdout.endswith("atexit ran\n")


def test_a_thread_of_the_commands_own_counts_a_daemon_does_not() -> None:
    """(Whether this process has none left depends on the tests before: the subprocesses
    above show that case.)"""
    before = _only_daemons_left()
    stop = threading.Event()
    daemon = threading.Thread(target=stop.wait, daemon=True)
    worker = threading.Thread(target=stop.wait)
    daemon.start()
    try:
        assert _only_daemons_left() == before
        worker.start()
        assert not _only_daemons_left()
    finally:
        stop.set()
        worker.join()
        daemon.join()
