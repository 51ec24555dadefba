"""Turning a verified webhook body into a `WebhookEvent` (spec 6.1) and its de-duplication key."""

from __future__ import annotations

from pydantic import ValidationError

from crossdeck.base.json_depth import MAX_NESTING, nesting_depth
from crossdeck.base.json_depth import nests_too_deep as _nests_too_deep
from crossdeck.models.errors import error_summary
from crossdeck.models.webhook import STATUS_UPDATED_EVENT, WebhookEvent

# MAX_NESTING and nesting_depth are named here too: the receiver and its tests check bodies
# through this module
__all__ = [
    "MAX_NESTING",
    "PayloadError",
    "decode_body",
    "delivery_key",
    "nesting_depth",
    "parse_event",
]


class PayloadError(ValueError):
    """The body is not a 6.1 payload; the message says which part is wrong."""


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
