"""JSON views of a stored request: the history record (2.3) and the status bodies (4.3).

History record choices where the spec says "not shown":
- ``data.fees`` {gas, fixed, price} are integer strings in the input currency's smallest
  units: gas = execution (incl. gas topup), fixed = the service fee, price = swap + app fees;
  ``data.feesUsd`` the same in USD as decimal strings with 6 places ("0.003806"), as the public
  service writes them.
- The public record's extra members: ``slippageTolerance`` (bps digit string), ``currencyObject``,
  ``feeCurrency(Object)``, ``appFeeCurrencyObject``, ``appFees``/``paidAppFees``, tx ``status``,
  ``metadata.route`` and ``amountUsdCurrent``.
- ``data.currency`` is the input currency's lowercase symbol, ``data.price`` the input amount.
- ``data.metadata`` carries sender, recipient, currencyIn, currencyOut and rate.
- ``parentRequestId`` (top level) and ``data.requestKind`` ('main', 'refund', 'duplicate', ...)
  link child legs to their request; ``data.orderId`` is the protocol order id.
- ``orderData`` (top level) only with includeOrderData=true.
- ``authenticatedData`` {apiKeyName, refundTo} only with includeAuthenticatedData=true and the
  x-api-key that created the request.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from crossdeck.sim.service.money import format_usd
from crossdeck.sim.service.state import RequestRecord, Status

V1_STATUS = {
    Status.WAITING: "pending",
    Status.DEPOSITING: "received",
    Status.PENDING: "received",
    Status.SUBMITTED: "received",
    Status.SUCCESS: "success",
    Status.FAILURE: "failure",
    Status.REFUND: "fallback",
}


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{ms % 1000:03d}Z"
    )


def fail_reason(record: RequestRecord) -> str:
    """'N/A' unless failed or refunded; then the recorded reason or 'UNKNOWN' (6.1)."""
    if record.status not in (Status.FAILURE, Status.REFUND):
        return "N/A"
    return record.fail_reason or "UNKNOWN"


def refund_fail_reason(record: RequestRecord) -> str:
    return record.refund_fail_reason or "N/A"


def _quote_details(record: RequestRecord) -> dict[str, Any]:
    return record.quote.get("details") or {}


def history_record(
    record: RequestRecord, *, include_order_data: bool = False, authenticated: bool = False
) -> dict[str, Any]:
    details = _quote_details(record)
    currency_in = details.get("currencyIn") or {}
    in_currency = currency_in.get("currency") or {}
    symbol = in_currency.get("symbol", "")
    slippage = ((details.get("slippageTolerance") or {}).get("destination") or {}).get("percent")
    data: dict[str, Any] = {
        # bps as a digit string, as the public record writes it ("50")
        "slippageTolerance": str(int(Decimal(slippage or "0") * 100)),
        "failReason": fail_reason(record),
        "refundFailReason": refund_fail_reason(record),
        "subsidizedRequest": record.subsidized,
        "fees": {k: str(v) for k, v in record.fees.items()},
        "feesUsd": {k: format_usd(v) for k, v in record.fees_usd.items()},
        "inTxs": [_tx_json(tx.to_json()) for tx in record.in_txs],
        "outTxs": [_tx_json(tx.to_json()) for tx in record.out_txs],
        "currency": symbol.lower(),
        "currencyObject": {},
        "feeCurrency": symbol.lower(),
        "feeCurrencyObject": in_currency,
        "appFeeCurrencyObject": in_currency,
        "appFees": [],
        "paidAppFees": [],
        "price": str(record.amount_in),
        "usesExternalLiquidity": False,
        "timeEstimate": details.get("timeEstimate", 0),
        "orderId": record.order_id,
        "requestKind": record.kind,
        "metadata": {
            "sender": record.user,
            "recipient": record.recipient,
            "currencyIn": _with_current_usd(details.get("currencyIn")),
            "currencyOut": _with_current_usd(details.get("currencyOut")),
            "rate": details.get("rate"),
            "route": details.get("route"),
        },
    }
    sponsorship = record.quote.get("feeSponsorship")
    if sponsorship:
        data["feeSponsorship"] = {
            "quoted": sponsorship.get("quoted"),
            "actual": record.fee_sponsorship_actual,
        }
    out: dict[str, Any] = {
        "id": record.id,
        "status": record.status.value,
        "user": record.user,
        "recipient": record.recipient,
        "depositAddress": record.deposit_address.to_json() if record.deposit_address else None,
        "referrer": record.referrer,
        "parentRequestId": record.parent_id,
        "data": data,
        "createdAt": iso(record.created_at),
        "updatedAt": iso(record.updated_at),
    }
    if include_order_data:
        out["orderData"] = record.extra.get("orderData")
    if authenticated:
        out["authenticatedData"] = {"apiKeyName": record.api_key_name, "refundTo": record.refund_to}
    return out


def _tx_json(tx: dict[str, Any]) -> dict[str, Any]:
    """A stored (mined) transaction as the public record lists it: with its status."""
    return {**tx, "status": "success"}


def _with_current_usd(amount: dict[str, Any] | None) -> dict[str, Any] | None:
    """The public record adds amountUsdCurrent (today's value); the world's prices are fixed."""
    if not amount:
        return amount
    return {**amount, "amountUsdCurrent": amount.get("amountUsd")}


def status_v1(record: RequestRecord) -> dict[str, Any]:
    return {
        "status": V1_STATUS[record.status],
        "details": _status_details_text(record),
        "inTxHashes": [tx.hash for tx in record.in_txs],
        "txHashes": [tx.hash for tx in record.out_txs],
        "time": record.updated_at,
        "originChainId": record.origin_chain_id,
        "destinationChainId": record.destination_chain_id,
    }


def _status_details_text(record: RequestRecord) -> str | None:
    if record.details is None:
        return None
    return record.details if isinstance(record.details, str) else str(record.details)


def status_v3(record: RequestRecord) -> dict[str, Any]:
    return {
        "status": record.status.value,
        "details": record.details,
        "failReason": fail_reason(record),
        "refundFailReason": refund_fail_reason(record),
        "inTxHashes": [tx.hash for tx in record.in_txs],
        "txHashes": [tx.hash for tx in record.out_txs],
        "updatedAt": record.updated_at,
        "originChainId": record.origin_chain_id,
        "destinationChainId": record.destination_chain_id,
        "quoteCreatedAt": record.created_at,
    }


def webhook_data(record: RequestRecord) -> dict[str, Any]:
    """The ``data`` member of a 6.1 webhook payload for this record (for the World)."""
    return {
        "status": record.status.value,
        "inTxHashes": [tx.hash for tx in record.in_txs],
        "txHashes": [tx.hash for tx in record.out_txs],
        "updatedAt": record.updated_at,
        "originChainId": record.origin_chain_id,
        "destinationChainId": record.destination_chain_id,
        "depositAddress": record.deposit_address.to_json() if record.deposit_address else None,
        "requestId": record.id,
        "details": record.details,
        "failReason": fail_reason(record),
        "refundFailReason": refund_fail_reason(record),
        "referrer": record.referrer,
    }
