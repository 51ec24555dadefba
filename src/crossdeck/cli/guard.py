"""The top-level guard of the command line: no input ends in a traceback.

Commands turn the errors they expect into their exit codes (`handles_errors`); this guard, on
the `crossdeck` group itself, catches what is left, so a user always gets one line:

- an argument that is not UTF-8 text: refused before any command runs (exit 3);
- a `CrossdeckError` a command did not catch: its message and documented code;
- input that ended or was cut at a prompt (EOF, Ctrl-C; click's "Aborted!"): exit 11;
- a reader that closed the pipe (`crossdeck balances | head -2`): the output ends there,
  quietly, exit 0, as `head` asked for no more;
- anything else: `error: unexpected <type>: <message>` and exit 1. That is a bug to report,
  but the user sees what went wrong and the process ends cleanly.

click's own usage errors (exit 2) and `sys.exit` pass through untouched.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading
from typing import Any, NoReturn

import click

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.lazy_group import LazyGroup
from crossdeck.cli.option_types import check_argv

# how much of an unexpected error's message is shown
_MESSAGE_LIMIT = 300


def fail(message: str, code: ExitCode) -> None:
    """One line on stderr, then exit with `code` (safe for any text: never raises again)."""
    text = " ".join(message.split())
    try:
        click.echo(f"error: {text}", err=True)
    except (UnicodeEncodeError, ValueError, OSError):
        # stderr cannot take this text (or is closed): ASCII with escapes, or nothing
        try:
            click.echo(f"error: {text!a}", err=True)
        except (ValueError, OSError):
            pass
    sys.exit(int(code))


class GuardedGroup(LazyGroup):
    """`LazyGroup` with the guard around parsing and every command it runs."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The console script's entry (tests call `main()` instead): the process ends when it
        exits. Its objects are frozen out of the collector's reach first: the interpreter's
        last collections would otherwise walk everything every import made, ~0.2 s after the
        command's work is done. Then, once the command has left no thread of its own running,
        the process ends without the interpreter's teardown (`_end_now`)."""
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit as done:
            gc.freeze()
            try:  # the last buffered lines, while a closed pipe can still be caught
                sys.stdout.flush()
            except BrokenPipeError:
                _quiet_stdout()
            except (OSError, ValueError):
                pass
            if (done.code is None or isinstance(done.code, int)) and _only_daemons_left():
                _end_now(done.code or 0)
            raise

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            check_argv(args)
        except CrossdeckError as exc:
            fail(str(exc), exc.exit_code)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException):
            raise  # click's usage errors and clean exits: click prints and exits as usual
        except CrossdeckError as exc:
            fail(str(exc), exc.exit_code)
        except BrokenPipeError:
            _quiet_stdout()
            sys.exit(int(ExitCode.OK))
        except (click.Abort, EOFError, KeyboardInterrupt):
            fail("interrupted: no answer was given (input ended or was cut)", ExitCode.ABORTED)
        except Exception as exc:
            text = str(exc)
            if len(text) > _MESSAGE_LIMIT:
                text = text[:_MESSAGE_LIMIT] + "…"
            fail(f"unexpected {type(exc).__name__}: {text}", ExitCode.ERROR)
        return None


def _only_daemons_left() -> bool:
    """Whether every thread but this one is a daemon (which the interpreter does not wait
    for either): nothing the command started is still at work."""
    main = threading.main_thread()
    return threading.current_thread() is main and all(
        t.daemon for t in threading.enumerate() if t is not main
    )


def _end_now(code: int) -> NoReturn:
    """End the process as the interpreter would, less its teardown: the atexit handlers run
    (logging's last flush, the cached dataclass code written, temporary files removed) and
    both streams are flushed, then `os._exit`. What is skipped is freeing every object and
    module one by one, which frees nothing the system would not: ~30 ms of wall and ~55 ms of
    CPU at the end of a bridge (bench/status_socket_bench.py; as Instagram ended its workers).
    Files are closed by their `with` blocks and SQLite commits as it goes, so nothing is left
    in a buffer that teardown would have written."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: what is left in its buffer, flushed at exit, would raise the
    closed pipe's error again (and Python would print it)."""
    with contextlib.suppress(OSError, ValueError):  # stdout may have no file descriptor
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
