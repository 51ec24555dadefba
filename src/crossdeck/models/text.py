"""Short forms of long wire values (addresses, hashes, request ids) for a line of text."""

from __future__ import annotations

ELLIPSIS = "…"


def short(value: str | None, head: int = 6, tail: int = 4, *, empty: str = "-") -> str:
    """'0x4cd0…bc31': the first `head` and last `tail` characters, enough to recognise a value
    in a sentence (the full value stays where it is signed or exported). A value that would not
    get shorter stays whole; None or '' reads `empty`."""
    if not value:
        return empty
    if len(value) <= head + tail + 1:
        return value
    return f"{value[:head]}{ELLIPSIS}{value[-tail:]}"
