"""Read a Textual SVG screenshot back as the lines of text it shows, and find the amounts,
balances and hashes that a narrow column cut with an ellipsis.

Textual writes each run of one style as a `<text>` element at x = column * CELL_WIDTH, clipped
to its line (`clip-path="url(#…-line-N)"`); spaces are `&#160;`. Placing every run at its
column rebuilds the terminal's lines.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

CELL_WIDTH = 12.2  # pixels per terminal column in Textual's SVG export

_RUN = re.compile(
    r'<text class="[^"]*" x="(?P<x>[\d.]+)" y="[\d.]+" textLength="[\d.]+" '
    r'clip-path="url\(#[^"]*-line-(?P<line>\d+)\)">(?P<text>[^<]*)</text>'
)

# a number or a 0x hex string that ends in "…" where more of it should follow: "500…",
# "1,234.5…", "0x8f3a…" at the end of a cell. The deliberate short forms keep both ends
# ("0xf39F…2266": hex right after the ellipsis) and are not matched, nor is a placeholder's
# "0x…" (no digit of a value before the ellipsis).
_CUT = re.compile(r"(?<![\w.$])(?:0x[0-9a-fA-F]+|\$?\d[\d,._]*)…(?![0-9a-fA-F])")


def svg_lines(path: Path) -> list[str]:
    """The screen's lines, as the SVG draws them (trailing spaces removed)."""
    lines: dict[int, list[str]] = {}
    for match in _RUN.finditer(path.read_text()):
        row = lines.setdefault(int(match["line"]), [])
        column = round(float(match["x"]) / CELL_WIDTH)
        text = html.unescape(match["text"]).replace("\xa0", " ")
        if len(row) < column:
            row.extend(" " * (column - len(row)))
        row[column : column + len(text)] = list(text)
    return ["".join(lines.get(n, [])).rstrip() for n in range(max(lines, default=-1) + 1)]


def cut_values(lines: list[str]) -> list[str]:
    """Each line that shows a number or hash cut short by an ellipsis, with the cut value."""
    found = []
    for number, line in enumerate(lines):
        for match in _CUT.finditer(line):
            found.append(f"line {number + 1}: {match.group()!r} in {line.strip()!r}")
    return found
