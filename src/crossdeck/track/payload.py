"""Turning a verified webhook body into a `WebhookEvent` (spec 6.1) and its de-duplication key."""

from __future__ import annotations

import re
from itertools import accumulate

from pydantic import ValidationError

from crossdeck.models.errors import error_summary
from crossdeck.models.webhook import STATUS_UPDATED_EVENT, WebhookEvent


class PayloadError(ValueError):
    """The body is not a 6.1 payload; the message says which part is wrong."""


MAX_NESTING = 64
"""Deepest array/object nesting accepted. A 6.1 payload needs 3 (plus what `details` holds).

Checked before parsing, so a deep body is refused in words whatever reader parses it (`json.loads`
elsewhere recurses in C once per level, and in a process that imported eth-account, whose py_ecc
raises the recursion limit to 100,000, a deeply nested body overflowed the C stack)."""

# One JSON string, from its opening quote to its closing one, or to the end of the text when it
# is never closed. The quantifiers are possessive and the pattern matches at every '"' it starts
# on, so the scan never backtracks and never retries inside a string: linear in the body's
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


def _nests_too_deep(text: str) -> bool:
    # A body with at most MAX_NESTING opening brackets cannot nest deeper, wherever they are:
    # two C-speed counts settle every ordinary delivery; only the others pay for the full scan.
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return False
    return nesting_depth(text) > MAX_NESTING


def decode_body(body: bytes) -> str:
    """The body as text; `PayloadError` unless it is UTF-8.

    JSON between systems is UTF-8 (RFC 8259 8.1) and the service sends UTF-8. `json.loads`
    would also take UTF-16 and UTF-32 bytes, which a byte-level structure check misreads (a
    UTF-16 body nested 65,000 deep passed it), so those are refused here, before any check:
    the depth is then measured on exactly the text that is parsed."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise PayloadError("body is not UTF-8 text") from None
    if "\x00" in text:  # never in JSON text; UTF-16/32 without a byte order mark is full of it
        raise PayloadError("body is not UTF-8 JSON (it looks like UTF-16 or UTF-32)")
    return text


def parse_event(body: bytes) -> WebhookEvent:
    """Decode and validate a delivery body; raise `PayloadError` when it is not a 6.1 payload.

    The model is lenient (every field optional, unknown ones kept) so a new field never breaks
    the receiver; on top of it the fields the receiver itself relies on are required here.
    """
    text = decode_body(body)
    if _nests_too_deep(text):
        raise PayloadError(f"body nests deeper than {MAX_NESTING} levels")
    try:
        # parsed and validated in one pass (pydantic's own JSON reader): a third of the time of
        # json.loads followed by model_validate, which was most of a delivery's cost
        event = WebhookEvent.model_validate_json(body)
    except (ValidationError, RecursionError) as exc:
        raise PayloadError(_payload_error(exc)) from None
    if event.event != STATUS_UPDATED_EVENT:
        got = repr(event.event)
        got = got if len(got) <= 60 else got[:57] + "..."
        raise PayloadError(f"event must be {STATUS_UPDATED_EVENT!r}, got {got}")
    data = event.data
    if data is None:
        raise PayloadError("data is missing")
    if not data.request_id:
        raise PayloadError("data.requestId is missing")
    if not data.status:
        raise PayloadError("data.status is missing")
    if data.updated_at is None:
        raise PayloadError("data.updatedAt is missing")
    return event


def delivery_key(event: WebhookEvent) -> str:
    """What makes two deliveries "the same": the status change they report.

    Not the signature: the sender signs every retry again with a fresh timestamp, so one status
    change arrives under many signatures. Not the body bytes: a gateway in between (6.4) may
    re-encode the JSON. A request's status change is identified by (requestId, status,
    updatedAt), whatever the envelope looks like.
    """
    data = event.data
    if data is None:
        raise PayloadError("data is missing")
    return f"{event.event}|{data.request_id}|{data.status}|{data.updated_at}"


def _payload_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors(include_url=False)[0]
        if err["type"] == "json_invalid":
            return "body is not JSON"
        if err["type"] == "model_type" and not err["loc"]:
            return f"body is a JSON {_json_type(err['input'])}, expected an object"
    return f"body is not a 6.1 payload: {_first_error(exc)}"


def _json_type(value: object) -> str:
    names = {list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return error_summary(exc, limit=1, root="body")
    return type(exc).__name__
