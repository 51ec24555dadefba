"""Errors of the history layer: a bad filter (before any request) and a cursor that loops."""

from __future__ import annotations

from crossdeck.api.errors import CursorLoopError
from crossdeck.base.errors import InputError

# the one pagination loop (crossdeck.api.pages) raises it; history's callers know it by this name
__all__ = ["CursorLoopError", "FilterError"]


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
