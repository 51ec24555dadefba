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
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

_INT_TEXT = re.compile(r"^-?[0-9]+$")


def new_list() -> list[Any]:
    """A new empty list, for `Field(default_factory=new_list)`. pydantic reads each factory's
    signature as it defines the model, and `list`'s own is parsed from its text every time
    (~1 ms each, a tenth of what a bridge's models took to define); a function's is not."""
    return []


def new_dict() -> dict[str, Any]:
    """A new empty dict, for `Field(default_factory=new_dict)` (see `new_list`)."""
    return {}


class WireInt(int):
    """An int that remembers its wire form (a digit string, or a JSON number), so that a quote
    written back out carries `"gas": "21064"` or `"gas": 21064` exactly as the service sent it."""

    wire_form: str | int | None = None

    def __reduce_ex__(self, protocol: Any) -> Any:
        # int pickles without instance attributes; copies must keep the wire form too
        return (_rebuild_wire_int, (int(self), self.wire_form))


def _rebuild_wire_int(value: int, form: str | int | None) -> int:
    kept = WireInt(value)
    kept.wire_form = form
    return kept


def _int_from_wire(value: object, info: ValidationInfo) -> int:
    # bool is an int subclass, and a float may already have lost precision: refuse both.
    if isinstance(value, bool):
        raise ValueError("expected an integer string, got a boolean")
    if isinstance(value, WireInt):
        return value
    if isinstance(value, int):
        # a JSON number stays a number only in an answer being read (see WireModel); an int
        # given in Python, or in a request body, goes out as the string the contract uses
        return _rebuild_wire_int(value, value) if _reading_wire(info) else value
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return _rebuild_wire_int(int(value), value)
    raise ValueError(f"expected an integer string (digits only), got {value!r}")


_WIRE_CONTEXT = {"crossdeck_wire": True}


def _reading_wire(info: ValidationInfo) -> bool:
    context = info.context
    return isinstance(context, dict) and bool(context.get("crossdeck_wire"))


def _int_to_wire(value: int) -> str | int:
    form: object = getattr(value, "wire_form", None)
    if form is not None and isinstance(form, str | int):
        return form
    return str(value)


IntStr = Annotated[
    int,
    PlainValidator(_int_from_wire),
    PlainSerializer(_int_to_wire, return_type=str | int, when_used="always"),
]
"""An integer carried as a decimal string on the wire ("1000000"); an `int` in Python. Sent
back out in the form it came in (the same string, or a JSON number when the service sent one);
an int set in Python goes out as a string."""


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
    text: str | None = getattr(value, "wire_text", None)  # set by the parser: the wire's text
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
        defer_build=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Self:
        """Decoded JSON is an answer being read: integers keep their wire form (IntStr)."""
        if options.get("context") is None:
            options["context"] = _WIRE_CONTEXT
        return super().model_validate(obj, **options)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **options: Any) -> Self:
        if options.get("context") is None:
            options["context"] = _WIRE_CONTEXT
        return super().model_validate_json(json_data, **options)

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


class LenientWireModel(WireModel):
    """A wire model where one field of an unexpected form does not fail the whole object.

    For what is only shown, never acted on (history records): a field whose value does not fit
    its type is kept aside untouched, reads as unset, and goes back out in its place; so one odd
    field in one record never drops a page. Quotes are NOT lenient: a guard must never read a
    field that failed to parse as "absent"."""

    _unread: dict[str, Any] = PrivateAttr(default_factory=dict)
    _order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _keep_what_does_not_fit(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(data)
        except ValidationError as exc:
            if not isinstance(data, dict):
                raise
            bad = {err["loc"][0] for err in exc.errors() if err.get("loc")}
            if not bad or not bad <= set(data):
                raise
            model = handler({k: v for k, v in data.items() if k not in bad})
            model._unread = {k: data[k] for k in data if k in bad}
            model._order = tuple(data)
            return model

    @model_serializer(mode="wrap")
    def _put_back_what_did_not_fit(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if not self._unread or not isinstance(out, dict):
            return out
        merged = {**out, **self._unread}
        order = {key: index for index, key in enumerate(self._order)}
        return dict(sorted(merged.items(), key=lambda kv: order.get(kv[0], len(order))))

    @property
    def unread_fields(self) -> dict[str, Any]:
        """Fields whose value did not fit their type, as they arrived."""
        return dict(self._unread)
