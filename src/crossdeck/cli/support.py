"""Helpers every command shares: error-to-exit-code mapping and JSON output."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import click

from crossdeck.errors import CrossdeckError
from crossdeck.exitcodes import ExitCode

P = ParamSpec("P")
R = TypeVar("R")


def handles_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn a `CrossdeckError` into a one-line message on stderr and its exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except CrossdeckError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(int(ExitCode.ABORTED))

    return wrapper


def print_json(data: Any) -> None:
    """One JSON document (or one JSON line of a stream) on stdout."""
    click.echo(json.dumps(data, separators=(",", ":"), default=str))
