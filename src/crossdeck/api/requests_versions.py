"""Which request-listing endpoint to ask, and how a history filter is spelled on each.

GET /requests/v2 is the seed contract's listing; the public service deprecated it on 2026-07-22,
throttles it from 2026-09-01 and retires it on 2026-11-24, with GET /requests/v3 as the successor
(the public "Migrating to Requests v3" guide). crossdeck asks v3 first and falls back to v2 when
v3 is not offered (`v3_not_offered`), or when a filter cannot be said on v3 (`v3_params`).

Filters are typed once, as the v2 `RequestsQuery`; this module is the one place that knows how
v3 names them differently.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from crossdeck.api.errors import ServiceError

if TYPE_CHECKING:
    from crossdeck.models.requests_query import RequestsQuery

# v3 answers these when the route does not exist where we asked (an older deployment, a proxy
# that only forwards v2, a stand-in without it).
_ROUTE_MISSING = frozenset({404, 405, 410, 501})
# The migration guide: "x-api-key is now required" on v3 (v2 serves anyone). Without a key, or
# with one the service does not accept for v3, it answers 401/403; the error table names the
# code UNAUTHORIZED. Either way v2 may still serve this caller.
_REFUSED = frozenset({401, 403})
_REFUSED_CODES = frozenset({"UNAUTHORIZED"})


def v3_not_offered(error: ServiceError) -> bool:
    """True when GET /requests/v3's refusal means "ask v2 instead": the route is missing
    (404/405/410/501) or the caller is not let in (401/403 or errorCode UNAUTHORIZED).

    Anything else -- a filter refused (400), rate limited (429), the service down (5xx, after the
    client's retries), a malformed answer -- says nothing about whether v3 exists, and is raised
    as it is: falling back then would hide a real failure behind a listing that is going away.
    """
    status = error.status
    if status in _ROUTE_MISSING or status in _REFUSED:
        return True
    return error.error_code in _REFUSED_CODES


class V3Unsupported(Exception):
    """A filter of the query has no v3 spelling: this one listing must be asked of v2."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def v3_params(query: RequestsQuery) -> dict[str, str]:
    """The query parameters of `query` for GET /requests/v3 (`V3Unsupported` if one has none).

    Mapping (everything not named here has the same name and meaning on both):
    - `hash` -> `term`: v3 dropped `hash`; `term` searches every tx hash of a request (deposit,
      fill, refund) as well as ids, wallets and deposit addresses, which a 0x+64-hex tx hash
      does not collide with.
    - `user` -> `filters=[{"user": U}, {"recipient": U}]`: v2's `user` matches the sender or the
      recipient; v3's `user` matches only the sender (or the deposit-address depositor) and has
      a separate `recipient`, so the v2 meaning is their OR (filter groups are OR'd; top-level
      parameters still apply to every group).
    - `referrer` only with `apiKey`: v3 accepts a referrer filter only paired with the caller's
      own `apiKey` (400 otherwise; public changelog 2026-08-19).
    - `includeOrderData` has no v3 counterpart (v3 records carry `protocol` instead).
    """
    params = query.to_params()
    if "includeOrderData" in params and query.include_order_data:
        raise V3Unsupported("includeOrderData has no /requests/v3 counterpart")
    params.pop("includeOrderData", None)
    if query.referrer is not None and query.api_key is None:
        raise V3Unsupported("/requests/v3 filters by referrer only together with apiKey")
    if (tx_hash := params.pop("hash", None)) is not None:
        params["term"] = tx_hash
    if (user := params.pop("user", None)) is not None:
        params["filters"] = json.dumps([{"user": user}, {"recipient": user}], separators=(",", ":"))
    return params
