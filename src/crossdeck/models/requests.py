"""The request record of the history endpoint (spec 2.3) and its page (GET /requests/v2).

Records are only shown, never acted on, and the public service adds fields as it likes
(`currencyObject`, `appFees`, `inTxs[].stateChanges`, ...): every model here is lenient, so a
field of an unexpected form is kept as it came instead of dropping the record or the page."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Literal

from pydantic import Field

from crossdeck.models.base import IntStr, IsoDateTime, LenientWireModel, new_list
from crossdeck.models.status import StatusReading, StatusValue


class DepositAddressInfo(LenientWireModel):
    address: str | None = None
    deposit_address_type: Literal["open", "strict"] | str | None = Field(
        default=None, union_mode="left_to_right"
    )
    depositor: str | None = None
    deposit_tx_hash: str | None = None


class RequestFees(LenientWireModel):
    gas: IntStr | None = None
    fixed: IntStr | None = None
    price: IntStr | None = None


class RequestFeesUsd(LenientWireModel):
    """The same fees in USD: decimal strings ("0.003806"), kept as sent."""

    gas: str | None = None
    fixed: str | None = None
    price: str | None = None

    def decimal(self, name: str) -> Decimal | None:
        """One fee as an exact Decimal (for display), or None when absent or not a number."""
        text = getattr(self, name, None)
        try:
            value = Decimal(text) if isinstance(text, str) else None
        except InvalidOperation:
            return None
        return value if value is not None and value.is_finite() else None


class RequestTxData(LenientWireModel):
    to: str | None = None
    data: str | None = None
    from_: str | None = Field(default=None, alias="from")
    value: IntStr | None = None


class RequestTx(LenientWireModel):
    fee: IntStr | None = None
    data: RequestTxData | None = None
    hash: str | None = None
    type: str | None = None
    chain_id: int | None = None
    timestamp: int | None = None  # Unix seconds


class RequestData(LenientWireModel):
    subsidized_request: bool | None = None
    fees: RequestFees | None = None
    fees_usd: RequestFeesUsd | None = None
    in_txs: list[RequestTx] | None = None
    out_txs: list[RequestTx] | None = None
    currency: str | None = None
    price: IntStr | None = None
    uses_external_liquidity: bool | None = None


class RequestRecord(StatusReading, LenientWireModel):
    """One request. The payment partner's id field carries a brand in its name, so it is kept
    as an unnamed passthrough in `extra_fields`."""

    id: str | None = None
    status: StatusValue | None = None
    user: str | None = None
    recipient: str | None = None
    deposit_address: DepositAddressInfo | None = None
    data: RequestData | None = None
    created_at: IsoDateTime | None = None
    updated_at: IsoDateTime | None = None

    @property
    def in_tx_hashes(self) -> list[str]:
        txs = (self.data.in_txs if self.data else None) or []
        return [tx.hash for tx in txs if tx.hash]

    @property
    def out_tx_hashes(self) -> list[str]:
        txs = (self.data.out_txs if self.data else None) or []
        return [tx.hash for tx in txs if tx.hash]


class RequestsPage(LenientWireModel):
    requests: list[RequestRecord] = Field(default_factory=new_list)
    continuation: str | None = None

    @property
    def has_more(self) -> bool:
        return bool(self.continuation)
