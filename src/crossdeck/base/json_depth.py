"""How deep a JSON text nests, measured before it is parsed.

Every JSON document crossdeck takes from outside (webhook bodies, world files, `--extra` values)
is checked here first: `json.loads` recurses in C once per level, and in a process that imported
eth-account, whose py_ecc raises the recursion limit to 100,000, a deeply nested document
overflowed the C stack. It imports nothing of crossdeck, so the settings can use it without
loading the models.
"""

from __future__ import annotations

import re
from itertools import accumulate

MAX_NESTING = 64
"""Deepest array/object nesting accepted. A 6.1 webhook payload needs 3 (plus what `details`
holds); no file of ours nests deeper than a few levels."""

# One JSON string, from its opening quote to its closing one, or to the end of the text when it
# is never closed. The quantifiers are possessive and the pattern matches at every '"' it starts
# on, so the scan never backtracks and never retries inside a string: linear in the text's
# length. (The pattern it replaces failed on an unclosed string and was retried at every later
# quote: quadratic, 11 s for 48 KB of `\"`.)
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]++")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(body: str | bytes) -> int:
    """How deep arrays and objects nest in `body` (brackets inside strings do not count).

    Linear time. Bytes are read as Latin-1, which keeps every ASCII quote, backslash and
    bracket of a UTF-8 body where it is, so the depth is that of the UTF-8 text."""
    text = body.decode("latin-1") if isinstance(body, bytes) else body
    brackets = _NOT_BRACKETS.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def nests_too_deep(text: str) -> bool:
    """True when `text` nests deeper than MAX_NESTING."""
    # A text with at most MAX_NESTING opening brackets cannot nest deeper, wherever they are:
    # two C-speed counts settle every ordinary document; only the others pay for the full scan.
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return False
    return nesting_depth(text) > MAX_NESTING
