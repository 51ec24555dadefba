"""Errors of the service client.

Every answer of the service that is not a usable success becomes a `ServiceError` (the one type
callers catch); the subclasses only add detail. Failing to get an answer at all (refused
connection, timeout) is a `ServiceConnectionError`, which maps to a different exit code because a
script usually wants to retry that later rather than change its input.
"""

from __future__ import annotations

import json
from typing import Any

from crossdeck.base.errors import CrossdeckError
from crossdeck.base.exitcodes import ExitCode

# How much of a response body an error shows; the whole body stays on `raw_body`.
RAW_PREVIEW_CHARS = 300

# What to do about the error codes the public service is known to send (facts.md).
_HINTS: dict[str, str] = {
    "AMOUNT_TOO_LOW": "raise the amount",
    "CHAIN_DISABLED": "pick another chain; this one is disabled for now",
    "INSUFFICIENT_FUNDS": "the user's balance is too low for this amount",
    "INSUFFICIENT_LIQUIDITY": "lower the amount or try again later",
    "INVALID_ADDRESS": "check the address fields (0x followed by 40 hex digits)",
    "INVALID_INPUT_CURRENCY": "check the origin currency address for that chain",
    "INVALID_OUTPUT_CURRENCY": "check the destination currency address for that chain",
    "INVALID_RECIPIENT": "check the recipient address",
    "INVALID_SLIPPAGE_TOLERANCE": "give slippage as whole basis points (50 = 0.5%)",
    "NO_QUOTES": "no solver quoted this route; change the amount or currencies",
    "NO_SWAP_ROUTES_FOUND": "no swap route exists; pick other currencies",
    "PRICE_FETCH_FAILED": "a price source failed; try again shortly",
    "REQUEST_TIMED_OUT": "the service timed out; try again shortly",
    "ROUTE_TEMPORARILY_RESTRICTED": "the route is restricted for now; try again later",
    "RPC_HTTP_ERROR": "a chain RPC failed on the service side; try again shortly",
    "SERVICE_UNAVAILABLE": "the service is unavailable; try again shortly",
    "SWAP_IMPACT_TOO_HIGH": "lower the amount, or accept the price impact explicitly",
    "UNAUTHORIZED": "check the API key configured for this profile",
    "UNAUTHORIZED_QUOTE": "quotes need an API key: crossdeck apikey set",
    "SOLANA_TX_TOO_LARGE": "the Solana transaction would exceed 1232 bytes: fewer or simpler "
    "calls, or another route",
    "INSUFFICIENT_ALLOWANCE": "the spender named below may not take this much yet; approve it",
    "UNSUPPORTED_CHAIN": "`crossdeck chains` lists the supported chains",
    "UNSUPPORTED_CURRENCY": "see the currencies of `/chains` for that chain",
    "UNSUPPORTED_ROUTE": "this origin/destination pair is not supported",
    "USER_RECIPIENT_MISMATCH": "the recipient must equal the user for this route",
}


def preview(raw: bytes | str | None, limit: int = RAW_PREVIEW_CHARS) -> str:
    """A one-line, bounded rendering of a body for messages."""
    if raw is None:
        return ""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class ServiceError(CrossdeckError):
    """The service answered, and the answer is an error (or unusable).

    `status` is the HTTP status, `error_code` the body's code (`errorCode`, or the older `code`,
    or `error` as the execute endpoints name it), `message` the body's `message` (or a
    description), `error_data` the body's `errorData` (a string or an object), `raw_body` the
    undecoded body as received.
    """

    exit_code = ExitCode.SERVICE_ERROR

    def __init__(
        self,
        message: str,
        *,
        status: int | None,
        error_code: str | None = None,
        error_data: Any = None,
        raw_body: bytes | str | None = None,
        method: str | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        if hint is None and error_code is not None:
            hint = _HINTS.get(error_code)
        super().__init__(message, hint=hint)
        self.status = status
        self.error_code = error_code
        self.error_data = error_data
        self.raw_body = raw_body
        self.method = method
        self.path = path
        # `errorData` in words with its amounts in units, when a caller could read them
        # (`api.error_data`); shown instead of the raw object
        self.error_data_words: str | None = None

    @property
    def raw_preview(self) -> str:
        return preview(self.raw_body)

    @property
    def error_data_text(self) -> str | None:
        """`errorData` in one bounded line: a string as it is, an object as compact JSON."""
        data = self.error_data
        if data is None or data == "" or data == {}:
            return None
        if isinstance(data, str):
            return preview(data)
        try:
            return preview(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
        except (TypeError, ValueError):
            return preview(repr(data))

    def __str__(self) -> str:
        where = f"{self.method} {self.path} " if self.method and self.path else ""
        status = f"HTTP {self.status}" if self.status is not None else "no status"
        code = f" {self.error_code}" if self.error_code else ""
        text = f"service error ({where}{status}{code}): {self.message}"
        detail = self.error_data_words or self.error_data_text
        if detail and detail != self.message:
            text += f" [{detail}]"
        return f"{text} ({self.hint})" if self.hint else text


class RateLimitedError(ServiceError):
    """HTTP 429 after the retries allowed; `retry_after` is the server's wish in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        kwargs.setdefault(
            "hint",
            "rate limited: wait and try again; an API key gives higher limits"
            + (f" (server asked for {retry_after:g}s)" if retry_after is not None else ""),
        )
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServiceUnavailableError(ServiceError):
    """The service said it cannot serve now (HTTP 503 or a transient error code)."""


class CursorLoopError(ServiceError):
    """The service handed back a `continuation` it had already given: following it would repeat
    pages forever, and stopping quietly could hide a gap, so paging ends with this error."""

    def __init__(self, cursor: str, pages: int, *, path: str = "/requests/v2") -> None:
        super().__init__(
            f"the service repeated a continuation cursor after {pages} page(s); the listing "
            "cannot be followed further",
            status=200,
            method="GET",
            path=path,
            hint="try again later, or narrow the filters (e.g. --start/--end) to split the listing",
        )
        self.cursor = cursor


class MalformedResponseError(ServiceError):
    """A 2xx answer that is not JSON or not the shape of the contract."""

    def __init__(self, message: str, **kwargs: Any) -> None:
        kwargs.setdefault(
            "hint",
            "the service's answer does not match the contract; check the service URL and that "
            "it speaks this API version",
        )
        super().__init__(message, **kwargs)


class HistoryNeedsApiKey(ServiceError):
    """No listing serves this caller: GET /requests/v3 wants an API key (none is set, or the
    one set was refused) and GET /requests/v2, which served anyone, is gone (retired by the
    public service on 2026-11-24). Without a key it exits as a missing secret (6), never as an
    empty history."""

    def __init__(self, *, has_key: bool, v3_status: int | None, v2: ServiceError) -> None:
        if has_key:
            message = (
                f"request history is unavailable: the service refused this profile's API key "
                f"for GET /requests/v3 (HTTP {v3_status}), and GET /requests/v2 is retired "
                f"(HTTP {v2.status})"
            )
            hint = "store a key the service accepts: crossdeck apikey set"
        else:
            message = (
                "request history needs an API key: the service's GET /requests/v3 asks for "
                f"one (HTTP {v3_status}), and GET /requests/v2, which did not, is retired "
                f"(HTTP {v2.status})"
            )
            hint = "store this profile's API key with: crossdeck apikey set"
        super().__init__(
            message,
            status=v2.status,
            error_code=v2.error_code,
            raw_body=v2.raw_body,
            method="GET",
            path="/requests/v3",
            hint=hint,
        )
        self.has_key = has_key
        if not has_key:
            self.exit_code = ExitCode.NO_SECRET

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})"


class ServiceConnectionError(CrossdeckError):
    """No answer: the connection failed or timed out (after the retries allowed)."""

    exit_code = ExitCode.NETWORK

    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        attempts: int = 1,
        may_have_acted: bool = False,
        hint: str | None = None,
    ) -> None:
        if hint is None:
            hint = (
                "the request may have reached the service; check its status before sending it again"
                if may_have_acted
                else "check the service URL and your network, then try again"
            )
        super().__init__(message, hint=hint)
        self.url = url
        self.attempts = attempts
        self.may_have_acted = may_have_acted
