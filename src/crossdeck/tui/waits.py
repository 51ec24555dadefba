"""A time limit on every network wait of the app's screens.

The clients retry a refused or dropped connection with backoff, which is right for a command
that runs once but leaves a screen saying "Reading the venue…" for a minute and more when the
machine is offline. A screen's worker waits through `within`: past the limit the wait ends with
an error that says what was waited for and what to do, and the screen shows it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.config import Settings

# long enough for a slow answer and a retry or two, short enough that nobody waits in doubt
NETWORK_WAIT_SECONDS = 20.0

T = TypeVar("T")


class WaitTimedOut(CrossdeckError):
    exit_code = ExitCode.NETWORK


async def within(
    awaitable: Awaitable[T],
    *,
    what: str,
    where: str,
    retry: str,
    seconds: float | None = None,
) -> T:
    """`awaitable`'s result, or WaitTimedOut after `seconds` (default NETWORK_WAIT_SECONDS):
    '`what` did not answer within 20 s', with a hint naming `where` (the URL or setting) and
    the key that tries again (`retry`)."""
    if seconds is None:
        seconds = NETWORK_WAIT_SECONDS  # read now: a test may shorten it
    try:
        async with asyncio.timeout(seconds):
            return await awaitable
    except TimeoutError:
        raise WaitTimedOut(
            f"{what} did not answer within {seconds:g} s",
            hint=f"check the network and {where}, then press {retry} to try again",
        ) from None


def service_at(settings: Settings) -> str:
    return f"the service URL {settings.service.url} (Settings, F6)"


def venue_at(settings: Settings) -> str:
    return f"the venue URL {settings.venue.url} (Settings, F6)"
