"""Quote arithmetic: exact integers, consistent display strings, sponsorship caps, topups.

The expected numbers are computed here from the documented model (fixed prices ETH $3000,
HYPE $25, USDC $1; service 5 bps, swap 20 bps between different assets, execution $0.01 on
999, $0.02 on 8453, $0.05 on 1337; basis-point fees round up, outputs round down).
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossdeck.sim.brand import BRANDS
from crossdeck.sim.service import QuoteEngine, ServiceState, StaticChainReader
from crossdeck.sim.service.validation import parse_quote_body

from .support import (
    BASE_USDC,
    HYPER_USDC,
    NATIVE,
    PERPS_USDC,
    RECIPIENT,
    USER,
    FakeClock,
    Service,
    body,
    make_directory,
)

PRICE = {"ETH": 3000 * 10**6, "HYPE": 25 * 10**6, "USDC": 10**6}
MICRO = 10**6


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def expected_exact_input(
    amount: int,
    *,
    dec_in: int,
    price_in: int,
    dec_out: int,
    price_out: int,
    swap: bool,
    exec_micro: int,
) -> tuple[int, dict[str, int]]:
    fees = {
        "execution": ceil_div(exec_micro * 10**dec_in, price_in),
        "swap": ceil_div(amount * 20, 10_000) if swap else 0,
        "service": ceil_div(amount * 5, 10_000),
        "app": 0,
    }
    net = amount - sum(fees.values())
    return net * price_in * 10**dec_out // (price_out * 10**dec_in), fees


def check_amount_object(obj: dict[str, Any]) -> None:
    """amountFormatted and amountUsd agree exactly with amount (2.1)."""
    currency = obj["currency"]
    amount = int(obj["amount"])
    decimals = currency["decimals"]
    with localcontext() as exact:  # the default 28 digits would round a 29-digit amount
        exact.prec = 100
        assert Decimal(obj["amountFormatted"]) == Decimal(amount).scaleb(-decimals)
    assert "E" not in obj["amountFormatted"] and "e" not in obj["amountFormatted"]
    symbol = currency["symbol"].upper()
    price = PRICE.get(symbol, MICRO)
    usd_micro = amount * price // 10**decimals
    assert Decimal(obj["amountUsd"]) == Decimal(usd_micro) / MICRO
    # as the public service writes them: a zero USD value is "0", any other has 6 decimals;
    # amountFormatted always has a point ("10.0", "0.0")
    assert obj["amountUsd"] == "0" if usd_micro == 0 else len(obj["amountUsd"].split(".")[1]) == 6
    assert "." in obj["amountFormatted"] and not obj["amountFormatted"].endswith("0.00")
    assert int(obj["minimumAmount"]) <= amount or obj["minimumAmount"] == obj["amount"]


def walk_amount_objects(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        if "currency" in node and "amount" in node and isinstance(node["currency"], dict):
            found.append(node)
        for value in node.values():
            found += walk_amount_objects(value)
    elif isinstance(node, list):
        for value in node:
            found += walk_amount_objects(value)
    return found


async def test_exact_input_eth_to_usdc_is_exact(service: Service) -> None:
    amount = 10**18
    quote = await service.ok_quote(body(amount=str(amount)))
    out, fees = expected_exact_input(
        amount,
        dec_in=18,
        price_in=PRICE["ETH"],
        dec_out=6,
        price_out=MICRO,
        swap=True,
        exec_micro=10_000,
    )
    assert out == 2992489999  # hand-checked: (1e18 - 2.5e15 - 3333333333334) * 3000 / 1e12
    details = quote["details"]
    assert details["currencyIn"]["amount"] == str(amount)
    assert details["currencyOut"]["amount"] == str(out)
    assert quote["fees"]["relayerGas"]["amount"] == str(fees["execution"])
    assert quote["fees"]["relayerService"]["amount"] == str(fees["service"])
    relayer = int(quote["fees"]["relayer"]["amount"])
    assert relayer == fees["execution"] + fees["service"]
    assert details["operation"] == "swap"
    # Default slippage for a swap is 50 bps: the minimum output says so.
    assert details["currencyOut"]["minimumAmount"] == str(out - out * 50 // 10_000)
    assert details["slippageTolerance"]["destination"]["percent"] == "0.50"
    assert details["totalImpact"] == {"usd": "-7.510001", "percent": "-0.25"}
    assert details["swapImpact"] == {"usd": "-6.000000", "percent": "-0.20"}
    assert details["rate"] == "2992.489999"
    for obj in walk_amount_objects(quote):
        check_amount_object(obj)


async def test_usdc_bridge_has_no_swap_fee(service: Service) -> None:
    amount = 250_000_000  # 250 USDC
    quote = await service.ok_quote(
        body(originCurrency=BASE_USDC, destinationCurrency=HYPER_USDC, amount=str(amount))
    )
    out, _ = expected_exact_input(
        amount,
        dec_in=6,
        price_in=MICRO,
        dec_out=6,
        price_out=MICRO,
        swap=False,
        exec_micro=10_000,
    )
    assert quote["details"]["currencyOut"]["amount"] == str(out)
    assert quote["details"]["operation"] == "bridge"
    assert quote["details"]["swapImpact"]["usd"] == "0.000000"
    assert quote["details"]["currencyOut"]["minimumAmount"] == str(out)


async def test_venue_deposit_converts_to_eight_decimals(service: Service) -> None:
    amount = 10_000_000  # 10 USDC (6 dec) -> perps USDC (8 dec)
    quote = await service.ok_quote(
        body(
            originCurrency=BASE_USDC,
            destinationChainId=1337,
            destinationCurrency=PERPS_USDC,
            amount=str(amount),
            recipient=RECIPIENT,
        )
    )
    out, _ = expected_exact_input(
        amount,
        dec_in=6,
        price_in=MICRO,
        dec_out=8,
        price_out=MICRO,
        swap=False,
        exec_micro=50_000,
    )
    assert out == (amount - 50_000 - 5_000) * 100
    assert quote["details"]["currencyOut"]["amount"] == str(out)
    assert quote["details"]["recipient"] == RECIPIENT


async def test_exact_output_solves_for_the_smallest_input(service: Service) -> None:
    target = 1_000_000_000  # 1000 USDC on HyperEVM, paid in ETH
    quote = await service.ok_quote(body(tradeType="EXACT_OUTPUT", amount=str(target)))
    amount_in = int(quote["details"]["currencyIn"]["amount"])
    assert quote["details"]["currencyOut"]["amount"] == str(target)
    assert quote["details"]["currencyOut"]["minimumAmount"] == str(target)

    def out_for(a: int) -> int:
        return expected_exact_input(
            a,
            dec_in=18,
            price_in=PRICE["ETH"],
            dec_out=6,
            price_out=MICRO,
            swap=True,
            exec_micro=10_000,
        )[0]

    assert out_for(amount_in) >= target
    assert out_for(amount_in - 1) < target


async def test_expected_output_carries_slippage(service: Service) -> None:
    target = 500_000_000
    quote = await service.ok_quote(
        body(tradeType="EXPECTED_OUTPUT", amount=str(target), slippageTolerance="100")
    )
    details = quote["details"]
    assert details["currencyOut"]["amount"] == str(target)
    assert details["currencyOut"]["minimumAmount"] == str(target - target // 100)
    assert details["slippageTolerance"]["destination"]["value"] == str(target // 100)
    assert details["slippageTolerance"]["destination"]["percent"] == "1.00"


ENGINE_BODIES = st.sampled_from(
    [
        {"originCurrency": NATIVE, "destinationCurrency": HYPER_USDC},
        {"originCurrency": BASE_USDC, "destinationCurrency": HYPER_USDC},
        {"originCurrency": BASE_USDC, "destinationCurrency": NATIVE},
        {"originCurrency": NATIVE, "destinationCurrency": NATIVE},
        {
            "originCurrency": BASE_USDC,
            "destinationChainId": 1337,
            "destinationCurrency": PERPS_USDC,
        },
    ]
)


def _engine() -> QuoteEngine:
    state = ServiceState(":memory:", clock=FakeClock())
    return QuoteEngine(state, make_directory(StaticChainReader()), BRANDS["neutral"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    route=ENGINE_BODIES,
    amount=st.integers(min_value=1, max_value=10**24),
    trade_type=st.sampled_from(["EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT"]),
    subsidize=st.booleans(),
    cap=st.one_of(st.none(), st.integers(min_value=0, max_value=5 * MICRO)),
)
async def test_property_amounts_are_exact_and_consistent(
    route: dict[str, Any], amount: int, trade_type: str, subsidize: bool, cap: int | None
) -> None:
    engine = _engine()
    payload = body(amount=str(amount), tradeType=trade_type, **route)
    if subsidize:
        payload["subsidizeFees"] = True
        if cap is not None:
            payload["maxSubsidizationAmount"] = str(cap)
    try:
        quote = await engine.quote(payload)
    except Exception as exc:  # only AMOUNT_TOO_LOW may refuse a well-formed body
        assert getattr(exc, "code", None) == "AMOUNT_TOO_LOW", exc
        return
    for obj in walk_amount_objects(quote):
        check_amount_object(obj)
    details = quote["details"]
    amount_in = int(details["currencyIn"]["amount"])
    amount_out = int(details["currencyOut"]["amount"])
    fees = quote["fees"]
    sponsored = int(fees["subsidized"]["amount"])
    assert int(fees["relayer"]["amount"]) == int(fees["relayerGas"]["amount"]) + int(
        fees["relayerService"]["amount"]
    )
    inputs = engine._fee_inputs(parse_quote_body(payload, engine.directory, engine.brand))
    breakdown = engine.fees.breakdown(inputs, amount_in)
    assert breakdown.sponsored_total == sponsored
    if trade_type == "EXACT_INPUT":
        assert amount_in == amount
        assert amount_out == breakdown.amount_out > 0
    else:
        assert amount_out == amount
        assert breakdown.amount_out >= amount
        assert engine.fees.breakdown(inputs, amount_in - 1).amount_out < amount
    if subsidize:
        quoted = quote["feeSponsorship"]["quoted"]
        total = sum(int(c["total"]["amount"]) for c in quoted["components"].values())
        assert int(quoted["sponsoredTotal"]["amount"]) == sponsored
        assert int(quoted["userPaysTotal"]["amount"]) == total - sponsored
        for component in quoted["components"].values():
            assert int(component["sponsored"]["amount"]) + int(
                component["userPays"]["amount"]
            ) == int(component["total"]["amount"])
        if cap is not None:
            cap_units = (
                cap
                * 10 ** details["currencyIn"]["currency"]["decimals"]
                // (PRICE[details["currencyIn"]["currency"]["symbol"]])
            )
            assert sponsored <= cap_units
            assert quoted["capHit"] == (total > cap_units)
    else:
        assert "feeSponsorship" not in quote  # absent when not sponsored, as in public
        assert sponsored == 0


async def test_sponsorship_without_cap_covers_every_component(service: Service) -> None:
    amount = 100_000_000
    quote = await service.ok_quote(
        body(originCurrency=BASE_USDC, amount=str(amount), subsidizeFees=True)
    )
    quoted = quote["feeSponsorship"]["quoted"]
    assert quoted["selectedComponents"] == ["execution", "swap", "service", "app"]
    assert quoted["capHit"] is False
    assert quoted["userPaysTotal"]["amount"] == "0"
    # With every fee sponsored the user receives the full converted amount.
    assert quote["details"]["currencyOut"]["amount"] == str(amount)
    assert quote["fees"]["subsidized"]["amount"] == quoted["sponsoredTotal"]["amount"]
    assert quote["feeSponsorship"]["actual"] is None
    record = service.state.get(quote["steps"][0]["requestId"])
    assert record.subsidized


async def test_sponsorship_cap_is_spent_in_component_order(service: Service) -> None:
    amount = 100_000_000  # 100 USDC: execution 10000, service 50000
    quote = await service.ok_quote(
        body(
            originCurrency=BASE_USDC,
            amount=str(amount),
            subsidizeFees=True,
            maxSubsidizationAmount="15000",  # $0.015
        )
    )
    quoted = quote["feeSponsorship"]["quoted"]
    components = quoted["components"]
    assert quoted["capHit"] is True
    assert quoted["maxSubsidizationAmount"] == "15000"
    assert components["execution"]["sponsored"]["amount"] == "10000"
    assert components["service"]["sponsored"]["amount"] == "5000"
    assert components["service"]["userPays"]["amount"] == "45000"
    assert quoted["sponsoredTotal"]["amount"] == "15000"
    assert quote["details"]["currencyOut"]["amount"] == str(amount - 45_000)
    assert quote["details"]["expandedPriceImpact"]["sponsored"]["usd"] == "0.015000"


async def test_only_selected_components_are_sponsored(service: Service) -> None:
    quote = await service.ok_quote(
        body(
            originCurrency=BASE_USDC,
            amount="100000000",
            subsidizeFees=True,
            sponsoredFeeComponents=["app"],
            appFees=[{"recipient": RECIPIENT, "fee": "30"}],
        )
    )
    components = quote["feeSponsorship"]["quoted"]["components"]
    assert components["app"] == {
        **components["app"],
        "selected": True,
    }
    assert components["app"]["total"]["amount"] == "300000"
    assert components["app"]["sponsored"]["amount"] == "300000"
    assert components["execution"]["selected"] is False
    assert components["execution"]["sponsored"]["amount"] == "0"
    assert quote["fees"]["app"]["amount"] == "300000"
    assert quote["details"]["currencyOut"]["amount"] == str(100_000_000 - 10_000 - 50_000)


async def test_gas_topup_default_and_custom(service: Service) -> None:
    hype_to_base_usdc = {
        "originChainId": 999,
        "originCurrency": NATIVE,
        "destinationChainId": 8453,
        "destinationCurrency": BASE_USDC,
        "amount": str(100 * 10**18),  # 100 HYPE = $2500
    }
    plain = await service.ok_quote(body(**hype_to_base_usdc))
    assert plain["details"]["currencyGasTopup"]["amount"] == "0"
    topped = await service.ok_quote(body(**hype_to_base_usdc, topupGas=True))
    gas = topped["details"]["currencyGasTopup"]
    assert gas["currency"]["chainId"] == 8453 and gas["currency"]["metadata"]["isNative"] is True
    assert gas["amount"] == str(2 * MICRO * 10**18 // PRICE["ETH"])  # $2 of ETH
    # The topup is paid from the input: $2 of HYPE more execution, $2 less output.
    extra = int(topped["fees"]["relayerGas"]["amount"]) - int(plain["fees"]["relayerGas"]["amount"])
    assert extra == 2 * MICRO * 10**18 // PRICE["HYPE"]
    assert (
        int(plain["details"]["currencyOut"]["amount"])
        - int(topped["details"]["currencyOut"]["amount"])
        == 2 * MICRO
    )
    custom = await service.ok_quote(
        body(**hype_to_base_usdc, topupGas=True, topupGasAmount="5000000")
    )
    assert custom["details"]["currencyGasTopup"]["amount"] == str(
        5 * MICRO * 10**18 // PRICE["ETH"]
    )


async def test_defaults_for_recipient_and_refund(service: Service) -> None:
    quote = await service.ok_quote(body())
    assert quote["details"]["recipient"] == USER
    assert quote["details"]["sender"] == USER
    record = service.state.get(quote["steps"][0]["requestId"])
    assert record.refund_to == USER and record.recipient == USER

    quote = await service.ok_quote(body(recipient=RECIPIENT))
    record = service.state.get(quote["steps"][0]["requestId"])
    assert record.recipient == RECIPIENT and record.refund_to == RECIPIENT  # rule 3

    other = "0x" + "cd" * 20
    quote = await service.ok_quote(body(recipient=RECIPIENT, refundTo=other))
    record = service.state.get(quote["steps"][0]["requestId"])
    assert record.refund_to == other


async def test_response_has_every_member_of_2_2(service: Service) -> None:
    quote = await service.ok_quote(body(subsidizeFees=True, topupGas=False))
    assert set(quote) == {"steps", "fees", "feeSponsorship", "details", "protocol"}
    assert set(quote["fees"]) == {
        "gas",
        "relayer",
        "relayerGas",
        "relayerService",
        "app",
        "subsidized",
    }
    assert set(quote["details"]) == {
        "operation",
        "sender",
        "recipient",
        "currencyIn",
        "currencyOut",
        "refundCurrency",
        "currencyGasTopup",
        "totalImpact",
        "swapImpact",
        "expandedPriceImpact",
        "rate",
        "slippageTolerance",
        "timeEstimate",
        "userBalance",
        "fallbackType",
        "isFixedRate",
        "fixedRateFee",
        "route",
    }
    details = quote["details"]
    assert set(details["expandedPriceImpact"]) == {
        "swap",
        "execution",
        "service",
        "app",
        "sponsored",
    }
    for side in ("origin", "destination"):
        assert set(details["slippageTolerance"][side]) == {"usd", "value", "percent"}
        route = details["route"][side]
        assert set(route) == {"inputCurrency", "outputCurrency", "router", "includedSwapSources"}
    assert set(details["totalImpact"]) == {"usd", "percent"}
    # Every fee sponsored: 1 ETH buys 3000 USDC with no impact; the sponsor's share shows.
    assert details["totalImpact"] == {"usd": "0.000000", "percent": "0.00"}
    assert details["rate"] == "3000"
    assert details["expandedPriceImpact"]["sponsored"]["usd"] == "7.510000"
    quoted = quote["feeSponsorship"]["quoted"]
    assert set(quoted) == {
        "selectedComponents",
        "capHit",
        "components",
        "sponsoredTotal",
        "userPaysTotal",
        "maxSubsidizationAmount",
    }
    assert set(quoted["components"]) == {"execution", "swap", "service", "app"}
    for component in quoted["components"].values():
        assert set(component) == {"selected", "total", "sponsored", "userPays"}
    assert set(quote["protocol"]["v2"]) == {"orderId", "orderData", "paymentDetails"}
    currency = details["currencyIn"]["currency"]
    assert set(currency) == {"chainId", "address", "symbol", "name", "decimals", "metadata"}
    assert set(currency["metadata"]) == {"logoURI", "verified", "isNative"}
