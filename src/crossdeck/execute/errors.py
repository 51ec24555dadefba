"""Errors of executing a quote. Each maps to the exit code a script branches on.

(A guard's refusal, `GuardRefused`, lives with the guards' results in `execute.guards.base`.)
"""

from __future__ import annotations

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode


class ExecutionError(CrossdeckError):
    """A step could not be carried out (a revert, a refused post, an unusable item)."""

    exit_code = ExitCode.FAILED


class Declined(CrossdeckError):
    """The user declined a confirmation."""

    exit_code = ExitCode.ABORTED

    def __init__(self, what: str) -> None:
        super().__init__(f"declined: {what}", hint="nothing more was signed or sent")


class AlreadyStarted(CrossdeckError):
    """The journal already holds a run of this request: running it again could send twice."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(self, request_id: str) -> None:
        super().__init__(
            f"request {request_id} was already started on this machine",
            hint=f"continue it with `crossdeck resume {request_id}`",
        )


class NothingToResume(CrossdeckError):
    exit_code = ExitCode.INVALID_INPUT


class NonceTakenError(ExecutionError):
    """A journalled transaction's nonce was used by another transaction: it can never land."""


class TrackingTimeout(CrossdeckError):
    """Tracking gave up before the request reached a final status (the request goes on)."""

    exit_code = ExitCode.TIMEOUT
