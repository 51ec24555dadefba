"""`endpoint-host`: every `post` and `check` endpoint of an item is a path on the configured
service (`crossdeck.api.endpoints` says what that excludes). A signature delivered elsewhere
hands it, and the API key, to whoever runs that host; a check read elsewhere, or of another
request, would say this request's outcome in another's words. Checked for every item, those
a POST answer appends included, before anything is signed."""

from __future__ import annotations

from crossdeck.api.endpoints import SIGNATURE_PARAM, check_query_problem, endpoint_problem
from crossdeck.execute.guards.base import GuardResult, _fail, _items, _ok, _where
from crossdeck.models import Quote, Step, StepItem, WireModel

NAME = "endpoint-host"


def endpoint_guards(quote: Quote) -> list[GuardResult]:
    """One result per item that names an endpoint."""
    results = []
    for _, step, index, item in _items(quote):
        result = endpoint_guard(step, item, _where(step, index))
        if result is not None:
            results.append(result)
    return results


def endpoint_guard(step: Step, item: StepItem, where: str) -> GuardResult | None:
    """The item's post and check endpoints, or None when it names neither."""
    problems: list[str] = []
    named: list[str] = []
    data = item.data
    post = getattr(data, "post", None) if isinstance(data, WireModel) else None
    if post is not None and post.endpoint is not None:
        problem = endpoint_problem(post.endpoint, reserved=(SIGNATURE_PARAM,))
        if problem is not None:
            problems.append(f"post endpoint {problem}")
        named.append(f"{(post.method or 'POST').upper()} {post.endpoint}")
    check = item.check
    if check is not None and check.endpoint is not None:
        problem = endpoint_problem(check.endpoint) or check_query_problem(
            check.endpoint, step.request_id
        )
        if problem is not None:
            problems.append(f"check endpoint {problem}")
        if (check.method or "GET").upper() != "GET":
            problems.append(f"check method {check.method!r} is not GET")
        named.append(f"{(check.method or 'GET').upper()} {check.endpoint.split('?')[0]}")
    if problems:
        return _fail(
            NAME,
            "; ".join(problems) + ": a quote's endpoints are paths on the configured service, "
            "nothing else",
            where,
        )
    if not named:
        return None
    return _ok(NAME, f"{' and '.join(named)}: paths on the configured service", where)
