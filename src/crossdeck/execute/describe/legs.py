"""After the signing: what a request's legs are called."""

from __future__ import annotations


def out_leg(status: str | None) -> str:
    """What the destination-side transactions of a request are: a refund's are refunds (a failed
    request's too: what goes out then is the refund attempt), a success's the fill."""
    if status in ("refund", "fallback", "failure", "refunded"):
        return "refund"
    return "fill"
