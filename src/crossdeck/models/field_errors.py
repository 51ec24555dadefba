"""Errors that name the request field a value failed on, kept free of pydantic: the app's
first screen (the Quote form) raises them before any wire model is loaded."""

from __future__ import annotations

from crossdeck.base.errors import InputError


class FieldInputError(InputError):
    """A value for a request body or query failed validation. `field` is the wire name."""

    def __init__(
        self, field: str, message: str, *, fields: list[str] | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.field = field
        self.fields = fields or [field]


class QuoteRequestError(FieldInputError):
    """The quote body is invalid; `field` names the offending field (wire name)."""
