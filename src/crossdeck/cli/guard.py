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

import contextlib
import gc
import os
import sys
from typing import Any

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
        command's work is done. atexit handlers and stream flushes run as usual."""
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit:
            gc.freeze()
            try:  # the last buffered lines, while a closed pipe can still be caught
                sys.stdout.flush()
            except BrokenPipeError:
                _quiet_stdout()
            except (OSError, ValueError):
                pass
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


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: what is left in its buffer, flushed at exit, would raise the
    closed pipe's error again (and Python would print it)."""
    with contextlib.suppress(OSError, ValueError):  # stdout may have no file descriptor
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
