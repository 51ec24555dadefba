"""The request record of GET /requests/v3 and its page, and the `deprecation` notice that
GET /requests/v2 answers carry (the public migration guide to requests v3).

v3 is not v2 with new fields: `inTxs[].hash` became `txHash`, `data.metadata` (currencyIn,
currencyOut, sender) became `data.route.{quoted,actual}` and a root `sender`, `data.fees` now
holds the USD breakdown v2 called `expandedPriceImpact`, `depositAddress` is an object with
`type`, and `failReason` is null rather than "N/A". Only what crossdeck reads is typed here;
everything else is kept as it arrived (`WireModel` extras) and written back out unchanged.
"""

from __future__ import annotations

from pydantic import Field, ValidationError

from crossdeck.models.amounts import CurrencyAmount
from crossdeck.models.base import IsoDateTime, WireModel, new_list
from crossdeck.models.status import StatusReading, StatusValue


class RequestsDeprecation(WireModel):
    """The `deprecation` object of a GET /requests/v2 answer. Every field is text as sent: a
    notice is shown, never computed with, so an odd date must not drop the page it came on."""

    message: str | None = None
    deprecated_at: str | None = None
    throttled_from: str | None = None
    sunset_at: str | None = None
    successor: str | None = None
    migration_guide: str | None = None

    @property
    def text(self) -> str:
        """One line for a person: the service's message, else what can be said from the dates."""
        if self.message:
            return self.message
        sunset = f"; retired on {self.sunset_at}" if self.sunset_at else ""
        successor = f"; successor: {self.successor}" if self.successor else ""
        return f"this listing endpoint is deprecated{sunset}{successor}"


def deprecation_of(page: WireModel) -> RequestsDeprecation | None:
    """The page's `deprecation` notice, or None (also when it is not an object we can read:
    it stays in the page's extras either way)."""
    raw = page.extra_fields.get("deprecation")
    if not isinstance(raw, dict):
        return None
    try:
        return RequestsDeprecation.from_wire(raw)
    except ValidationError:
        return None


class DepositAddressV3(WireModel):
    address: str | None = None
    type: str | None = None  # "strict" | "open"
    depositor: str | None = None
    deposit_tx_hash: str | None = None
    recovery_address: str | None = None


class RequestTxV3(WireModel):
    tx_hash: str | None = None
    chain_id: int | None = None
    timestamp: int | None = None  # Unix seconds
    block: int | None = None
    status: str | None = None

    @property
    def hash(self) -> str | None:
        """v2 named it `hash`; explorer links and rows read it by that name."""
        return self.tx_hash


class RequestDataV3(WireModel):
    fail_reason: str | None = None
    refund_fail_reason: str | None = None
    in_txs: list[RequestTxV3] | None = None
    out_txs: list[RequestTxV3] | None = None


def _route_amount(data: RequestDataV3 | None, side: str, which: str) -> CurrencyAmount | None:
    """`data.route.actual.<side>.<which>`, falling back to `quoted` (the guide: `actual` may be
    missing before execution). An odd route blob gives None rather than breaking a listing."""
    route = data.extra_fields.get("route") if data is not None else None
    if not isinstance(route, dict):
        return None
    for phase in ("actual", "quoted"):
        leg = route.get(phase)
        leg = leg.get(side) if isinstance(leg, dict) else None
        raw = leg.get(which) if isinstance(leg, dict) else None
        if isinstance(raw, dict):
            try:
                return CurrencyAmount.from_wire(raw)
            except ValidationError:
                continue
    return None


class RequestRecordV3(StatusReading, WireModel):
    """One request as GET /requests/v3 sends it."""

    id: str | None = None
    status: StatusValue | None = None
    user: str | None = None
    sender: str | None = None
    recipient: str | None = None
    refund_to: str | None = None
    deposit_address: DepositAddressV3 | None = None
    request_type: str | None = None
    data: RequestDataV3 | None = None
    features: list[str] | None = None
    created_at: IsoDateTime | None = None
    updated_at: IsoDateTime | None = None

    @property
    def in_tx_hashes(self) -> list[str]:
        txs = (self.data.in_txs if self.data else None) or []
        return [tx.tx_hash for tx in txs if tx.tx_hash]

    @property
    def out_tx_hashes(self) -> list[str]:
        txs = (self.data.out_txs if self.data else None) or []
        return [tx.tx_hash for tx in txs if tx.tx_hash]

    @property
    def currency_in(self) -> CurrencyAmount | None:
        """What was deposited: `route.actual.origin.inputCurrency` (then `quoted`)."""
        return _route_amount(self.data, "origin", "inputCurrency")

    @property
    def currency_out(self) -> CurrencyAmount | None:
        """What was received: the destination's output; a same-chain swap has no destination
        side, so the origin's output then (the migration guide's rule)."""
        return _route_amount(self.data, "destination", "outputCurrency") or _route_amount(
            self.data, "origin", "outputCurrency"
        )


class RequestsPageV3(WireModel):
    requests: list[RequestRecordV3] = Field(default_factory=new_list)
    continuation: str | None = None
    total: int | None = None  # only with includeTotal=true

    @property
    def has_more(self) -> bool:
        return bool(self.continuation)
