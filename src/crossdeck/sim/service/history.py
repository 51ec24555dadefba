"""GET /requests/v2: filters (4.2), sorting and an opaque keyset cursor.

The cursor is base64url of the last row's (sort key, insertion sequence) plus the sort and a
fingerprint of the filters, so a page continues strictly after the last row it returned: rows
inserted while a client pages never cause duplicates or gaps among the rows that existed when
paging began (with sortBy=updatedAt, a row updated during paging moves, as it should).
A cursor used with other filters or another sort is refused (400).

Requests still ``waiting`` (quoted, nothing deposited) are listed only when asked for by
``status=waiting``, ``id`` or ``depositAddress``, so abandoned quotes do not flood history.
Child legs (refunds, duplicates) are ordinary rows of the listing; with ``id`` or
``depositAddress`` they are added only with ``includeChildRequests=true``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crossdeck.sim.service.errors import ServiceError, invalid
from crossdeck.sim.service.state import RequestRecord, ServiceState, Status, key_hash

DEFAULT_LIMIT = 20
MAX_LIMIT = 50
_INT_RE = re.compile(r"^[0-9]{1,20}$")
_FILTER_KEYS = (
    "user",
    "hash",
    "originChainId",
    "destinationChainId",
    "chainId",
    "id",
    "orderId",
    "startTimestamp",
    "endTimestamp",
    "startBlock",
    "endBlock",
    "referrer",
    "depositAddress",
    "includeChildRequests",
    "status",
    "apiKey",
    "privateChainsToInclude",
)


@dataclass(frozen=True)
class Page:
    records: list[RequestRecord]
    continuation: str | None
    include_order_data: bool
    include_authenticated: bool


def _bool_param(query: Mapping[str, str], name: str) -> bool:
    value = query.get(name)
    if value is None:
        return False
    if value.lower() in ("true", "1"):
        return True
    if value.lower() in ("false", "0", ""):
        return False
    raise invalid(f"{name} must be true or false, got {value!r}", field=name)


def _int_param(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    if not _INT_RE.fullmatch(value):
        raise invalid(f"{name} must be a non-negative integer, got {value!r}", field=name)
    return int(value)


def _fingerprint(query: Mapping[str, str]) -> str:
    filters = {k: query[k] for k in _FILTER_KEYS if query.get(k) not in (None, "")}
    if "apiKey" in filters:  # never put a key, even hashed, into a cursor a client keeps
        filters["apiKey"] = key_hash(filters["apiKey"])
    text = json.dumps(filters, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encode_cursor(key: int, seq: int, sort_by: str, direction: str, fingerprint: str) -> str:
    raw = json.dumps({"k": key, "s": seq, "b": sort_by, "d": direction, "f": fingerprint})
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(text: str) -> dict[str, Any]:
    try:
        padded = text + "=" * (-len(text) % 4)
        raw = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not (
            isinstance(raw, dict)
            and isinstance(raw.get("k"), int)
            and isinstance(raw.get("s"), int)
            and raw.get("b") in ("createdAt", "updatedAt")
            and raw.get("d") in ("asc", "desc")
            and isinstance(raw.get("f"), str)
        ):
            raise ValueError("shape")
        return raw
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise invalid(
            "continuation is not a cursor this service issued; start again without it",
            field="continuation",
        ) from exc


def list_requests(
    state: ServiceState, query: Mapping[str, str], *, caller_key_name: str | None
) -> Page:
    limit = _int_param(query, "limit")
    if limit is None:
        limit = DEFAULT_LIMIT if query.get("limit") is None else 0
    if not 1 <= limit <= MAX_LIMIT:
        raise invalid(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    sort_by = query.get("sortBy") or "createdAt"
    if sort_by not in ("createdAt", "updatedAt"):
        raise invalid(f"sortBy must be createdAt or updatedAt, got {sort_by!r}", field="sortBy")
    direction = query.get("sortDirection") or "desc"
    if direction not in ("asc", "desc"):
        raise invalid(
            f"sortDirection must be asc or desc, got {direction!r}", field="sortDirection"
        )
    include_children = _bool_param(query, "includeChildRequests")
    include_order_data = _bool_param(query, "includeOrderData")
    include_authenticated = _bool_param(query, "includeAuthenticatedData")

    where: list[str] = []
    params: list[Any] = []

    def add(clause: str, *values: Any) -> None:
        where.append(clause)
        params.extend(values)

    if user := query.get("user"):
        add("(user_addr = ? OR recipient = ?)", user.lower(), user.lower())
    if tx_hash := query.get("hash"):
        add(
            "EXISTS (SELECT 1 FROM tx_hashes t WHERE t.request_id = requests.id AND t.hash = ?)",
            tx_hash.lower(),
        )
    origin = _int_param(query, "originChainId")
    destination = _int_param(query, "destinationChainId")
    if origin is not None:
        add("origin_chain = ?", origin)
    if destination is not None:
        add("destination_chain = ?", destination)
    chain = _int_param(query, "chainId")
    if chain is not None and origin is None and destination is None:
        add("(origin_chain = ? OR destination_chain = ?)", chain, chain)
    request_id = query.get("id")
    deposit_address = query.get("depositAddress")
    if request_id:
        if include_children:
            add("(id = ? OR parent_id = ?)", request_id.lower(), request_id.lower())
        else:
            add("id = ?", request_id.lower())
    if deposit_address:
        add("deposit_address = ?", deposit_address.lower())
        if not include_children:
            add("parent_id IS NULL")
    if order_id := query.get("orderId"):
        add("order_id = ?", order_id.lower())
    start_ts = _int_param(query, "startTimestamp")
    end_ts = _int_param(query, "endTimestamp")
    if start_ts is not None:
        add("created_at >= ?", start_ts * 1000)
    if end_ts is not None:
        add("created_at <= ?", end_ts * 1000 + 999)
    start_block = _int_param(query, "startBlock")
    end_block = _int_param(query, "endBlock")
    if start_block is not None:
        add("origin_block >= ?", start_block)
    if end_block is not None:
        add("origin_block <= ?", end_block)
    if referrer := query.get("referrer"):
        add("referrer = ?", referrer)
    status = query.get("status")
    if status:
        try:
            add("status = ?", Status(status).value)
        except ValueError:
            raise invalid(
                f"status must be one of {', '.join(s.value for s in Status)}, got {status!r}",
                field="status",
            ) from None
    elif not request_id and not deposit_address:
        add("status != 'waiting'")
    if api_key := query.get("apiKey"):
        add("api_key_name IS ?", state.api_key_name_for_hash(api_key) or "\x00no such key")

    column = "created_at" if sort_by == "createdAt" else "updated_at"
    fingerprint = _fingerprint(query)
    if cursor_text := query.get("continuation"):
        cursor = decode_cursor(cursor_text)
        if cursor["b"] != sort_by or cursor["d"] != direction or cursor["f"] != fingerprint:
            raise ServiceError(
                400,
                "INVALID_INPUT",
                "continuation belongs to a listing with other filters or another sort; "
                "repeat the same query parameters with it",
            )
        op = "<" if direction == "desc" else ">"
        add(
            f"({column} {op} ? OR ({column} = ? AND seq {op} ?))",
            cursor["k"],
            cursor["k"],
            cursor["s"],
        )

    order = "DESC" if direction == "desc" else "ASC"
    sql = (
        f"SELECT seq, {column} AS sort_key, body FROM requests"
        + (f" WHERE {' AND '.join(where)}" if where else "")
        + f" ORDER BY {column} {order}, seq {order} LIMIT ?"
    )
    rows = state.query(sql, [*params, limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    continuation = (
        encode_cursor(rows[-1]["sort_key"], rows[-1]["seq"], sort_by, direction, fingerprint)
        if more and rows
        else None
    )
    return Page(
        records=[state.record_of_row(r) for r in rows],
        continuation=continuation,
        include_order_data=include_order_data,
        include_authenticated=include_authenticated and caller_key_name is not None,
    )
