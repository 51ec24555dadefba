"""Times a person types for the history filters: ISO 8601 or Unix seconds -> Unix seconds.

The endpoint filters whole seconds (`startTimestamp`/`endTimestamp`, both inclusive), so:
- an ISO time without a zone is UTC (a terminal's local zone is not what a trader means when
  pasting a time from an explorer, and guessing would shift results silently);
- a bare date is the start of that day (UTC) for a start bound and its last second for an end
  bound, so `--start 2024-05-01 --end 2024-05-01` is the whole day;
- sub-second parts round inwards: a start rounds up, an end rounds down.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta

_DIGITS = re.compile(r"^[0-9]+$")
_DATE_ONLY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
# Unix seconds reach 10**10 in the year 2286; a larger value is almost surely milliseconds.
_MAX_SECONDS = 10**10


class TimeParseError(ValueError):
    """The text is neither ISO 8601 nor Unix seconds; the message says which form to use."""


def parse_time(text: str | int, *, end: bool = False) -> int:
    """Unix seconds from `text` (ISO 8601 or Unix seconds). `end` makes a bare date mean the
    last second of that day and rounds sub-seconds down (see the module docstring)."""
    if isinstance(text, bool):
        raise TimeParseError(f"{text!r} is not a time")
    if isinstance(text, int):
        return _check_seconds(text, str(text))
    cleaned = text.strip()
    if not cleaned:
        raise TimeParseError(
            "a time is required (ISO 8601 like 2024-05-01T12:00:00Z, or Unix seconds)"
        )
    if _DIGITS.fullmatch(cleaned):
        return _check_seconds(int(cleaned), cleaned)
    if _DATE_ONLY.fullmatch(cleaned):
        try:
            day = date.fromisoformat(cleaned)
        except ValueError as exc:
            raise TimeParseError(f"{cleaned!r} is not a calendar date ({exc})") from None
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        moment = start + timedelta(days=1, seconds=-1) if end else start
        return _check_seconds(int(moment.timestamp()), cleaned)
    try:
        moment = datetime.fromisoformat(_zulu(cleaned))
    except ValueError:
        raise TimeParseError(
            f"{cleaned!r} is neither ISO 8601 nor Unix seconds",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    exact = moment.timestamp()
    seconds = math.floor(exact) if end else math.ceil(exact)
    return _check_seconds(seconds, cleaned)


def _zulu(text: str) -> str:
    # Python 3.11 reads 'Z', but not a lowercase 'z' some tools print
    return text[:-1] + "Z" if text.endswith("z") else text


def _check_seconds(seconds: int, shown: str) -> int:
    if seconds < 0:
        raise TimeParseError(f"{shown!r} is before 1970-01-01; times are Unix seconds >= 0")
    if seconds >= _MAX_SECONDS:
        raise TimeParseError(
            f"{shown!r} is too large for Unix seconds; it looks like milliseconds "
            f"(divide by 1000: {seconds // 1000})"
        )
    return seconds


def format_time(seconds: int) -> str:
    """Unix seconds as the ISO 8601 text `parse_time` reads back (UTC, 'Z')."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
