"""Reading the service's answers: a non-2xx answer as its `ServiceError` (from the
`{message, errorCode, errorData}` body), an unusable 2xx as a `MalformedResponseError`, a
transport failure in words. One place, used by every endpoint of `ServiceClient`."""

from __future__ import annotations

import json
from typing import Any

import httpx
from pydantic import ValidationError

from crossdeck.api.errors import (
    MalformedResponseError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    preview,
)
from crossdeck.models.errors import ErrorBody
from crossdeck.retry import parse_retry_after


def malformed(response: httpx.Response, message: str) -> MalformedResponseError:
    return MalformedResponseError(
        message,
        status=response.status_code,
        raw_body=response.content,
        method=response.request.method,
        path=response.request.url.path,
    )


def describe_transport_error(exc: httpx.RequestError) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out: {type(exc).__name__}"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def error_body(response: httpx.Response) -> ErrorBody | None:
    """The `{message, errorCode, errorData}` of a non-2xx answer, None when it has none."""
    raw = response.content
    try:
        data = json.loads(raw) if raw.strip() else None
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    try:
        return ErrorBody.model_validate(data)
    except ValidationError:
        return None


def error_code(response: httpx.Response) -> str | None:
    body = error_body(response)
    return body.error_code if body is not None else None


def error_from(response: httpx.Response, method: str, path: str) -> ServiceError:
    """The `ServiceError` for a non-2xx answer, from its `{message, errorCode, errorData}`."""
    raw = response.content
    status = response.status_code
    body = error_body(response)
    message = body.message_text if body else None
    if message is None:
        message = f"{response.reason_phrase or 'error'}" + (f": {preview(raw)}" if raw else "")
    kwargs: dict[str, Any] = {
        "status": status,
        "error_code": body.error_code if body else None,
        "error_data": body.error_data if body else None,
        "raw_body": raw,
        "method": method,
        "path": path,
    }
    if status == 429:
        return RateLimitedError(
            message,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
            **kwargs,
        )
    if status == 503 or kwargs["error_code"] == "SERVICE_UNAVAILABLE":
        return ServiceUnavailableError(message, **kwargs)
    return ServiceError(message, **kwargs)
