"""Helpers every command shares: error-to-exit-code mapping, JSON output, and the service client
a command reads with (built by the composition root, `crossdeck.compose`)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.exitcodes import ExitCode

if TYPE_CHECKING:
    from crossdeck.api.client import ServiceClient
    from crossdeck.config import Settings

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


def service_client(settings: Settings) -> ServiceClient:
    """The service's client for a command. A key the keyring cannot give is a warning, not an
    error: the key only raises rate limits (and unlocks authenticated data); reads work without."""
    from crossdeck import compose

    api_key, problem = compose.read_api_key(settings)
    if problem is not None:
        click.echo(f"warning: continuing without an API key ({problem})", err=True)
    return compose.service_client(settings, api_key)


def deprecation_notices(client: ServiceClient, settings: Settings) -> list[dict[str, Any]]:
    """What the retiring endpoints this client asked said about their end, for `--json`; each
    also on stderr, once a day per endpoint (`api.deprecation_log`)."""
    from crossdeck.api.deprecation_log import due_today

    notices = list(client.deprecations.values())
    for notice in notices:
        if due_today(settings.data_dir, notice):
            click.echo(f"notice: {notice.line()}", err=True)
    return [notice.to_json() for notice in notices]


def wallet_address(settings: Settings, what: str) -> str:
    """The address `what` defaults to: the profile's wallet, else an input error saying
    what to pass."""
    from crossdeck.credentials import resolve_wallet_address

    address = resolve_wallet_address(settings)
    if not address and settings.signer.kind == "browser":
        raise InputError(
            f"no {what} given, and the browser wallet's address is known only once it connects",
            hint=f"pass {what if what.startswith('--') else what.upper()}; `bridge`, `resume` "
            "and `venue withdraw` connect the wallet first",
        )
    if not address:
        raise InputError(
            f"no {what} given and profile {settings.profile!r} has no wallet",
            hint=f"pass {what if what.startswith('--') else what.upper()} "
            "or run `crossdeck wallet import`",
        )
    return address
