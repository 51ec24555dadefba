"""The service's error body (facts: {message, errorCode, errorData?}) and field errors."""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationError

from crossdeck.models.base import WireModel
from crossdeck.models.field_errors import FieldInputError as FieldInputError  # re-exported

TRANSIENT_ERROR_CODES = frozenset(
    {"PRICE_FETCH_FAILED", "SERVICE_UNAVAILABLE", "REQUEST_TIMED_OUT", "RPC_HTTP_ERROR"}
)


class ErrorBody(WireModel):
    """An error answer. The public service names the code `errorCode`, or `code` (older
    answers), or `error` (the execute endpoints); `errorData` is a string or an object. Every
    member is read as whatever JSON came, so an odd one never hides the others."""

    message: Any = None
    error_code_field: Any = Field(default=None, alias="errorCode")
    code: Any = None
    error: Any = None
    error_data: Any = None

    @property
    def error_code(self) -> str | None:
        """The code, from whichever member carries it (errorCode first)."""
        for value in (self.error_code_field, self.code, self.error):
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None

    @property
    def message_text(self) -> str | None:
        return self.message if isinstance(self.message, str) and self.message else None

    @property
    def is_transient(self) -> bool:
        return self.error_code in TRANSIENT_ERROR_CODES


class RuleViolation(ValueError):
    """Raised inside a validator for a rule that involves several fields; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def field_errors(exc: ValidationError, model: type[Any]) -> list[tuple[str, str]]:
    """(wire field name, readable message) for each error of a pydantic ValidationError."""
    out: list[tuple[str, str]] = []
    fields = getattr(model, "model_fields", {})
    for err in exc.errors():
        ctx = err.get("ctx") or {}
        cause = ctx.get("error")
        if isinstance(cause, RuleViolation):
            out.append((cause.field, cause.message))
            continue
        loc = err.get("loc") or ()
        head = loc[0] if loc else ""
        if isinstance(head, str) and head in fields:
            info = fields[head]
            head = info.alias or head
        path = ".".join(str(p) for p in (head, *loc[1:]) if p != "") or "body"
        message = err.get("msg", "invalid value")
        if isinstance(cause, ValueError):
            message = str(cause)
        elif err.get("type") == "extra_forbidden":
            message = "is not a known field"
        elif err.get("type") == "missing":
            message = "is required"
        elif str(err.get("type", "")).endswith("_type") and _plain_scalar(err.get("input")):
            # only numbers and flags are echoed: a mistyped string could be a secret
            message = f"{message} (got {err['input']!r})"
        out.append((path, message))
    return out


def error_summary(exc: ValidationError, *, limit: int | None = 3, root: str = "(root)") -> str:
    """'where: what; ...' for the first `limit` errors (all for None) of a ValidationError and
    '(+N more)'; `root` names an error of the whole value. For answers, files and payloads a
    user reads about; the input values are left out (a mistyped one could be a secret)."""
    errors = exc.errors(include_url=False, include_input=False)
    shown = errors if limit is None else errors[:limit]
    parts = []
    for error in shown:
        where = ".".join(str(p) for p in error["loc"]) or root
        parts.append(f"{where}: {error['msg'].removeprefix('Value error, ')}")
    more = len(errors) - len(shown)
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def raise_field_error(
    exc: ValidationError, model: type[Any], error_cls: type[FieldInputError]
) -> None:
    problems = field_errors(exc, model)
    field, _ = problems[0]
    text = "; ".join(f"{name}: {msg}" for name, msg in problems)
    raise error_cls(field, text, fields=[name for name, _ in problems]) from None


def _plain_scalar(value: object) -> bool:
    return isinstance(value, bool | int | float)
