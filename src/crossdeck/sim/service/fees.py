"""The fee model and the amount arithmetic of a quote (exact integers, documented rounding).

All fee components are charged in the input currency's smallest units:

- ``execution``: the destination execution cost (fixed USD per destination chain) plus the cost
  of a destination gas topup, each converted to input units rounding up;
- ``swap``: ``swap_fee_bps`` of the input when input and output are different assets, else 0;
- ``service`` (named after the service in JSON): ``service_fee_bps`` of the input;
- ``app``: the sum of the quote's ``appFees`` basis points of the input.

Basis-point fees round up. A sponsor (``subsidizeFees``) pays the selected components in the
order execution, swap, service, app until ``maxSubsidizationAmount`` (micro-USD, converted to
input units rounding down) runs out; ``capHit`` says it ran out. The user pays the rest, so

    amount_out = convert(amount_in - user_pays_total)   (rounded down)

EXACT_OUTPUT (and EXPECTED_OUTPUT) solve for the smallest ``amount_in`` whose ``amount_out``
reaches the requested output (so the input rounds up).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crossdeck.sim.service.currencies import NATIVE_DECIMALS, Currency
from crossdeck.sim.service.money import bps_of, convert, units_for_usd
from crossdeck.sim.service.validation import MAX_AMOUNT

COMPONENTS = ("execution", "swap", "service", "app")


def _default_execution_costs() -> dict[int, int]:
    return {8453: 20_000, 999: 10_000, 1337: 50_000}


@dataclass(frozen=True)
class FeeConfig:
    service_fee_bps: int = 5
    swap_fee_bps: int = 20
    # destination execution cost in micro-USD, per destination chain
    execution_micro_usd: dict[int, int] = field(default_factory=_default_execution_costs)
    default_execution_micro_usd: int = 20_000
    swap_slippage_bps: int = 50  # default slippage when an asset is swapped


@dataclass(frozen=True)
class FeeInputs:
    origin: Currency
    destination: Currency
    destination_native_price: int | None  # micro-USD, None when the destination has no gas
    topup_micro_usd: int
    app_fee_bps: int
    sponsored: tuple[str, ...]  # internal component names ('service', not the brand name)
    cap_micro_usd: int | None
    subsidize: bool


@dataclass(frozen=True)
class Breakdown:
    amount_in: int
    amount_out: int
    totals: dict[str, int]
    sponsored: dict[str, int]
    cap_hit: bool
    relayer_gas: int  # execution without the topup, input units
    topup_cost: int  # input units
    topup_native: int  # destination native smallest units delivered as gas

    @property
    def total_fees(self) -> int:
        return sum(self.totals.values())

    @property
    def sponsored_total(self) -> int:
        return sum(self.sponsored.values())

    @property
    def user_pays_total(self) -> int:
        return self.total_fees - self.sponsored_total

    @property
    def net_in(self) -> int:
        return self.amount_in - self.user_pays_total


class FeeModel:
    def __init__(self, config: FeeConfig | None = None) -> None:
        self.config = config or FeeConfig()

    def execution_micro_usd(self, destination_chain_id: int) -> int:
        return self.config.execution_micro_usd.get(
            destination_chain_id, self.config.default_execution_micro_usd
        )

    def breakdown(self, inputs: FeeInputs, amount_in: int) -> Breakdown:
        origin, destination = inputs.origin, inputs.destination
        relayer_gas = units_for_usd(
            self.execution_micro_usd(destination.chain_id),
            origin.decimals,
            origin.price,
            round_up=True,
        )
        topup_cost = 0
        topup_native = 0
        if inputs.topup_micro_usd and inputs.destination_native_price:
            topup_cost = units_for_usd(
                inputs.topup_micro_usd, origin.decimals, origin.price, round_up=True
            )
            topup_native = units_for_usd(
                inputs.topup_micro_usd,
                NATIVE_DECIMALS,
                inputs.destination_native_price,
                round_up=False,
            )
        swap_bps = self.config.swap_fee_bps if origin.asset != destination.asset else 0
        totals = {
            "execution": relayer_gas + topup_cost,
            "swap": bps_of(amount_in, swap_bps),
            "service": bps_of(amount_in, self.config.service_fee_bps),
            "app": bps_of(amount_in, inputs.app_fee_bps),
        }
        sponsored = dict.fromkeys(COMPONENTS, 0)
        cap_hit = False
        if inputs.subsidize:
            remaining = (
                None
                if inputs.cap_micro_usd is None
                else units_for_usd(
                    inputs.cap_micro_usd, origin.decimals, origin.price, round_up=False
                )
            )
            for component in COMPONENTS:
                if component not in inputs.sponsored:
                    continue
                share = (
                    totals[component] if remaining is None else min(totals[component], remaining)
                )
                sponsored[component] = share
                if remaining is not None:
                    remaining -= share
                    if share < totals[component]:
                        cap_hit = True
        net = amount_in - (sum(totals.values()) - sum(sponsored.values()))
        amount_out = (
            convert(
                net,
                from_decimals=origin.decimals,
                from_price=origin.price,
                to_decimals=destination.decimals,
                to_price=destination.price,
            )
            if net > 0
            else 0
        )
        return Breakdown(
            amount_in=amount_in,
            amount_out=amount_out,
            totals=totals,
            sponsored=sponsored,
            cap_hit=cap_hit,
            relayer_gas=relayer_gas,
            topup_cost=topup_cost,
            topup_native=topup_native,
        )

    def solve_input(self, inputs: FeeInputs, target_out: int) -> Breakdown | None:
        """The breakdown of the smallest input whose output reaches ``target_out``, or None."""
        high = 1
        while self.breakdown(inputs, high).amount_out < target_out:
            if high >= MAX_AMOUNT:
                return None
            high = min(high * 2, MAX_AMOUNT)
        low = high // 2  # amount_out(low) < target (or low == 0)
        while high - low > 1:
            mid = (low + high) // 2
            if self.breakdown(inputs, mid).amount_out >= target_out:
                high = mid
            else:
                low = mid
        # Ceil-rounded fees make the output step unevenly; walk down past any local plateau.
        while high > 1 and self.breakdown(inputs, high - 1).amount_out >= target_out:
            high -= 1
        return self.breakdown(inputs, high)
