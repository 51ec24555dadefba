"""RetryPolicy arithmetic and Retry-After parsing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from crossdeck.retry import IDEMPOTENT, RetryPolicy, parse_retry_after


def test_backoff_doubles_up_to_the_cap_without_jitter() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=3.0, jitter=False)
    assert [policy.backoff(n) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_full_jitter_scales_the_cap_by_the_draw() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=10.0, random=lambda: 0.25)
    assert [policy.backoff(n) for n in range(3)] == [0.25, 0.5, 1.0]


def test_retry_after_replaces_backoff_and_is_capped() -> None:
    policy = RetryPolicy(base_delay=1.0, jitter=False, max_retry_after=30)
    assert policy.delay_before_retry(0, None) == 1.0
    assert policy.delay_before_retry(0, 12.0) == 12.0
    assert policy.delay_before_retry(0, 31.0) is None  # the caller gives up instead of waiting


def test_attempts_count_the_first_try() -> None:
    policy = RetryPolicy(max_attempts=2)
    assert policy.can_retry(1) and not policy.can_retry(2)
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("5", 5.0),
        (" 1.5 ", 1.5),
        ("0", 0.0),
        ("-1", None),
        ("nan", None),
        ("soon", None),
        ("", None),
        (None, None),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),  # in the past: retry now
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert parse_retry_after(header, now=now) == expected


def test_transient_answers() -> None:
    resends = IDEMPOTENT.resends
    assert resends(429, None) and resends(503, None)
    assert resends(500, "PRICE_FETCH_FAILED") and resends(504, "REQUEST_TIMED_OUT")
    assert resends(502, "RPC_HTTP_ERROR")
    assert not resends(400, "INVALID_ADDRESS") and not resends(500, None)
