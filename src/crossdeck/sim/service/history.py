"""GET /requests/v2: filters (4.2), sorting and an opaque keyset cursor.

The cursor is base64url of the last row's (sort key, insertion sequence) plus the sort and a
fingerprint of the filters, so a page continues strictly after the last row it returned: rows
inserted while a client pages never cause duplicates or gaps among the rows that existed when
paging began (with sortBy=updatedAt, a row updated during paging moves, as it should).
A cursor used with other filters or another sort is refused (400).

GET /requests/v3 (the public successor of v2) lists the same rows: `list_requests_v3` reads its
extra filters (`term`, `recipient`, and `filters`: OR'd groups of equality on identity, address,
chain and status fields, `not:` to negate, an array for any of several values), refuses the
v2-only `hash`/`includeOrderData`, and `record_v3` writes each row in the v3 record shape.
v2 answers carry the `deprecation` object the public service adds (`V2_DEPRECATION`).

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
from crossdeck.sim.service.money import format_units, format_usd
from crossdeck.sim.service.records import iso
from crossdeck.sim.service.search_keys import address_key, hash_key
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
    "term",
    "recipient",
    "filters",
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
    state: ServiceState,
    query: Mapping[str, str],
    *,
    caller_key_name: str | None,
    extra: list[tuple[str, list[Any]]] | None = None,
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

    for clause, values in extra or ():
        add(clause, *values)

    if user := query.get("user"):
        add("(user_addr = ? OR recipient = ?)", address_key(user), address_key(user))
    if tx_hash := query.get("hash"):
        add(
            "EXISTS (SELECT 1 FROM tx_hashes t WHERE t.request_id = requests.id AND t.hash = ?)",
            hash_key(tx_hash),
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


# -- GET /requests/v3 ------------------------------------------------------------------------

V2_DEPRECATION: dict[str, str] = {
    "message": "GET /requests/v2 is deprecated. Migrate to GET /requests/v3. The v2 rate limit "
    "is reduced in stages from September 1, 2026; v2 is retired on November 24, 2026.",
    "deprecatedAt": "2026-07-22T00:00:00Z",
    "throttledFrom": "2026-09-01T00:00:00Z",
    "sunsetAt": "2026-11-24T00:00:00Z",
    "successor": "/requests/v3",
    "migrationGuide": "/requests/v3",
}
"""What a v2 answer carries as `deprecation` (successor paths relative to this service)."""

V2_DEPRECATION_HEADERS = {
    "Deprecation": "@1784678400",  # 2026-07-22T00:00:00Z, an RFC 9745 structured-field date
    "Sunset": "Tue, 24 Nov 2026 00:00:00 GMT",
    "Link": '</requests/v3>; rel="successor-version"',
}

# filter-group keys the world understands, and the SQL each one tests (one value at a time)
_GROUP_CLAUSES = {
    "user": "user_addr = ?",
    "recipient": "recipient = ?",
    "depositAddress": "deposit_address = ?",
    "id": "id = ?",
    "orderId": "order_id = ?",
    "status": "status = ?",
    "originChainId": "origin_chain = ?",
    "destinationChainId": "destination_chain = ?",
    "chainId": "(origin_chain = ? OR destination_chain = ?)",
}
_CHAIN_KEYS = ("originChainId", "destinationChainId", "chainId")
_V2_ONLY = {"hash": "use term (or depositTxHash / fillTxHash)", "includeOrderData": "v3 has none"}


def _group_value(key: str, value: object) -> list[Any]:
    if key in _CHAIN_KEYS:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise invalid(f"filters: {key} must be a chain id", field="filters")
        text = str(value)
        if not _INT_RE.fullmatch(text):
            raise invalid(f"filters: {key} must be a chain id", field="filters")
        return [int(text)] * (2 if key == "chainId" else 1)
    if not isinstance(value, str) or not value:
        raise invalid(f"filters: {key} must be a non-empty string", field="filters")
    if key in ("user", "recipient"):
        return [address_key(value)]  # a Solana address keeps its case
    return [value if key == "status" else value.lower()]


def _filter_groups(text: str) -> tuple[str, list[Any]]:
    """`filters`: groups OR'd, keys AND'd inside a group, `not:` negates, arrays mean any-of."""
    try:
        groups = json.loads(text)
    except ValueError:
        raise invalid("filters must be a JSON array of objects", field="filters") from None
    if not isinstance(groups, list) or not groups or not all(isinstance(g, dict) for g in groups):
        raise invalid("filters must be a non-empty JSON array of objects", field="filters")
    ors: list[str] = []
    params: list[Any] = []
    for group in groups:
        ands: list[str] = []
        for raw_key, raw_value in group.items():
            negate = raw_key.startswith("not:")
            key = raw_key.removeprefix("not:")
            clause = _GROUP_CLAUSES.get(key)
            if clause is None:
                raise invalid(f"filters: {raw_key!r} is not a filter key", field="filters")
            values = raw_value if isinstance(raw_value, list) else [raw_value]
            if not values:
                raise invalid(f"filters: {raw_key} has an empty list", field="filters")
            anyof = []
            for value in values:
                anyof.append(clause)
                params.extend(_group_value(key, value))
            test = "(" + " OR ".join(anyof) + ")"
            ands.append(f"NOT {test}" if negate else test)
        ors.append("(" + (" AND ".join(ands) or "1") + ")")
    return "(" + " OR ".join(ors) + ")", params


def list_requests_v3(
    state: ServiceState, query: Mapping[str, str], *, caller_key_name: str | None
) -> Page:
    """GET /requests/v3: the v2 listing plus `term`, `recipient` and `filters`."""
    for name, why in _V2_ONLY.items():
        if query.get(name) not in (None, ""):
            raise invalid(f"{name} is not a /requests/v3 parameter ({why})", field=name)
    extra: list[tuple[str, list[Any]]] = []
    if term := query.get("term"):
        # an id or deposit address is hex; a Solana address or signature keeps its case
        address = address_key(term)
        extra.append(
            (
                "(id = ? OR user_addr = ? OR recipient = ? OR deposit_address = ? OR EXISTS "
                "(SELECT 1 FROM tx_hashes t WHERE t.request_id = requests.id AND t.hash = ?))",
                [term.lower(), address, address, term.lower(), hash_key(term)],
            )
        )
    if recipient := query.get("recipient"):
        extra.append(("recipient = ?", [address_key(recipient)]))
    if text := query.get("filters"):
        clause, values = _filter_groups(text)
        extra.append((clause, values))
    return list_requests(state, query, caller_key_name=caller_key_name, extra=extra)


def _leg_amounts(leg: object, fallback_in: object, fallback_out: object) -> dict[str, Any]:
    given = leg if isinstance(leg, dict) else {}
    return {
        "inputCurrency": given.get("inputCurrency") or fallback_in,
        "outputCurrency": given.get("outputCurrency") or fallback_out,
    }


def _fees_v3(record: RequestRecord, component: dict[str, Any]) -> dict[str, Any]:
    """`data.fees`: v2's expandedPriceImpact under v3's names (the service's own bucket is
    `platform`), each with the amount in the fee currency's smallest unit."""
    gas, fixed, price = (record.fees.get(k, 0) for k in ("gas", "fixed", "price"))
    usd = record.fees_usd

    decimals = component.get("decimals")
    decimals = decimals if isinstance(decimals, int) else 0

    def bucket(units: int, micro_usd: int) -> dict[str, str]:
        return {
            "usd": format_usd(-micro_usd),
            "amount": str(units),
            "amountFormatted": format_units(units, decimals),
        }

    quoted = {
        "swap": bucket(price, usd.get("price", 0)),
        "execution": bucket(gas, usd.get("gas", 0)),
        "platform": bucket(fixed, usd.get("fixed", 0)),
        "app": bucket(0, 0),
        "sponsored": bucket(0, 0),
    }
    return {
        "quoted": quoted,
        "actual": {name: {"usd": value["usd"]} for name, value in quoted.items()},
        "currency": component,
    }


def _tx_v3(tx: Any) -> dict[str, Any]:
    return {
        "txHash": tx.hash,
        "fee": str(tx.fee),
        "block": tx.block if tx.block is not None else 0,
        "type": "onchain",
        "chainId": tx.chain_id,
        "timestamp": tx.timestamp,
        "status": "success",
        "data": {},
        "stateChanges": [],
    }


def _request_type(currency_in: dict[str, Any], currency_out: dict[str, Any]) -> str:
    # the same asset on both ends is a bridge; anything else a swap across chains
    same = currency_in.get("symbol") == currency_out.get("symbol")
    return "Bridge" if same else "Crosschain Swap"


def record_v3(
    record: RequestRecord,
    *,
    router: str,
    solver: str,
    depository: str,
    authenticated: bool = False,
) -> dict[str, Any]:
    """One row in the /requests/v3 record shape (the public migration guide's example)."""
    details = record.quote.get("details") or {}
    currency_in = details.get("currencyIn") or {}
    currency_out = details.get("currencyOut") or {}
    route = details.get("route") or {}
    origin = {**_leg_amounts(route.get("origin"), currency_in, currency_in), "router": router}
    destination = {
        **_leg_amounts(route.get("destination"), currency_out, currency_out),
        "router": router,
    }
    quoted_route = {"origin": origin, "destination": destination}
    fee_currency = currency_in.get("currency") or {}
    failed = record.status in (Status.FAILURE, Status.REFUND)
    data: dict[str, Any] = {
        "slippageTolerance": "0",
        "failReason": (record.fail_reason or "UNKNOWN") if failed else None,
        "refundFailReason": record.refund_fail_reason,
        "failedTxHash": None,
        "failedTxBlockNumber": None,
        "failedCallData": None,
        "usesExternalLiquidity": False,
        "timeEstimate": details.get("timeEstimate", 0),
        "triggeredByFastFill": None,
        "inTxs": [_tx_v3(tx) for tx in record.in_txs],
        "outTxs": [_tx_v3(tx) for tx in record.out_txs],
        "appFees": {"quoted": [], "actual": [], "currency": fee_currency},
        "fees": _fees_v3(record, fee_currency),
        "route": {
            "includedSwapSources": [],
            "includedOriginSwapSources": [],
            "includedDestinationSwapSources": [],
            "quoted": quoted_route,
            "actual": {"rate": str(details.get("rate") or "1"), **quoted_route},
        },
        "platformFee": None,
        "quoteOraclePrice": None,
        "refundCurrencyData": None,
        "externalMetadata": {"moonpayId": None},
    }
    sponsorship = record.quote.get("feeSponsorship")
    if sponsorship:
        data["feeSponsorship"] = {
            "quoted": sponsorship.get("quoted"),
            "actual": record.fee_sponsorship_actual,
            "currency": fee_currency,
        }
    if authenticated:  # v3 returns the referrer only to the key that created the request
        data["referrer"] = record.referrer
    deposit = record.deposit_address
    fills = [{"chainId": tx.chain_id, "transactionId": tx.hash} for tx in record.out_txs]
    first_in = record.in_txs[0].hash if record.in_txs else None
    return {
        "id": record.id,
        "status": record.status.value,
        "user": record.user,
        "sender": record.user,
        "recipient": record.recipient,
        "refundTo": record.refund_to or None,
        "depositAddress": (
            {
                "address": deposit.address,
                "type": deposit.type,
                "depositor": deposit.depositor,
                "depositTxHash": deposit.deposit_tx_hash,
                "recoveryAddress": None,
            }
            if deposit
            else None
        ),
        "requestType": _request_type(fee_currency, currency_out.get("currency") or {}),
        "data": data,
        "protocol": {
            "orderId": record.order_id,
            "hubType": "onchain",
            "isWithdrawable": False,
            "solver": {
                "address": solver,
                "protocolChainId": str(record.destination_chain_id),
                "chainId": record.destination_chain_id,
            },
            "deposit": {
                "origin": {
                    "amount": str(record.amount_in),
                    "chainId": record.origin_chain_id,
                    "currency": record.origin_currency,
                    "depositor": record.user,
                    "depository": depository,
                    "onchainId": record.order_id,
                    "transactionId": first_in,
                }
            },
            "settlement": {"destination": {"fills": fills, "refunds": []}},
        },
        "features": ["deposit_address"] if deposit else [],
        "createdAt": iso(record.created_at),
        "updatedAt": iso(record.updated_at),
    }
