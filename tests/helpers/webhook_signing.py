"""Webhook signatures as spec 6.3 states them, computed with the hmac module alone (independent
of `crossdeck.track` and of the world's sender, so a test catches either side getting it wrong):
HMAC-SHA256 in hex over '<timestamp>.<body>' with the API key as the secret."""

from __future__ import annotations

import hashlib
import hmac


def independent_signature(key: str | bytes, timestamp: str, body: bytes) -> str:
    raw_key = key.encode() if isinstance(key, str) else key
    return hmac.new(raw_key, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def signature_ok(key: str | bytes, timestamp: str, body: bytes, given: str) -> bool:
    """`given` is the signature of `body` at `timestamp`: same length first, then compared in
    constant time, as a receiver should."""
    expected = independent_signature(key, timestamp, body)
    return len(given) == len(expected) and hmac.compare_digest(given, expected)
