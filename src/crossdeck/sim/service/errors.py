"""The service's error answers: ``{"message", "errorCode", "errorData"?}`` with an HTTP status.

Codes follow facts.md where one fits. Where none does, the code is explicit and documented:
``INVALID_INPUT`` (a body or query field that breaks its rule; the message names the field),
``NOT_FOUND`` (unknown request id), ``RATE_LIMITED`` (429), ``NONCE_ALREADY_MAPPED`` (a
replayed /authorize), ``INVALID_SIGNATURE`` (missing or malformed signature), ``UNAUTHORIZED``
(a signature from the wrong signer), ``PERMIT_FAILED`` (the permit deposit reverted).
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    def __init__(
        self, status: int, code: str, message: str, data: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.data = data

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"message": self.message, "errorCode": self.code}
        if self.data is not None:
            out["errorData"] = self.data
        return out


def invalid(message: str, code: str = "INVALID_INPUT", **data: Any) -> ServiceError:
    return ServiceError(400, code, message, data or None)


def not_found(message: str) -> ServiceError:
    return ServiceError(404, "NOT_FOUND", message)
