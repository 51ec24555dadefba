"""Errors of the history layer: a bad filter (before any request) and a cursor that loops."""

from __future__ import annotations

from crossdeck.api.errors import ServiceError
from crossdeck.errors import InputError


class FilterError(InputError):
    """A history filter is invalid. Raised before any request is sent.

    `field` is the wire name of the query parameter (`startTimestamp`), `option` the command-line
    spelling (`--start`), `reason` the problem without either name (for a form field's label).
    """

    def __init__(self, field: str, option: str, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"{option}: {reason}", hint=hint)
        self.field = field
        self.option = option
        self.reason = reason


class CursorLoopError(ServiceError):
    """The service handed back a `continuation` it had already given: following it would repeat
    pages forever, and stopping quietly could hide a gap, so paging ends with this error."""

    def __init__(self, cursor: str, pages: int) -> None:
        super().__init__(
            f"the service repeated a continuation cursor after {pages} page(s); the listing "
            "cannot be followed further",
            status=200,
            method="GET",
            path="/requests/v2",
            hint="try again later, or narrow the filters (e.g. --start/--end) to split the listing",
        )
        self.cursor = cursor
