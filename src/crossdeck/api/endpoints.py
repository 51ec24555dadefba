"""What a quote may name as an endpoint: a path on the configured service, nothing else.

A step item's `post.endpoint` (where a signature is delivered) and `check.endpoint` (where the
request's status is read) come from the service's answer, so a service in the middle can write
anything there. The client sends the API key, and for a post the user's signature, to whatever
they name; so an endpoint is read as a path on the configured service and refused otherwise:
an absolute URL, a scheme, a host (`//host/...`), a `.` or `..` segment (also percent-encoded),
a backslash, a fragment, a control character or a space. Its query may not set what crossdeck
sets itself (a post's `signature`), and a check's query names only the request it reads.

`endpoint_problem` says what is wrong in words, or None; the guards refuse a quote with it
before anything is signed, and the service client refuses to follow one as its last line.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from urllib.parse import parse_qsl, unquote, urlsplit

SIGNATURE_PARAM = "signature"  # the query parameter a signed POST carries (facts.md)
REQUEST_ID_PARAM = "requestId"  # the one parameter of the status endpoints

_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")  # controls, space, backslash


def _dot_segment(segment: str) -> bool:
    text = segment
    for _ in range(3):  # %252e%252e decodes twice to '..'
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return text in (".", "..") or "/" in text or "\\" in text


def endpoint_problem(endpoint: object, *, reserved: Collection[str] = ()) -> str | None:
    """Why `endpoint` is not a plain path (and query) on the service, or None. `reserved`:
    query parameters crossdeck sets itself, which the endpoint may not carry."""
    if not isinstance(endpoint, str) or not endpoint:
        return "it is empty"
    shown = endpoint if len(endpoint) <= 120 else endpoint[:117] + "..."
    if _UNSAFE.search(endpoint):
        return f"{shown!r} holds a space, a control character or a backslash"
    if not endpoint.startswith("/"):
        parts = urlsplit(endpoint)
        if parts.scheme:
            return f"{shown!r} is an absolute URL (scheme {parts.scheme!r}), not a path"
        return f"{shown!r} is not a path (it does not start with '/')"
    if endpoint.startswith("//"):
        return f"{shown!r} names a host ('//'), not a path on the service"
    parts = urlsplit(endpoint)
    if parts.scheme or parts.netloc:
        return f"{shown!r} names a host, not a path on the service"
    if "#" in endpoint:
        return f"{shown!r} carries a fragment"
    if any(_dot_segment(segment) for segment in parts.path.split("/")):
        return f"{shown!r} has a '..' or '.' segment or an encoded '/': it leaves its path"
    lowered = {r.lower() for r in reserved}
    for key, _value in parse_qsl(parts.query, keep_blank_values=True):
        if key.lower() in lowered:
            return f"{shown!r} sets the query parameter {key!r}, which crossdeck sets itself"
    return None


def check_query_problem(endpoint: str, request_id: str | None) -> str | None:
    """A check endpoint's query names only the request it reads (`requestId=<the step's>`):
    another request's status would stand for this one's."""
    query = urlsplit(endpoint).query
    pairs = parse_qsl(query, keep_blank_values=True)
    others = sorted({key for key, _ in pairs if key != REQUEST_ID_PARAM})
    if others:
        return f"{endpoint!r} carries query parameter(s) {others}; a check names only requestId"
    ids = [value for key, value in pairs if key == REQUEST_ID_PARAM]
    if len(ids) > 1:
        return f"{endpoint!r} names requestId {len(ids)} times"
    if ids and request_id is not None and ids[0].lower() != request_id.lower():
        return f"{endpoint!r} reads request {ids[0]}, not this step's request {request_id}"
    return None
