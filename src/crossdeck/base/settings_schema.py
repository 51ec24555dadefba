"""Typed settings sections (frozen dataclasses) and the small validator that builds them.

The settings are read on every start, before the app's first frame, so they are plain classes
checked here rather than pydantic models (whose import and class building cost about a sixth of
the first frame). A section is a frozen, keyword-only dataclass (changed with
`dataclasses.replace`) whose fields carry their type and, through `setting(...)`, their default
and bounds; `parse(Section, data)` builds one from the parsed TOML, JSON and environment
layers:

- keys that are no field are refused (or, with `extra="ignore"`, left out);
- values are coerced as a config file and environment variables need: integers, numbers and
  flags from strings (`"5"`, `"0.5"`, `"true"`), `Path` from a string, `Literal` choices,
  `X | None`, `dict[K, V]` (keys coerced too: `rpc.8453`), nested sections from tables,
  `Secret` from a string, and `HttpUrl` (an http(s) URL, its trailing slash dropped);
- bounds (`ge`, `gt`, `le`, `min_length`, `pattern`) are checked after coercion;
- every problem is reported at once, by dotted path (`service.url`, `rpc.8453`), and no
  string value is ever repeated in a message: a misplaced one could be a key.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from crossdeck.base.secret import MASK, Secret

T = TypeVar("T")

_BOUNDS = "crossdeck.bounds"


@dataclasses.dataclass(frozen=True, slots=True)
class Bounds:
    """What a value must also be, once it has its type."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    min_length: int | None = None
    pattern: str | None = None

    def problem(self, value: object) -> str | None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if self.ge is not None and not value >= self.ge:
                return f"must be >= {self.ge:g}"
            if self.gt is not None and not value > self.gt:
                return f"must be > {self.gt:g}"
            if self.le is not None and not value <= self.le:
                return f"must be <= {self.le:g}"
        if isinstance(value, str):
            if self.min_length is not None and len(value) < self.min_length:
                return f"must be at least {self.min_length} character(s) long"
            if self.pattern is not None and not re.search(self.pattern, value):
                return f"must match {self.pattern}"
        return None


def setting(
    default: Any = dataclasses.MISSING,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    min_length: int | None = None,
    pattern: str | None = None,
) -> Any:
    """A field with a default and the bounds its value must keep (a field with a default
    factory and no bounds is a plain `dataclasses.field`)."""
    bounds = Bounds(ge, gt, le, min_length, pattern)
    metadata = {_BOUNDS: bounds} if bounds != Bounds() else {}
    return dataclasses.field(default=default, metadata=metadata)


class _HttpUrlCheck:
    """The `HttpUrl` check: an http:// or https:// URL, stripped, its trailing slash dropped."""

    def __call__(self, value: str) -> str:
        value = value.strip()
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value.rstrip("/")


HttpUrl = typing.Annotated[str, _HttpUrlCheck()]
"""A str field or dict value holding an http(s) URL."""


class SettingsError(ValueError):
    """The data does not make the section; `problems` lists (dotted path, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__(self.summary())

    def summary(self, root: str = "(top level)") -> str:
        """'path: message; ...' for every problem; `root` names a problem of the whole."""
        return "; ".join(f"{path or root}: {message}" for path, message in self.problems)


def parse(
    cls: type[T], data: object, *, extra: Literal["refuse", "ignore"] = "refuse", path: str = ""
) -> T:
    """`cls` (a section's dataclass) built from `data` (a mapping of raw values), or a
    `SettingsError` naming every problem (under `path`, the section's own, if it has one)."""
    problems: list[tuple[str, str]] = []
    built = _Parser(extra, problems).value(cls, data, path)
    if problems:
        raise SettingsError(problems)
    return typing.cast(T, built)


def field_types(cls: type[Any]) -> dict[str, Any]:
    """A section's fields and their resolved types (`Annotated` kept)."""
    return dict(_fields(cls)[1])


def json_ready(value: object) -> Any:
    """A section (or any value of one) as JSON-ready data: paths as strings, dict keys as
    strings, a secret masked."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_ready(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Secret):
        return MASK
    return value


_Fields = tuple[dict[str, dataclasses.Field[Any]], dict[str, Any]]
_FIELDS: dict[type[Any], _Fields] = {}


def _fields(cls: type[Any]) -> _Fields:
    """A section's fields and their resolved types, read once per class."""
    known = _FIELDS.get(cls)
    if known is None:
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        hints = typing.get_type_hints(cls, include_extras=True)
        known = _FIELDS[cls] = (fields, {name: hints[name] for name in fields})
    return known


_INVALID = object()
_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})


def _shown(value: object) -> str:
    """A wrong value in words: numbers and flags as they are, anything else by its kind only
    (a string in the wrong place could be a key)."""
    if isinstance(value, bool | int | float):
        return f" (got {value!r})"
    if isinstance(value, str):
        return " (got a string)"
    if isinstance(value, Mapping):
        return " (got a table)"
    if isinstance(value, list | tuple):
        return " (got a list)"
    return f" (got {type(value).__name__})"


_LONGEST_KEY_SHOWN = 32
_EXTRA_KEY = "is not a known key here (extra keys are not permitted)"


def _join(path: str, key: object) -> str:
    """`path.key`; a key longer than any setting's name (a value pasted as a key, perhaps a
    secret) is named by its length only."""
    name = str(key)
    if len(name) > _LONGEST_KEY_SHOWN:
        name = f"<a key of {len(name)} characters>"
    return f"{path}.{name}" if path else name


class _Parser:
    def __init__(self, extra: str, problems: list[tuple[str, str]]) -> None:
        self.extra = extra
        self.problems = problems

    def fail(self, path: str, message: str) -> object:
        self.problems.append((path, message))
        return _INVALID

    def value(self, tp: Any, raw: object, path: str) -> object:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            base, *checks = typing.get_args(tp)
            got = self.value(base, raw, path)
            for check in checks:
                if got is _INVALID or not callable(check):
                    continue
                try:
                    got = check(got)
                except ValueError as exc:
                    return self.fail(path, str(exc))
            return got
        if origin in (types.UnionType, typing.Union):
            options = [arg for arg in typing.get_args(tp) if arg is not type(None)]
            if raw is None and len(options) < len(typing.get_args(tp)):
                return None
            if len(options) == 1:
                return self.value(options[0], raw, path)
            return self._first_fit(options, raw, path)
        if origin is Literal:
            choices = typing.get_args(tp)
            if raw in choices:
                return raw
            words = ", ".join(repr(choice) for choice in choices)
            return self.fail(path, f"must be one of {words}")
        if origin is dict:
            return self._table(tp, raw, path)
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            return self._section(tp, raw, path)
        if tp is Any:
            return raw
        return self._scalar(tp, raw, path)

    def _first_fit(self, options: list[Any], raw: object, path: str) -> object:
        for option in options:
            trial = _Parser(self.extra, [])
            got = trial.value(option, raw, path)
            if not trial.problems:
                return got
        return self.fail(path, "is none of the accepted kinds" + _shown(raw))

    def _table(self, tp: Any, raw: object, path: str) -> object:
        if not isinstance(raw, Mapping):
            return self.fail(path, "must be a table" + _shown(raw))
        key_type, value_type = typing.get_args(tp)
        table: dict[Any, Any] = {}
        for key, item in raw.items():
            where = _join(path, key)
            got_key = self.value(key_type, key, where)
            got = self.value(value_type, item, where)
            if got_key is not _INVALID and got is not _INVALID:
                table[got_key] = got
        return table

    def _section(self, cls: type[Any], raw: object, path: str) -> object:
        if isinstance(raw, cls):
            return raw
        if not isinstance(raw, Mapping):
            return self.fail(path, "must be a table" + _shown(raw))
        fields, hints = _fields(cls)
        values: dict[str, Any] = {}
        before = len(self.problems)
        for key in raw:
            if key not in fields and self.extra == "refuse":
                self.fail(_join(path, key), _EXTRA_KEY)
        for name, field in fields.items():
            where = _join(path, name)
            if name not in raw:
                missing = dataclasses.MISSING
                if field.default is missing and field.default_factory is missing:
                    self.fail(where, "is required")
                continue
            got = self.value(hints[name], raw[name], where)
            if got is _INVALID:
                continue
            bounds = field.metadata.get(_BOUNDS)
            problem = bounds.problem(got) if bounds is not None else None
            if problem is not None:
                self.fail(where, problem + _shown(got) if not isinstance(got, str) else problem)
                continue
            values[name] = got
        if len(self.problems) > before:
            return _INVALID
        return cls(**values)

    def _scalar(self, tp: Any, raw: object, path: str) -> object:
        if tp is bool:
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, int) and raw in (0, 1):
                return bool(raw)
            if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
                return raw.strip().lower() in _TRUE
            return self.fail(path, "must be true or false" + _shown(raw))
        if tp is int:
            if isinstance(raw, int) and not isinstance(raw, bool):
                return raw
            if isinstance(raw, float) and raw.is_integer():
                return int(raw)
            if isinstance(raw, str):
                try:
                    return int(raw)
                except ValueError:
                    pass
            return self.fail(path, "must be a whole number" + _shown(raw))
        if tp is float:
            number: float | None = None
            if isinstance(raw, int | float) and not isinstance(raw, bool):
                number = float(raw)
            elif isinstance(raw, str):
                try:
                    number = float(raw)
                except ValueError:
                    number = None
            if number is None or not math.isfinite(number):
                return self.fail(path, "must be a finite number" + _shown(raw))
            return number
        if tp is str:
            if isinstance(raw, str):
                return raw
            return self.fail(path, "must be a string" + _shown(raw))
        if tp is Path:
            if isinstance(raw, str | Path):
                return Path(raw)
            return self.fail(path, "must be a path (a string)" + _shown(raw))
        if tp is Secret:
            if isinstance(raw, Secret):
                return raw
            if isinstance(raw, str):
                return Secret(raw)
            return self.fail(path, "must be a string" + _shown(raw))
        raise TypeError(f"settings of type {tp!r} are not supported")
