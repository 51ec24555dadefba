"""The quote engine: POST /quote/v2 body -> quote response (2.2), stored as a ``waiting`` request.

``QuoteEngine(state, directory, brand, fees=FeeModel()).quote(body, api_key_name=...)``
validates the body (``validation``), prices it (``fees``: fixed prices, exact integers), reads
what the steps need from the origin chain (fee parameters, the user's USDC allowance, the
user's balance), builds the steps of the flow and stores the request.

Flows and their steps:

- EVM origin, native currency: 'deposit' = ``depositNative(user, orderId)`` with value.
- EVM origin, USDC: 'approve' (only when the allowance is short) then 'deposit' =
  ``depositErc20(user, usdc, amount, orderId)``.
- ``usePermit`` (USDC): one signature step 'deposit' of EIP-3009 ReceiveWithAuthorization typed
  data, posted to ``/execute/permits``; the service submits ``depositErc20WithAuthorization``.
- ``useDepositAddress`` (native): 'deposit' is a plain transfer to a fresh deposit address.
- Destination 1337 (venue deposit): an ordinary EVM deposit; the solver credits the venue.
- Origin 1337 (venue withdrawal): 'authorize' (NonceMapping) then 'deposit' (sendAsset), 4.4.
- Same-chain swap (the default; ``swaps``): 'approve' of the router when an ERC-20 input's
  allowance is short, then 'swap', the user's own transaction to the router; no ``protocol``.
  ``forceSolverExecution: true`` makes it an ordinary depository flow filled by the solver.

``protocol.v2.paymentDetails`` names where the payment goes: the depository contract (EVM), the
deposit address (deposit-address flow), or the venue's depository account (venue withdrawal),
which is not the solver (``orderData.solver``).
"""

from __future__ import annotations

import secrets
from typing import Any

from eth_utils.address import to_checksum_address

from crossdeck.sim.brand import Brand
from crossdeck.sim.service.bitcoin_steps import bitcoin_deposit_step
from crossdeck.sim.service.calls import calls_value, encode_call
from crossdeck.sim.service.currencies import VENUE_CHAIN_ID, Currency
from crossdeck.sim.service.directory import ChainDirectory, ChainUnavailable
from crossdeck.sim.service.errors import ServiceError, invalid
from crossdeck.sim.service.fees import Breakdown, FeeInputs, FeeModel
from crossdeck.sim.service.money import (
    format_amount,
    format_amount_usd,
    format_fixed,
    format_units,
    format_usd,
    percent_text,
    ratio_text,
    usd_value,
)
from crossdeck.sim.service.solana_steps import solana_deposit_step
from crossdeck.sim.service.state import (
    DepositAddress,
    RequestRecord,
    ServiceState,
    Status,
    new_order_id,
    new_request_id,
)
from crossdeck.sim.service.steps import (
    approve_calldata,
    approve_step,
    deposit_erc20_calldata,
    deposit_native_calldata,
    deposit_step,
    evm_tx,
    permit_sign,
    permit_step,
    venue_withdrawal_steps,
)
from crossdeck.sim.service.swaps import self_executed_steps
from crossdeck.sim.service.validation import QuoteParams, parse_quote_body

# gas limits as a service quotes them: a margin over what each call uses on both backends
# (a native deposit: ~24,300 on anvil, ~36,600 on py-evm), within the 2x of the node's
# estimate a careful client holds a quote's gas limit to. The ERC-20 deposit after its approve
# uses 57,860 on both backends when the depository holds none of the token yet (estimates
# 62,660 on anvil, 66,387 on py-evm) and 40,760 after that (2x: 81,520), so 70,000 is enough
# for the first and within 2x of the later ones
GAS_NATIVE_DEPOSIT = 45_000
GAS_ERC20_DEPOSIT = 70_000
GAS_APPROVE = 50_000
GAS_TRANSFER = 21_000
ORDER_DEADLINE_S = 3600  # the protocol order's refund and fill deadline, after the quote


def amount_object(currency: Currency, amount: int, minimum: int | None = None) -> dict[str, Any]:
    """A 2.1 currency amount object; amountFormatted and amountUsd derive from ``amount``."""
    return {
        "currency": currency.to_json(),
        "amount": str(amount),
        "amountFormatted": format_amount(amount, currency.decimals),
        "amountUsd": format_amount_usd(usd_value(amount, currency.decimals, currency.price)),
        "minimumAmount": str(amount if minimum is None else minimum),
    }


def _impact(usd: int, base_usd: int) -> dict[str, str]:
    return {"usd": format_usd(usd), "percent": percent_text(usd, base_usd)}


class QuoteEngine:
    def __init__(
        self,
        state: ServiceState,
        directory: ChainDirectory,
        brand: Brand,
        *,
        fees: FeeModel | None = None,
    ) -> None:
        self.state = state
        self.directory = directory
        self.brand = brand
        self.fees = fees or FeeModel()

    # ---- pricing ----------------------------------------------------------------------------

    def _fee_inputs(self, p: QuoteParams) -> FeeInputs:
        native = self.directory.native(p.destination_chain_id)
        service = self.brand.service_fee_component
        return FeeInputs(
            origin=p.origin,
            destination=p.destination,
            destination_native_price=native.price if native else None,
            topup_micro_usd=p.topup_gas_micro_usd,
            app_fee_bps=sum(fee for _, fee in p.app_fees),
            sponsored=tuple("service" if c == service else c for c in p.sponsored_components),
            cap_micro_usd=p.max_subsidization_micro_usd,
            subsidize=p.subsidize_fees,
        )

    def price(self, p: QuoteParams) -> Breakdown:
        inputs = self._fee_inputs(p)
        if p.trade_type == "EXACT_INPUT":
            result = self.fees.breakdown(inputs, p.amount)
            if result.net_in <= 0 or result.amount_out <= 0:
                fees_text = format_units(result.user_pays_total, p.origin.decimals)
                raise invalid(
                    f"amount is too low: fees of {fees_text} {p.origin.symbol} leave nothing to "
                    "deliver; send more",
                    "AMOUNT_TOO_LOW",
                    field="amount",
                )
            return result
        solved = self.fees.solve_input(inputs, p.amount)
        if solved is None:
            raise invalid("the requested output cannot be reached", "AMOUNT_TOO_LOW")
        # The quote delivers exactly the requested output.
        return Breakdown(
            amount_in=solved.amount_in,
            amount_out=p.amount,
            totals=solved.totals,
            sponsored=solved.sponsored,
            cap_hit=solved.cap_hit,
            relayer_gas=solved.relayer_gas,
            topup_cost=solved.topup_cost,
            topup_native=solved.topup_native,
        )

    # ---- the quote --------------------------------------------------------------------------

    async def quote(self, body: Any, *, api_key_name: str | None = None) -> dict[str, Any]:
        p = parse_quote_body(body, self.directory, self.brand)
        b = self.price(p)
        if calls_value(p.calls) > b.amount_out:
            raise invalid(
                f"the calls' value ({calls_value(p.calls)} wei) is more than the output "
                f"({b.amount_out} wei) that pays it",
                "AMOUNT_TOO_LOW",
                field="txs",
            )
        request_id = new_request_id()
        order_id = new_order_id()
        now_ms = self.state.now()
        extra: dict[str, Any] = {"topupNative": str(b.topup_native)}
        deposit_address: DepositAddress | None = None
        venue_nonce: int | None = None
        origin_gas_units = 0
        max_fee = 0
        self_executed = self._self_executed(p)

        depository: str
        try:
            if p.origin_chain_id in self.directory.others:
                origin_chain = self.directory.others[p.origin_chain_id]
                depository = origin_chain.depository
                if origin_chain.vm_type == "bvm":
                    steps = [
                        bitcoin_deposit_step(
                            origin_chain,
                            request_id=request_id,
                            user=p.user,
                            currency=p.origin,
                            amount=b.amount_in,
                            order_id=order_id,
                        )
                    ]
                else:
                    steps = [
                        solana_deposit_step(
                            origin_chain,
                            request_id=request_id,
                            user=p.user,
                            currency=p.origin,
                            amount=b.amount_in,
                            order_id=order_id,
                            compute_unit_limit=bool(
                                p.solana and p.solana.include_compute_unit_limit
                            ),
                        )
                    ]
                    if p.solana is not None and p.solana.deposit_fee_payer:
                        extra["depositFeePayer"] = p.solana.deposit_fee_payer
            elif p.origin_chain_id == VENUE_CHAIN_ID:
                venue_nonce = self.state.next_venue_nonce()
                depository = to_checksum_address(self.directory.venue.depository)
                steps = venue_withdrawal_steps(
                    self.brand,
                    request_id=request_id,
                    wallet=p.user,
                    nonce=venue_nonce,
                    order_id=order_id,
                    depository=depository,
                    token=p.origin.venue_token or "",
                    source_dex=p.origin.venue_dex or "",
                    amount=b.amount_in,
                    decimals=p.origin.decimals,
                )
                extra.update(venueToken=p.origin.venue_token, venueDex=p.origin.venue_dex)
            else:
                chain = self.directory.chain(p.origin_chain_id)
                reader = self.directory.reader
                max_fee, priority = await reader.fee_params(chain)

                def tx(to: str, data: bytes | str, value: int, gas: int) -> dict[str, Any]:
                    return evm_tx(
                        from_=p.user,
                        to=to,
                        data=data,
                        value=value,
                        chain_id=chain.chain_id,
                        max_fee=max_fee,
                        priority_fee=priority,
                        gas=gas,
                    )

                if self_executed:
                    assert chain.router is not None
                    allowance = 0
                    if not p.origin.is_native:
                        allowance = await reader.allowance(
                            chain, p.origin.address, p.user, chain.router
                        )
                    depository = chain.depository  # unused: the quote names no payment
                    steps, origin_gas_units = self_executed_steps(
                        request_id=request_id,
                        order_id=order_id,
                        chain=chain,
                        origin=p.origin,
                        destination=p.destination,
                        amount_in=b.amount_in,
                        amount_out=b.amount_out,
                        recipient=p.recipient,
                        allowance=allowance,
                        tx=tx,
                    )
                elif p.use_deposit_address:
                    account = self.state.deposit_account(request_id)
                    deposit_address = DepositAddress(
                        address=account.address,
                        type="strict" if p.strict else "open",
                        depositor=p.user,
                    )
                    # paymentDetails keeps naming the depository; the address to pay is the
                    # step's depositAddress (and its tx's to), as the public service sends it
                    depository = chain.depository
                    origin_gas_units = GAS_TRANSFER
                    steps = [
                        deposit_step(
                            request_id,
                            tx(account.address, "0x", b.amount_in, GAS_TRANSFER),
                            f"Send {p.origin.symbol} to your deposit address",
                            account.address,
                        )
                    ]
                elif p.origin.is_native:
                    depository = chain.depository
                    origin_gas_units = GAS_NATIVE_DEPOSIT
                    steps = [
                        deposit_step(
                            request_id,
                            tx(
                                chain.depository,
                                deposit_native_calldata(p.user, order_id),
                                b.amount_in,
                                GAS_NATIVE_DEPOSIT,
                            ),
                            f"Deposit {p.origin.symbol} into the depository",
                        )
                    ]
                elif p.use_permit:
                    depository = chain.depository
                    valid_before = now_ms // 1000 + p.permit_expiry_s
                    permit_nonce = "0x" + secrets.token_hex(32)
                    sign = permit_sign(
                        chain_id=chain.chain_id,
                        usdc=chain.usdc,
                        owner=p.user,
                        depository=chain.depository,
                        amount=b.amount_in,
                        valid_before=valid_before,
                        nonce=permit_nonce,
                    )
                    extra["permit"] = sign
                    steps = [permit_step(request_id, sign)]
                else:
                    depository = chain.depository
                    allowance = await reader.allowance(chain, chain.usdc, p.user, chain.depository)
                    steps = []
                    if allowance < b.amount_in:
                        origin_gas_units += GAS_APPROVE
                        steps.append(
                            approve_step(
                                request_id,
                                tx(
                                    chain.usdc,
                                    approve_calldata(chain.depository, b.amount_in),
                                    0,
                                    GAS_APPROVE,
                                ),
                                p.origin.symbol,
                            )
                        )
                    origin_gas_units += GAS_ERC20_DEPOSIT
                    steps.append(
                        deposit_step(
                            request_id,
                            tx(
                                chain.depository,
                                deposit_erc20_calldata(p.user, chain.usdc, b.amount_in, order_id),
                                0,
                                GAS_ERC20_DEPOSIT,
                            ),
                            f"Deposit {p.origin.symbol} into the depository",
                        )
                    )
        except ChainUnavailable as exc:
            raise ServiceError(
                502, "RPC_HTTP_ERROR", f"origin chain {p.origin_chain_id} is unavailable: {exc}"
            ) from exc

        balance = await self.directory.user_balance(p.origin_chain_id, p.origin, p.user)
        origin_name = self.protocol_chain_id(p.origin_chain_id)
        payment = {
            "chainId": origin_name,
            "depository": depository,
            "currency": p.origin.address,
            "amount": str(b.amount_in),
        }
        order_data = self._order_data(p, b, origin_name, now_ms)
        response: dict[str, Any] = {
            "steps": steps,
            "fees": self._fees_json(p, b, origin_gas_units * max_fee),
        }
        sponsorship = self._sponsorship_json(p, b)
        if sponsorship is not None:  # absent when not sponsored, as the public service does
            response["feeSponsorship"] = sponsorship
        response["details"] = self._details_json(p, b, balance)
        if not self_executed:  # a swap in the user's own transaction has no protocol order
            response["protocol"] = {
                "v2": {"orderId": order_id, "orderData": order_data, "paymentDetails": payment}
            }
        extra["orderData"] = order_data
        if p.calls:
            extra["calls"] = [call.wire() for call in p.calls]
        service_fee = b.totals["service"]
        price_fee = b.totals["swap"] + b.totals["app"]
        fees_units = {"gas": b.totals["execution"], "fixed": service_fee, "price": price_fee}
        record = RequestRecord(
            id=request_id,
            status=Status.WAITING,
            user=p.user,
            recipient=p.recipient,
            refund_to=p.refund_to,
            origin_chain_id=p.origin_chain_id,
            destination_chain_id=p.destination_chain_id,
            origin_currency=p.origin.address,
            destination_currency=p.destination.address,
            amount_in=b.amount_in,
            amount_out=b.amount_out,
            trade_type=p.trade_type,
            order_id=order_id,
            created_at=now_ms,
            updated_at=now_ms,
            quote=response,
            deposit_address=deposit_address,
            venue_nonce=venue_nonce,
            api_key_name=api_key_name,
            referrer=p.referrer,
            fees=fees_units,
            fees_usd={
                k: usd_value(v, p.origin.decimals, p.origin.price) for k, v in fees_units.items()
            },
            subsidized=p.subsidize_fees and b.sponsored_total > 0,
            demo=p.demo,
            extra=extra,
        )
        self.state.create_request(record)
        return response

    def _self_executed(self, p: QuoteParams) -> bool:
        """A same-chain swap the user executes through the router (the default, as on the
        public service), unless the body forces the solver or the chain has no router."""
        if p.origin_chain_id != p.destination_chain_id or p.origin_chain_id == VENUE_CHAIN_ID:
            return False
        if p.force_solver_execution or p.use_deposit_address or p.use_permit:
            return False
        if p.calls:  # the router's swap makes no calls: an order with them goes to the solver
            return False
        return self.directory.chain(p.origin_chain_id).router is not None

    # ---- response parts ---------------------------------------------------------------------

    def protocol_chain_id(self, chain_id: int) -> str:
        """The protocol's name of a chain (``protocol.v2.chainId`` in quotes and /chains): its
        /chains ``name``, e.g. 'base', 'hyperevm', and the venue's lowercase name for 1337."""
        if chain_id == VENUE_CHAIN_ID:
            return self.brand.venue_chain_label
        if chain_id in self.directory.others:
            return self.directory.others[chain_id].name
        return self.directory.chain(chain_id).name

    def _order_data(
        self, p: QuoteParams, b: Breakdown, origin_name: str, now_ms: int
    ) -> dict[str, Any]:
        """The protocol order in the public service's v1 shape: one input paid on the origin
        (refundable there), one output payment to the recipient."""
        deadline = now_ms // 1000 + ORDER_DEADLINE_S
        extra_data = "0x" + "00" * 32
        destination_name = self.protocol_chain_id(p.destination_chain_id)
        return {
            "version": "v1",
            "solverChainId": origin_name,
            "solver": to_checksum_address(self.directory.venue.solver_address),
            "salt": "0x" + secrets.token_hex(32),
            "inputs": [
                {
                    "payment": {
                        "chainId": origin_name,
                        "currency": p.origin.address,
                        "amount": str(b.amount_in),
                        "weight": "1",
                    },
                    "refunds": [
                        {
                            "chainId": origin_name,
                            "recipient": p.refund_to,
                            "currency": p.origin.address,
                            "minimumAmount": "0",
                            "deadline": deadline,
                            "extraData": extra_data,
                        }
                    ],
                }
            ],
            "output": {
                "chainId": destination_name,
                "payments": [
                    {
                        "recipient": p.recipient,
                        "currency": p.destination.address,
                        # the calls' value comes out of the output; the rest is the recipient's
                        "minimumAmount": str(b.amount_out - calls_value(p.calls)),
                        "expectedAmount": str(b.amount_out - calls_value(p.calls)),
                    }
                ],
                "calls": [encode_call(call) for call in p.calls],
                "deadline": deadline,
                "extraData": extra_data,
            },
            "fees": [],
        }

    def _fees_json(self, p: QuoteParams, b: Breakdown, origin_gas_wei: int) -> dict[str, Any]:
        origin = p.origin
        gas_currency = self.directory.native(p.origin_chain_id) or origin
        gas_amount = origin_gas_wei if gas_currency is not origin else 0
        return {
            "gas": amount_object(gas_currency, gas_amount),
            "relayer": amount_object(origin, b.totals["execution"] + b.totals["service"]),
            "relayerGas": amount_object(origin, b.totals["execution"]),
            "relayerService": amount_object(origin, b.totals["service"]),
            "app": amount_object(origin, b.totals["app"]),
            "subsidized": amount_object(origin, b.sponsored_total),
        }

    def _sponsorship_json(self, p: QuoteParams, b: Breakdown) -> dict[str, Any] | None:
        if not p.subsidize_fees:
            return None
        origin = p.origin
        service = self.brand.service_fee_component
        names = {"execution": "execution", "swap": "swap", "service": service, "app": "app"}
        selected = set(p.sponsored_components)
        components = {
            names[c]: {
                "selected": names[c] in selected,
                "total": amount_object(origin, b.totals[c]),
                "sponsored": amount_object(origin, b.sponsored[c]),
                "userPays": amount_object(origin, b.totals[c] - b.sponsored[c]),
            }
            for c in ("execution", "swap", "service", "app")
        }
        cap = p.max_subsidization_micro_usd
        if cap is None:  # no cap given: the cap is what the selected components cost
            cap = usd_value(
                sum(b.totals[c] for c in b.totals if names[c] in selected),
                origin.decimals,
                origin.price,
            )
        return {
            "quoted": {
                "selectedComponents": list(p.sponsored_components),
                "capHit": b.cap_hit,
                "components": components,
                "sponsoredTotal": amount_object(origin, b.sponsored_total),
                "userPaysTotal": amount_object(origin, b.user_pays_total),
                "maxSubsidizationAmount": str(cap),
            },
            "actual": None,
        }

    def _details_json(self, p: QuoteParams, b: Breakdown, balance: int | None) -> dict[str, Any]:
        origin, destination = p.origin, p.destination
        in_usd = usd_value(b.amount_in, origin.decimals, origin.price)
        out_usd = usd_value(b.amount_out, destination.decimals, destination.price)

        def fee_usd(component: str) -> int:
            return usd_value(b.totals[component], origin.decimals, origin.price)

        swap_usd = -fee_usd("swap")
        sponsored_usd = usd_value(b.sponsored_total, origin.decimals, origin.price)
        slippage = p.slippage_bps
        if slippage is None:
            slippage = (
                self.fees.config.swap_slippage_bps if origin.asset != destination.asset else 0
            )
        slip_units = b.amount_out * slippage // 10_000
        minimum_out = b.amount_out if p.trade_type == "EXACT_OUTPUT" else b.amount_out - slip_units
        native = self.directory.native(p.destination_chain_id)
        topup = amount_object(native, b.topup_native) if native else amount_object(destination, 0)
        both_evm = VENUE_CHAIN_ID not in (p.origin_chain_id, p.destination_chain_id)
        router = self.brand.service_name.lower()
        bridged_in = amount_object(origin, b.net_in)
        return {
            "operation": "bridge" if origin.asset == destination.asset else "swap",
            "sender": p.user,
            "recipient": p.recipient,
            "currencyIn": amount_object(origin, b.amount_in),
            "currencyOut": amount_object(destination, b.amount_out, minimum_out),
            "refundCurrency": amount_object(origin, b.amount_in),
            "currencyGasTopup": topup,
            "totalImpact": _impact(out_usd - in_usd, in_usd),
            "swapImpact": _impact(swap_usd, in_usd),
            "expandedPriceImpact": {
                "swap": {"usd": format_usd(swap_usd)},
                "execution": {"usd": format_usd(-fee_usd("execution"))},
                self.brand.service_fee_component: {"usd": format_usd(-fee_usd("service"))},
                "app": {"usd": format_usd(-fee_usd("app"))},
                "sponsored": {"usd": format_usd(sponsored_usd)},
            },
            "rate": ratio_text(
                b.amount_out * 10**origin.decimals, b.amount_in * 10**destination.decimals
            ),
            "slippageTolerance": {
                "origin": {"usd": format_usd(0), "value": "0", "percent": "0.00"},
                "destination": {
                    "usd": format_usd(
                        usd_value(slip_units, destination.decimals, destination.price)
                    ),
                    "value": str(slip_units),
                    "percent": format_fixed(slippage, 2),
                },
            },
            "timeEstimate": 4 if both_evm else 2,
            "userBalance": str(balance if balance is not None else 0),
            "fallbackType": "refund",
            "isFixedRate": False,
            "fixedRateFee": {"usd": format_usd(0)},
            "route": {
                "origin": {
                    "inputCurrency": amount_object(origin, b.amount_in),
                    "outputCurrency": bridged_in,
                    "router": router,
                    "includedSwapSources": [],
                },
                "destination": {
                    "inputCurrency": bridged_in,
                    "outputCurrency": amount_object(destination, b.amount_out, minimum_out),
                    "router": router,
                    "includedSwapSources": [],
                },
            },
        }
