"""The quote response (spec 2.2): steps, fees, fee sponsorship, details and protocol."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from crossdeck.models.amounts import CurrencyAmount
from crossdeck.models.base import IntStr, LenientWireModel, WireModel, new_list
from crossdeck.models.steps import Step, TransactionData


class Fees(LenientWireModel):
    """Only shown, never acted on, so lenient: older answers carry each fee as a bare string
    ("0", with `relayerCurrency` beside it), which is kept as sent and reads as absent."""

    gas: CurrencyAmount | None = None
    relayer: CurrencyAmount | None = None
    relayer_gas: CurrencyAmount | None = None
    relayer_service: CurrencyAmount | None = None
    app: CurrencyAmount | None = None
    subsidized: CurrencyAmount | None = None
    # /quote/v3 only (its /requests/v3 layout has a swap component; v2 had none)
    swap: CurrencyAmount | None = None


class SponsorshipComponent(WireModel):
    selected: bool | None = None
    total: CurrencyAmount | None = None
    sponsored: CurrencyAmount | None = None
    user_pays: CurrencyAmount | None = None


class SponsorPayment(WireModel):
    amount: IntStr | None = None
    address: str | None = None
    chain_id: int | None = None


class SponsorshipBreakdown(WireModel):
    """One side of the fee sponsorship. `components` is keyed by component name: execution, swap,
    app and the one named after the service (its brand), so it stays a dict."""

    selected_components: list[str] | None = None
    cap_hit: bool | None = None
    components: dict[str, SponsorshipComponent] | None = None
    sponsored_total: CurrencyAmount | None = None
    user_pays_total: CurrencyAmount | None = None
    max_subsidization_amount: IntStr | None = None
    sponsor_payment: SponsorPayment | None = None  # 'actual' only


class FeeSponsorship(WireModel):
    quoted: SponsorshipBreakdown | None = None
    actual: SponsorshipBreakdown | None = None


class Impact(WireModel):
    usd: str | None = None
    percent: str | None = None


class UsdValue(WireModel):
    usd: str | None = None


class SlippageValue(WireModel):
    usd: str | None = None
    value: str | None = None
    percent: str | None = None


class SlippageTolerance(WireModel):
    origin: SlippageValue | None = None
    destination: SlippageValue | None = None


class RouteLeg(WireModel):
    input_currency: CurrencyAmount | None = None
    output_currency: CurrencyAmount | None = None
    router: str | None = None
    included_swap_sources: list[str] | None = None


class Route(WireModel):
    origin: RouteLeg | None = None
    destination: RouteLeg | None = None


class Details(WireModel):
    operation: str | None = None
    sender: str | None = None
    recipient: str | None = None
    currency_in: CurrencyAmount | None = None
    currency_out: CurrencyAmount | None = None
    refund_currency: CurrencyAmount | None = None
    currency_gas_topup: CurrencyAmount | None = None
    total_impact: Impact | None = None
    swap_impact: Impact | None = None
    # keyed swap, execution, <service name>, app, sponsored: a dict because one key is a brand
    expanded_price_impact: dict[str, UsdValue] | None = None
    rate: str | None = None
    slippage_tolerance: SlippageTolerance | None = None
    time_estimate: int | float | None = None
    user_balance: str | None = None
    fallback_type: str | None = None
    is_fixed_rate: bool | None = None
    fixed_rate_fee: UsdValue | None = None
    route: Route | None = None


def _chain_id_text(value: object) -> object:
    # the contract sends this chain id as a string; a number means the same chain
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class PaymentDetails(WireModel):
    chain_id: Annotated[str, BeforeValidator(_chain_id_text)] | None = None
    depository: str | None = None
    currency: str | None = None
    amount: IntStr | None = None


class ProtocolV2(WireModel):
    order_id: str | None = None
    order_data: Any = None
    payment_details: PaymentDetails | None = None


class Protocol(WireModel):
    v2: ProtocolV2 | None = None


class Quote(WireModel):
    steps: list[Step] = Field(default_factory=new_list)
    fees: Fees | None = None
    fee_sponsorship: FeeSponsorship | None = None
    details: Details | None = None
    protocol: Protocol | None = None
    # a /quote/v3 answer's fees as sent (`fees` holds them read as v2's members; see quote_v3)
    fees_v3: dict[str, Any] | None = None

    @property
    def request_id(self) -> str | None:
        """The request id of the first step that carries one."""
        for step in self.steps:
            if step.request_id:
                return step.request_id
        return None

    def step(self, step_id: str) -> Step | None:
        return next((s for s in self.steps if s.id == step_id), None)

    def transactions(self) -> list[TransactionData]:
        """The data of the quote's transaction items (the EVM ones), in step order."""
        return [
            item.as_transaction()
            for step in self.steps
            for item in step.items
            if item.kind_of_data == "transaction"
        ]

    @property
    def payment_details(self) -> PaymentDetails | None:
        v2 = self.protocol.v2 if self.protocol else None
        return v2.payment_details if v2 else None

    @property
    def order_id(self) -> str | None:
        v2 = self.protocol.v2 if self.protocol else None
        return v2.order_id if v2 else None
