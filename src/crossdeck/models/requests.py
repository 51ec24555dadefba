"""The request record of the history endpoint (spec 2.3) and its page (GET /requests/v2)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from crossdeck.models.base import IntStr, IsoDateTime, WireModel
from crossdeck.models.status import RequestStatus, StatusValue, is_final, parse_status


class DepositAddressInfo(WireModel):
    address: str | None = None
    deposit_address_type: Literal["open", "strict"] | str | None = Field(
        default=None, union_mode="left_to_right"
    )
    depositor: str | None = None
    deposit_tx_hash: str | None = None


class RequestFees(WireModel):
    gas: IntStr | None = None
    fixed: IntStr | None = None
    price: IntStr | None = None


class RequestTxData(WireModel):
    to: str | None = None
    data: str | None = None
    from_: str | None = Field(default=None, alias="from")
    value: IntStr | None = None


class RequestTx(WireModel):
    fee: IntStr | None = None
    data: RequestTxData | None = None
    hash: str | None = None
    type: str | None = None
    chain_id: int | None = None
    timestamp: int | None = None  # Unix seconds


class RequestData(WireModel):
    subsidized_request: bool | None = None
    fees: RequestFees | None = None
    fees_usd: RequestFees | None = None
    in_txs: list[RequestTx] | None = None
    out_txs: list[RequestTx] | None = None
    currency: str | None = None
    price: IntStr | None = None
    uses_external_liquidity: bool | None = None


class RequestRecord(WireModel):
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
    def known_status(self) -> RequestStatus | None:
        return parse_status(self.status)

    @property
    def is_final(self) -> bool:
        return is_final(self.status)

    @property
    def in_tx_hashes(self) -> list[str]:
        txs = (self.data.in_txs if self.data else None) or []
        return [tx.hash for tx in txs if tx.hash]

    @property
    def out_tx_hashes(self) -> list[str]:
        txs = (self.data.out_txs if self.data else None) or []
        return [tx.hash for tx in txs if tx.hash]


class RequestsPage(WireModel):
    requests: list[RequestRecord] = Field(default_factory=list)
    continuation: str | None = None

    @property
    def has_more(self) -> bool:
        return bool(self.continuation)
