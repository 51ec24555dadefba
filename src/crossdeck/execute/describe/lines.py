"""The describer's output: `Line` (label, value, the raw figure, a kind) grouped in `Section`s,
and the text forms every family shares (the label column, times, JSON as a person reads it).
Nothing here formats for a screen: the CLI prints `text_lines`, the app renders the lines."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from crossdeck.models.display import local_time

LABEL_WIDTH = 10

LineKind = Literal["text", "amount", "address", "hash", "calldata", "json", "time", "warning"]


@dataclass(frozen=True)
class Line:
    """One fact: `value` is the whole human text (amounts with their raw integer in it);
    `raw` the exact wire value it was read from, when there is one (an integer, an address,
    calldata, a JSON text); `kind` says what the value is, for a renderer to style it."""

    label: str
    value: str
    raw: str | None = None
    kind: LineKind = "text"

    def parts(self, width: int = LABEL_WIDTH) -> tuple[str, str]:
        """The label padded to `width`, and the value with its further lines (JSON) indented
        to stand under its first one."""
        head = f"{self.label:<{width}} " if self.label else ""
        first, *rest = self.value.splitlines() or [""]
        pad = " " * len(head)
        return head, "\n".join([first, *(pad + more for more in rest)]).rstrip()

    def text(self, width: int = LABEL_WIDTH) -> str:
        """'label     value', a multi-line value (JSON) indented under its first line."""
        head, value = self.parts(width)
        return (head + value).rstrip()

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "raw": self.raw, "kind": self.kind}


@dataclass(frozen=True)
class Section:
    """A titled group of lines (the quote's fees, a step, ...)."""

    title: str
    lines: tuple[Line, ...]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "lines": [line.to_json() for line in self.lines]}


def label_width(lines: Iterable[Line], most: int = 18) -> int:
    """The label column's width for `lines`: their longest label, up to `most`."""
    return min(max((len(line.label) for line in lines), default=0), most)


def text_lines(sections: Iterable[Section], indent: str = "  ") -> list[str]:
    """Sections as plain text lines: each title, then its lines indented, labels in a column."""
    out: list[str] = []
    for section in sections:
        out.append(section.title)
        width = label_width(section.lines)
        for line in section.lines:
            out.extend(indent + part for part in line.text(width).splitlines())
    return out


# -- figures (written as models.display writes them) -------------------------------------------


def time_line(label: str, millis: int | None) -> Line:
    if millis is None:
        return Line(label, "-", kind="time")
    return Line(label, f"{local_time(millis)} ({millis})", raw=str(millis), kind="time")


def json_text(value: Any) -> str:
    """JSON as a person reads it (keys in the order sent, two-space indent, no ASCII escapes)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def json_inline(value: Any) -> str:
    """JSON on one line, as a raw value or inside a sentence."""
    return json.dumps(value, ensure_ascii=False, default=str)
