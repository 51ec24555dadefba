"""A /quote/v3 answer seen as a /quote/v2 one and back, so one tampering (written against v2's
steps-with-items) alters a v3 answer the same way: each flat step is a step of one item in the
view; after the tampering every item of a view step is a flat step again, with the step's own
fields. The answer's one `requestId` is each view step's; a view step whose id was changed (or
removed) writes that onto its flat steps (or takes the answer's away), which is what the same
tampering means for v3. A view step whose id was removed names no request anywhere v3 could
put it: its checks' `requestId=` and its posts' body `requestId` go too."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

_STEP_FIELDS = ("status", "data", "check")


def as_items(answer: dict[str, Any]) -> dict[str, Any]:
    view = {k: copy.deepcopy(v) for k, v in answer.items() if k not in ("steps", "requestId")}
    top = answer.get("requestId")
    steps = []
    for flat in answer.get("steps") or []:
        if not isinstance(flat, dict):
            steps.append(flat)
            continue
        step = {k: copy.deepcopy(v) for k, v in flat.items() if k not in _STEP_FIELDS}
        step.setdefault("requestId", top)
        step["items"] = [{k: copy.deepcopy(flat[k]) for k in _STEP_FIELDS if k in flat}]
        steps.append(step)
    view["steps"] = steps
    view["_requestId"] = top
    return view


def _unnamed(item: dict[str, Any]) -> None:
    """`item` with no request id in its check's query or its post's body."""
    check = item.get("check")
    if isinstance(check, dict) and isinstance(check.get("endpoint"), str):
        parts = urlsplit(check["endpoint"])
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "requestId"]
        check["endpoint"] = parts.path + (f"?{urlencode(query)}" if query else "")
    data = item.get("data")
    post = data.get("post") if isinstance(data, dict) else None
    body = post.get("body") if isinstance(post, dict) else None
    if isinstance(body, dict):
        body.pop("requestId", None)


def as_flat(view: dict[str, Any]) -> dict[str, Any]:
    top = view.pop("_requestId", None)
    answer = {k: v for k, v in view.items() if k != "steps"}
    steps = []
    ids = set()
    for step in view.get("steps") or []:
        if not isinstance(step, dict):
            steps.append(step)
            continue
        request_id = step.get("requestId")
        ids.add(request_id)
        base = {k: v for k, v in step.items() if k not in ("items", "requestId")}
        if request_id != top and request_id is not None:
            base["requestId"] = request_id
        for item in step.get("items") or []:
            flat = dict(base)
            if isinstance(item, dict):
                if request_id is None and top is not None:
                    _unnamed(item)
                flat.update(item)
            else:
                flat["data"] = item
            steps.append(flat)
    answer["steps"] = steps
    if top is not None and top in ids:
        answer["requestId"] = top
    return answer


def tamper_v3(answer: dict[str, Any], tamper: Any) -> dict[str, Any]:
    """`tamper` (in place, on v2's shape) applied to the v3 `answer`; the altered v3 answer."""
    view = as_items(answer)
    tamper(view)
    return as_flat(view)
