"""crossdeck.api: the transfer service's HTTP client, its errors and its retry policy."""

from crossdeck.api.client import ServiceClient
from crossdeck.api.errors import (
    CursorLoopError,
    MalformedResponseError,
    RateLimitedError,
    ServiceConnectionError,
    ServiceError,
    ServiceUnavailableError,
)
from crossdeck.retry import NO_RETRY, RetryPolicy

__all__ = [
    "NO_RETRY",
    "CursorLoopError",
    "MalformedResponseError",
    "RateLimitedError",
    "RetryPolicy",
    "ServiceClient",
    "ServiceConnectionError",
    "ServiceError",
    "ServiceUnavailableError",
]
