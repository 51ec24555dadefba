"""A quote's endpoints are read as paths on the configured service: what passes, and each form
that would lead elsewhere, refused in words."""

from __future__ import annotations

import pytest

from crossdeck.api.endpoints import SIGNATURE_PARAM, check_query_problem, endpoint_problem

REQUEST = "0x" + "12" * 32


@pytest.mark.parametrize(
    "endpoint",
    ["/authorize", "/execute/permits", f"/intents/status/v3?requestId={REQUEST}", "/a/b.c/d"],
)
def test_paths_on_the_service_pass(endpoint: str) -> None:
    assert endpoint_problem(endpoint, reserved=(SIGNATURE_PARAM,)) is None


@pytest.mark.parametrize(
    ("endpoint", "words"),
    [
        ("", "empty"),
        ("https://evil.example/authorize", "absolute URL (scheme 'https')"),
        ("HTTP://127.0.0.1:8080/authorize", "absolute URL"),
        ("https:/authorize", "absolute URL"),
        ("javascript:alert(1)", "absolute URL"),
        ("authorize", "does not start with '/'"),
        ("//evil.example/authorize", "names a host"),
        ("/\\evil.example/authorize", "backslash"),
        ("/authorize /x", "space"),
        ("/authorize\r\nHost: evil", "control character"),
        ("/../authorize", "'..' or '.'"),
        ("/quote/./authorize", "'..' or '.'"),
        ("/x/%2e%2E/authorize", "'..' or '.'"),
        ("/x/%252e%252e/authorize", "'..' or '.'"),
        ("/x%2f..%2fauthorize", "encoded '/'"),
        ("/authorize#frag", "fragment"),
        ("/authorize?signature=0x00", "sets the query parameter 'signature'"),
        ("/authorize?a=1&Signature=0x00", "sets the query parameter 'Signature'"),
    ],
)
def test_forms_that_lead_elsewhere_are_refused(endpoint: str, words: str) -> None:
    problem = endpoint_problem(endpoint, reserved=(SIGNATURE_PARAM,))
    assert problem is not None and words in problem


def test_a_check_names_only_its_own_request() -> None:
    assert check_query_problem(f"/intents/status?requestId={REQUEST}", REQUEST) is None
    assert check_query_problem(f"/intents/status?requestId={REQUEST.upper()[2:]}", None) is None
    other = "0x" + "ab" * 32
    assert "not this step's request" in str(
        check_query_problem(f"/intents/status?requestId={other}", REQUEST)
    )
    assert "names requestId 2 times" in str(
        check_query_problem(f"/s?requestId={REQUEST}&requestId={other}", REQUEST)
    )
    assert "only requestId" in str(check_query_problem(f"/s?requestId={REQUEST}&user=x", REQUEST))
