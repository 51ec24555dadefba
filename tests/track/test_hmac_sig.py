"""The signature rule of spec 6.3, checked against signatures made with `hmac` in the test."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from track_support import API_KEY, independent_signature

from crossdeck.base.secret import Secret
from crossdeck.track.hmac_sig import (
    Reason,
    SigningKey,
    sign,
    signature_headers,
    signed_message,
    verify,
)

NOW = 1_800_000_000
BODY = b'{"event":"request.status.updated","data":{}}'


def test_sign_matches_an_independent_hmac() -> None:
    assert sign(API_KEY, str(NOW), BODY) == independent_signature(API_KEY, str(NOW), BODY)
    assert sign(API_KEY.encode(), NOW, BODY) == independent_signature(API_KEY, str(NOW), BODY)
    assert sign(Secret(API_KEY), NOW, BODY) == independent_signature(API_KEY, str(NOW), BODY)


def test_known_vector() -> None:
    # printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac key
    assert signed_message("1700000000", b'{"a":1}') == b'1700000000.{"a":1}'
    expected = "a438e398bfafc57e4396bb7fc2304422f0f768e965d073ca313cb52e22e6ad03"
    assert sign("key", "1700000000", b'{"a":1}') == expected


def test_signature_headers_use_now_by_default() -> None:
    before = int(time.time())
    headers = signature_headers(API_KEY, BODY)
    ts = headers["X-Signature-Timestamp"]
    assert before <= int(ts) <= int(time.time())
    assert headers["X-Signature-SHA256"] == independent_signature(API_KEY, ts, BODY)


def test_valid_delivery_is_ok() -> None:
    sig = independent_signature(API_KEY, str(NOW), BODY)
    verdict = verify(API_KEY, str(NOW), BODY, sig, now=NOW)
    assert verdict.ok and verdict.reason is Reason.OK and verdict.timestamp == NOW
    assert bool(verdict)


@pytest.mark.parametrize(
    ("timestamp", "signature", "reason"),
    [
        (None, "0" * 64, Reason.MISSING_TIMESTAMP),
        ("", "0" * 64, Reason.MISSING_TIMESTAMP),
        (str(NOW), None, Reason.MISSING_SIGNATURE),
        (str(NOW), "", Reason.MISSING_SIGNATURE),
        ("12a4", "0" * 64, Reason.BAD_TIMESTAMP),
        ("-1800000000", "0" * 64, Reason.BAD_TIMESTAMP),
        (" 1800000000", "0" * 64, Reason.BAD_TIMESTAMP),
        ("1800000000.5", "0" * 64, Reason.BAD_TIMESTAMP),
        ("١٨٠٠٠٠٠٠٠٠", "0" * 64, Reason.BAD_TIMESTAMP),  # non-ASCII digits
        ("9" * 16, "0" * 64, Reason.BAD_TIMESTAMP),
        (str(NOW), "0" * 63, Reason.BAD_LENGTH),
        (str(NOW), "0" * 65, Reason.BAD_LENGTH),
        (str(NOW), "sha256=" + "0" * 64, Reason.BAD_LENGTH),
        (str(NOW), "g" * 64, Reason.BAD_HEX),
        (str(NOW), "é" * 64, Reason.BAD_HEX),
        (str(NOW), "0" * 63 + "\n", Reason.BAD_HEX),
        (str(NOW), "0" * 64, Reason.MISMATCH),
    ],
)
@pytest.mark.parametrize("keyed", [False, True], ids=["key", "signing-key"])
def test_malformed_or_wrong_headers(
    timestamp: str | None, signature: str | None, reason: Reason, keyed: bool
) -> None:
    key = SigningKey(API_KEY) if keyed else API_KEY
    verdict = verify(key, timestamp, BODY, signature, now=NOW)
    assert not verdict.ok
    assert verdict.reason is reason, verdict


# a key of one SHA-256 block (64 bytes) is used as it is, a longer one is hashed first (RFC 2104)
@pytest.mark.parametrize("key", [API_KEY, "ключ-é", "", "k" * 64, "k" * 65, "ключ" * 40])
@pytest.mark.parametrize("body", [BODY, b"", bytes(range(256)) * 4])
def test_a_signing_key_signs_as_sign_does_and_again_the_same(key: str, body: bytes) -> None:
    signing_key = SigningKey(Secret(key))
    expected = independent_signature(key, str(NOW), body)
    assert signing_key.sign(str(NOW), body) == expected == sign(key, NOW, body)
    assert signing_key.sign(str(NOW), body) == expected  # each message on a fresh copy
    assert verify(signing_key, str(NOW), body, expected, now=NOW).ok
    assert verify(signing_key, str(NOW), body + b" ", expected, now=NOW).reason is Reason.MISMATCH
    if key:
        assert key not in repr(signing_key)


def test_upper_case_hex_is_refused_with_its_own_reason() -> None:
    sig = independent_signature(API_KEY, str(NOW), BODY)
    verdict = verify(API_KEY, str(NOW), BODY, sig.upper(), now=NOW)
    assert verdict.reason is Reason.UPPERCASE_HEX
    assert "lower-case" in verdict.detail


def test_tampered_body_and_wrong_key_mismatch() -> None:
    sig = independent_signature(API_KEY, str(NOW), BODY)
    assert verify(API_KEY, str(NOW), BODY + b" ", sig, now=NOW).reason is Reason.MISMATCH
    assert verify("other-key", str(NOW), BODY, sig, now=NOW).reason is Reason.MISMATCH
    # The timestamp is part of what is signed.
    assert verify(API_KEY, str(NOW + 1), BODY, sig, now=NOW).reason is Reason.MISMATCH


def test_time_window_edges() -> None:
    for offset, reason in [
        (-300, Reason.OK),
        (-301, Reason.STALE),
        (300, Reason.OK),
        (301, Reason.FUTURE),
    ]:
        ts = str(NOW + offset)
        sig = independent_signature(API_KEY, ts, BODY)
        assert verify(API_KEY, ts, BODY, sig, now=NOW).reason is reason, offset


def test_tolerance_is_configurable_and_can_be_skipped() -> None:
    ts = str(NOW - 3600)
    sig = independent_signature(API_KEY, ts, BODY)
    assert verify(API_KEY, ts, BODY, sig, now=NOW).reason is Reason.STALE
    assert verify(API_KEY, ts, BODY, sig, now=NOW, tolerance=7200).ok
    assert verify(API_KEY, ts, BODY, sig, now=NOW, tolerance=None).ok


def test_millisecond_timestamp_is_future_with_a_hint() -> None:
    ts = str(NOW * 1000)
    sig = independent_signature(API_KEY, ts, BODY)
    verdict = verify(API_KEY, ts, BODY, sig, now=NOW)
    assert verdict.reason is Reason.FUTURE
    assert "milliseconds" in verdict.detail


def test_stale_forgery_reads_as_mismatch() -> None:
    # The signature is checked before the window, so "stale" always means "authentic but old".
    verdict = verify(API_KEY, str(NOW - 10_000), BODY, "0" * 64, now=NOW)
    assert verdict.reason is Reason.MISMATCH


def test_verdict_text_never_contains_the_key() -> None:
    for sig in ("0" * 64, "x", None):
        verdict = verify(API_KEY, str(NOW), BODY, sig, now=NOW)
        assert API_KEY not in str(verdict) and API_KEY not in repr(verdict)


keys = st.one_of(st.binary(min_size=1, max_size=200), st.text(min_size=1, max_size=100))
bodies = st.binary(max_size=2048)
offsets = st.integers(min_value=-300, max_value=300)


@settings(max_examples=200, deadline=None)
@given(key=keys, body=bodies, offset=offsets, data=st.data())
def test_property_sign_verifies_and_any_single_byte_change_fails(
    key: str | bytes, body: bytes, offset: int, data: st.DataObject
) -> None:
    ts = str(NOW + offset)
    sig = sign(key, ts, body)
    assert sig == independent_signature(key, ts, body)
    assert verify(key, ts, body, sig, now=NOW).ok

    if body:
        index = data.draw(st.integers(0, len(body) - 1), label="index")
        flip = data.draw(st.integers(1, 255), label="xor")
        changed = bytearray(body)
        changed[index] ^= flip
        assert verify(key, ts, bytes(changed), sig, now=NOW).reason is Reason.MISMATCH

    # A change of one signature character to another lower-case hex digit.
    pos = data.draw(st.integers(0, 63), label="sig position")
    other = data.draw(st.sampled_from("0123456789abcdef").filter(lambda c: c != sig[pos]))
    forged = sig[:pos] + other + sig[pos + 1 :]
    assert verify(key, ts, body, forged, now=NOW).reason is Reason.MISMATCH

    # One byte appended or removed changes the message too.
    assert not verify(key, ts, body + b"\x00", sig, now=NOW).ok
    if body:
        assert not verify(key, ts, body[:-1], sig, now=NOW).ok
