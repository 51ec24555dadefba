"""Every question the command line asks, in one place, so each behaves the same when nobody can
answer: standard input closed (`<&-`, a daemon) or ended (EOF, Ctrl-D) is `NoAnswer`, exit 11
(ABORTED), with a hint naming the option that does without the question. It was a traceback
("input(): lost sys.stdin") or click's "Aborted!" with exit 1.
"""

from __future__ import annotations

import sys

import click

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.exitcodes import ExitCode


class NoAnswer(CrossdeckError):
    """A question could not be answered: standard input is closed or ended."""

    exit_code = ExitCode.ABORTED


def stdin_open() -> bool:
    stream = sys.stdin
    return stream is not None and not getattr(stream, "closed", True)


def _no_answer(question: str, why: str, instead: str | None) -> NoAnswer:
    return NoAnswer(
        f"no answer to {question.rstrip('?: ')!r}: {why}; nothing more was done",
        hint=f"pass {instead} to go without this question" if instead else None,
    )


def _not_text(question: str) -> InputError:
    return InputError(f"the answer to {question.rstrip('?: ')!r} is not UTF-8 text")


def confirm(question: str, *, default: bool = False, instead: str | None = None) -> bool:
    """Yes or no on stderr. `instead` names what to pass to avoid the question (e.g. --yes)."""
    if not stdin_open():
        raise _no_answer(question, "standard input is closed", instead)
    try:
        return click.confirm(question, default=default, err=True)
    except (click.Abort, EOFError):
        click.echo(err=True)  # end the prompt's line
        raise _no_answer(question, "standard input ended", instead) from None
    except UnicodeDecodeError:
        raise _not_text(question) from None


def hidden(question: str, *, instead: str | None = None) -> str:
    """A secret typed at a hidden prompt (not echoed)."""
    if not stdin_open():
        raise _no_answer(question, "standard input is closed", instead)
    try:
        value: str = click.prompt(question, hide_input=True, err=True)
    except (click.Abort, EOFError):
        click.echo(err=True)
        raise _no_answer(question, "standard input ended", instead) from None
    except UnicodeDecodeError:
        raise _not_text(question) from None
    return value


def read_line(what: str) -> str:
    """The first line of standard input (`--stdin` options), without its line end."""
    if not stdin_open():
        raise _no_answer(what, "standard input is closed", None)
    try:
        return sys.stdin.readline().strip()
    except UnicodeDecodeError:
        raise _not_text(what) from None
