"""The base of every error a user can meet.

Each layer defines its own subclasses (with a message that says what to do); the CLI maps them
to exit codes through `exit_code`, and the app turns them into notifications.
"""

from __future__ import annotations

from crossdeck.base.exitcodes import ExitCode


class CrossdeckError(Exception):
    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class InputError(CrossdeckError):
    """A value the user gave is invalid; raised before any request is sent."""

    exit_code = ExitCode.INVALID_INPUT
