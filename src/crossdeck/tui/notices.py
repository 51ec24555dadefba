"""Errors as notifications: what went wrong and what to do, in the user's words.

Every layer raises `CrossdeckError` subclasses whose message and hint are written for users; this
module turns those (and anything unexpected) into a title, a message and a severity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from crossdeck.base.errors import CrossdeckError, InputError

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class Notice:
    title: str
    message: str
    severity: Severity
    timeout: float


def describe_error(error: BaseException, doing: str | None = None) -> Notice:
    """The notification for a failed action (`doing`: what the user was doing, e.g. 'Quote')."""
    title = f"{doing} failed" if doing else "Something failed"
    if isinstance(error, CrossdeckError):
        message = error.message
        if error.hint:
            message = f"{message}\n→ {error.hint}"
        severity: Severity = "warning" if isinstance(error, InputError) else "error"
        return Notice(title, message, severity, timeout=12.0)
    # Not one of ours: say so plainly, with the type, so it can be reported.
    text = str(error) or type(error).__name__
    return Notice(
        title,
        f"unexpected {type(error).__name__}: {text}\n→ try again; if it keeps happening, "
        "report it with the steps that led here",
        "error",
        timeout=20.0,
    )
