"""Errors of the venue client and of the venue pieces of a quote."""

from __future__ import annotations

from typing import Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode


class VenueError(CrossdeckError):
    """The venue answered, and the answer is a failure.

    `response` is the venue's own message (the `response` member of `{"status": "err", ...}`, or
    the body of a non-200 answer); `status` is the HTTP status.
    """

    exit_code = ExitCode.SERVICE_ERROR

    def __init__(
        self,
        message: str,
        *,
        status: int | None,
        response: Any = None,
        raw_body: bytes | str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.response = response
        self.raw_body = raw_body


class VenueMalformedResponseError(VenueError):
    """A 200 answer that is not JSON or not the expected shape."""


class VenueConnectionError(CrossdeckError):
    """No answer from the venue: refused connection or timeout."""

    exit_code = ExitCode.NETWORK

    def __init__(self, message: str, *, may_have_acted: bool = False) -> None:
        hint = (
            "the venue may have accepted it: check the venue balance and the request status "
            "before signing again"
            if may_have_acted
            else "check the venue URL and your network, then try again"
        )
        super().__init__(message, hint=hint)
        self.may_have_acted = may_have_acted


class VenueDataError(CrossdeckError):
    """Venue data inside a quote (typed data, action, currency address) is unusable.

    Raised before anything is signed, so nothing has happened yet.
    """

    exit_code = ExitCode.SERVICE_ERROR
