"""History filters from what a person types (CLI options, a form) to a `RequestsQuery`.

Every value is checked here, before any request: addresses, hashes and ids by shape, chain ids
and blocks as integers, times as ISO 8601 or Unix seconds, the status against the values the
history filter accepts (spec 3.1/4.2), the page size against 1..50. A bad value raises
`FilterError` naming the option (`--user`) and the wire field (`user`).

Quick filters are presets over a query: `mine` (the wallet as sender or recipient), `failed`
(status failure) and `refunded` (status refund).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, get_args

from crossdeck.base.secret import Secret
from crossdeck.history.errors import FilterError
from crossdeck.history.timeparse import TimeParseError, format_time, parse_time
from crossdeck.models import HistoryStatus, RequestsQuery, RequestsQueryError
from crossdeck.models.addresses import well_formed_problem

HASH_32 = re.compile(r"^0x[0-9a-fA-F]{64}$")
_UINT = re.compile(r"^[0-9]+$")

STATUS_VALUES: tuple[str, ...] = get_args(HistoryStatus)
SORT_BY_VALUES = ("createdAt", "updatedAt")
SORT_DIRECTION_VALUES = ("asc", "desc")
MIN_LIMIT, MAX_LIMIT = 1, 50

# option (CLI spelling) of each wire field, for messages
OPTION_OF_FIELD = {
    "user": "--user",
    "hash": "--hash",
    "originChainId": "--origin-chain",
    "destinationChainId": "--destination-chain",
    "chainId": "--chain",
    "id": "--id",
    "orderId": "--order-id",
    "status": "--status",
    "startTimestamp": "--start",
    "endTimestamp": "--end",
    "startBlock": "--start-block",
    "endBlock": "--end-block",
    "referrer": "--referrer",
    "depositAddress": "--deposit-address",
    "apiKey": "--api-key-filter",
    "privateChainsToInclude": "--private-chains",
    "includeChildRequests": "--include-child-requests",
    "includeOrderData": "--include-order-data",
    "includeAuthenticatedData": "--include-authenticated-data",
    "sortBy": "--sort-by",
    "sortDirection": "--sort-direction",
    "limit": "--limit",
    "continuation": "--continuation",
}


def _fail(field: str, reason: str, hint: str | None = None) -> FilterError:
    return FilterError(field, OPTION_OF_FIELD.get(field, field), reason, hint=hint)


def _text(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _address(field: str, value: object) -> str | None:
    text = _text(value)
    if text is None:
        return None
    problem = well_formed_problem(text)
    if problem is not None:
        raise _fail(
            field,
            problem,
            "give an EVM (0x + 40 hex), Solana (base58) or Bitcoin (bc1…, 1…, 3…) address",
        )
    return text


def _hash32(field: str, value: object, what: str) -> str | None:
    text = _text(value)
    if text is None:
        return None
    if not HASH_32.fullmatch(text):
        raise _fail(field, f"{text!r} is not a {what}", "give 0x followed by 64 hex digits")
    return text


def _uint(field: str, value: object, *, positive: bool = False) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise _fail(field, f"{value!r} is not a whole number")
    if isinstance(value, int):
        number = value
    else:
        text = _text(value)
        if text is None:
            return None
        if not _UINT.fullmatch(text):
            raise _fail(field, f"{text!r} is not a whole number")
        number = int(text)
    if number < 0 or (positive and number == 0):
        raise _fail(field, f"{number} must be {'positive' if positive else 'at least 0'}")
    return number


def _time(field: str, value: object, *, end: bool) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str | int):
        raise _fail(field, f"{value!r} is not a time")
    try:
        return parse_time(value, end=end)
    except TimeParseError as exc:
        raise _fail(
            field,
            str(exc),
            "use ISO 8601 such as 2024-05-01 or 2024-05-01T12:00:00Z, or Unix seconds",
        ) from None


def _choice(field: str, value: object, allowed: tuple[str, ...], *, fold: bool) -> str | None:
    text = _text(value)
    if text is None:
        return None
    key = text.lower() if fold else text
    if key not in allowed:
        raise _fail(field, f"{text!r} is not one of {', '.join(allowed)}")
    return key


def _status(value: object) -> str | None:
    text = _text(value)
    if text is None:
        return None
    if text.lower() not in STATUS_VALUES:
        raise _fail(
            "status",
            f"{text!r} is not a status the history filter accepts",
            f"use one of {', '.join(STATUS_VALUES)}",
        )
    return text.lower()


def _uuids(value: object) -> str | None:
    text = _text(value)
    if text is None:
        return None
    parts = [part.strip() for part in text.split(",")]
    for part in parts:
        try:
            uuid.UUID(part)
        except ValueError:
            raise _fail(
                "privateChainsToInclude",
                f"{part!r} is not a UUID",
                "give comma-separated UUIDs like 123e4567-e89b-12d3-a456-426614174000",
            ) from None
    return ",".join(parts)


def _secret(value: Secret | str | None) -> str | None:
    if isinstance(value, Secret):
        value = value.get_secret_value()
    text = _text(value)
    if text is not None and any(ch.isspace() for ch in text):
        # never echo it: it is an API key
        raise _fail("apiKey", "the API key contains whitespace", "check what was pasted")
    return text


def build_query(
    *,
    user: str | None = None,
    hash: str | None = None,
    origin_chain: str | int | None = None,
    destination_chain: str | int | None = None,
    chain: str | int | None = None,
    id: str | None = None,
    order_id: str | None = None,
    status: str | None = None,
    start: str | int | None = None,
    end: str | int | None = None,
    start_block: str | int | None = None,
    end_block: str | int | None = None,
    referrer: str | None = None,
    deposit_address: str | None = None,
    api_key_filter: Secret | str | None = None,
    private_chains: str | None = None,
    include_child_requests: bool = False,
    include_order_data: bool = False,
    include_authenticated_data: bool = False,
    sort_by: str | None = None,
    sort_direction: str | None = None,
    limit: str | int | None = None,
    continuation: str | None = None,
) -> RequestsQuery:
    """A checked `RequestsQuery` from typed-in values (strings or ints; None/'' = not set).

    Raises `FilterError` (an `InputError`) naming the option on the first bad value.
    """
    fields: dict[str, Any] = {
        "user": _address("user", user),
        "hash": _hash32("hash", hash, "transaction hash"),
        "origin_chain_id": _uint("originChainId", origin_chain, positive=True),
        "destination_chain_id": _uint("destinationChainId", destination_chain, positive=True),
        "chain_id": _uint("chainId", chain, positive=True),
        "id": _hash32("id", id, "request id"),
        "order_id": _hash32("orderId", order_id, "order id"),
        "status": _status(status),
        "start_timestamp": _time("startTimestamp", start, end=False),
        "end_timestamp": _time("endTimestamp", end, end=True),
        "start_block": _uint("startBlock", start_block),
        "end_block": _uint("endBlock", end_block),
        "referrer": _text(referrer),
        "deposit_address": _address("depositAddress", deposit_address),
        "api_key": _secret(api_key_filter),
        "private_chains_to_include": _uuids(private_chains),
        "include_child_requests": True if include_child_requests else None,
        "include_order_data": True if include_order_data else None,
        "include_authenticated_data": True if include_authenticated_data else None,
        "sort_by": _choice("sortBy", sort_by, SORT_BY_VALUES, fold=False),
        "sort_direction": _choice(
            "sortDirection", sort_direction, SORT_DIRECTION_VALUES, fold=True
        ),
        "limit": _limit(limit),
        "continuation": _text(continuation),
    }
    _check_combinations(fields)
    try:
        return RequestsQuery.build(**{k: v for k, v in fields.items() if v is not None})
    except RequestsQueryError as exc:  # the model's own rules, should they grow stricter
        raise _fail(exc.field, exc.message) from None


def _limit(value: str | int | None) -> int | None:
    number = _uint("limit", value)
    if number is not None and not MIN_LIMIT <= number <= MAX_LIMIT:
        raise _fail(
            "limit",
            f"{number} is out of range",
            f"a page holds {MIN_LIMIT} to {MAX_LIMIT} requests; the default is 20",
        )
    return number


def _check_combinations(fields: dict[str, Any]) -> None:
    start, end = fields["start_timestamp"], fields["end_timestamp"]
    if start is not None and end is not None and start > end:
        raise _fail(
            "endTimestamp",
            f"ends ({format_time(end)}) before --start ({format_time(start)})",
            "swap the two times",
        )
    first, last = fields["start_block"], fields["end_block"]
    if first is not None and last is not None and first > last:
        raise _fail("endBlock", f"{last} is below --start-block {first}", "swap the two blocks")
    if fields["chain_id"] is not None and (
        fields["origin_chain_id"] is not None or fields["destination_chain_id"] is not None
    ):
        raise _fail(
            "chainId",
            "is ignored by the service when --origin-chain or --destination-chain is given",
            "use --chain alone (either direction) or the origin/destination options",
        )
    if fields["include_child_requests"] and not (fields["id"] or fields["deposit_address"]):
        raise _fail(
            "includeChildRequests",
            "only applies together with --id or --deposit-address",
            "add one of them, or drop the flag",
        )


# -- quick filters -------------------------------------------------------------------------


class QuickFilter(StrEnum):
    """Presets the History screen offers as one-key toggles."""

    MINE = "mine"
    FAILED = "failed"
    REFUNDED = "refunded"

    @property
    def label(self) -> str:
        return _QUICK_LABELS[self]


_QUICK_LABELS = {
    QuickFilter.MINE: "Mine (sent or received by this wallet)",
    QuickFilter.FAILED: "Failed",
    QuickFilter.REFUNDED: "Refunded",
}


def counts_as_failed(status: str, fail_reason: object) -> bool:
    """The 'failed' quick filter: a request in `failure`, or one refunded because it failed
    (`refund` / `fallback` with a failReason other than 'N/A')."""
    if status == "failure":
        return True
    failed = isinstance(fail_reason, str) and fail_reason not in ("", "N/A")
    return status in ("refund", "fallback") and failed


def apply_quick_filters(
    query: RequestsQuery, active: Iterable[QuickFilter | str], *, wallet: str | None = None
) -> RequestsQuery:
    """`query` with the presets applied on top (each preset overrides the field it sets), from
    its first page. `refunded` sets the single `status` value; `failed` lists every status and
    leaves the choice to `counts_as_failed` (failures, refunded ones included), so the two
    cannot be combined; `mine` needs the wallet address."""
    chosen = {QuickFilter(value) for value in active}
    update: dict[str, Any] = {"continuation": None}
    if QuickFilter.FAILED in chosen and QuickFilter.REFUNDED in chosen:
        raise _fail(
            "status", "'failed' and 'refunded' cannot both be on", "the status filter is one value"
        )
    if QuickFilter.MINE in chosen:
        address = _address("user", wallet)
        if address is None:
            raise _fail("user", "'mine' needs a wallet address", "import or create a wallet first")
        update["user"] = address
    # FAILED asks for every status: a failure that was then refunded is listed as `refund`,
    # and the status filter is one value; the rows are kept by `counts_as_failed` instead
    if QuickFilter.FAILED in chosen:
        update["status"] = None
    if QuickFilter.REFUNDED in chosen:
        update["status"] = "refund"
    return RequestsQuery.build(**{**query.model_dump(exclude_none=True), **update})


def describe_filters(query: RequestsQuery) -> str:
    """The active filters in one line (the API key filter shown as set, never its value)."""
    params = query.to_params()
    params.pop("continuation", None)
    if "apiKey" in params:
        params["apiKey"] = "<set>"
    for name in ("startTimestamp", "endTimestamp"):
        if name in params:
            params[name] = format_time(int(params[name]))
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no filters"
