"""Shared building blocks of the wire models.

Every response model is lenient on input (unknown fields are kept, almost everything is optional,
camelCase on the wire and snake_case in Python) and exact on output: `to_wire()` gives back the
JSON it was parsed from, so nothing the service sent is lost when a model is logged, journalled
or forwarded.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
)
from pydantic.alias_generators import to_camel

_INT_TEXT = re.compile(r"^-?[0-9]+$")


def _int_from_wire(value: object) -> int:
    # bool is an int subclass, and a float may already have lost precision: refuse both.
    if isinstance(value, bool):
        raise ValueError("expected an integer string, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return int(value)
    raise ValueError(f"expected an integer string (digits only), got {value!r}")


IntStr = Annotated[
    int,
    BeforeValidator(_int_from_wire),
    PlainSerializer(str, return_type=str, when_used="always"),
]
"""An integer carried as a decimal string on the wire ("1000000"); an `int` in Python."""


class WireDateTime(datetime):
    """A datetime that remembers the exact text it was parsed from, so it serializes back as-is."""

    wire_text: str | None = None

    def __reduce_ex__(self, protocol: Any) -> Any:
        # datetime pickles without instance attributes; copies (model_copy(deep=True), pickle)
        # must keep the original text too.
        return (_rebuild_wire_datetime, (self.wire_text, datetime.isoformat(self)))


def _rebuild_wire_datetime(text: str | None, iso: str) -> datetime:
    if text is not None:
        return _datetime_from_wire(text)
    return datetime.fromisoformat(iso)


_DATETIME = TypeAdapter(datetime)


def _datetime_from_wire(value: object) -> datetime:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO 8601 timestamp string, got {value!r}")
    parsed = _DATETIME.validate_python(value)
    kept = WireDateTime(
        parsed.year,
        parsed.month,
        parsed.day,
        parsed.hour,
        parsed.minute,
        parsed.second,
        parsed.microsecond,
        tzinfo=parsed.tzinfo,
    )
    kept.wire_text = value
    return kept


def _datetime_to_wire(value: datetime) -> str:
    text = getattr(value, "wire_text", None)
    if text is not None:
        return text
    # The JavaScript toISOString form the service uses: millisecond precision, 'Z' for UTC.
    if value.tzinfo is not None and value.utcoffset() == UTC.utcoffset(None):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
            f"{value.microsecond // 1000:03d}Z"
        )
    return value.isoformat()


IsoDateTime = Annotated[
    datetime,
    PlainValidator(_datetime_from_wire),
    PlainSerializer(_datetime_to_wire, return_type=str, when_used="always"),
]
"""An ISO 8601 timestamp string on the wire; a `datetime` in Python."""


class WireModel(BaseModel):
    """Base of every response model: lenient in, exact out."""

    model_config = ConfigDict(
        extra="allow",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    @classmethod
    def from_wire(cls, data: Any) -> Self:
        """Parse decoded JSON (a dict) into the model."""
        return cls.model_validate(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        return cls.model_validate_json(text)

    def to_wire(self) -> dict[str, Any]:
        """The JSON form: camelCase keys, amounts as strings, only the fields that were given."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    @property
    def extra_fields(self) -> dict[str, Any]:
        """Fields the contract does not name, kept as they arrived."""
        return dict(self.__pydantic_extra__ or {})
