"""Form values -> the quote body: exact unit conversion, the venue parameters, every option, and
errors that name the field."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from crossdeck.models import ChainsResponse, QuoteRequestError
from crossdeck.tui.quote_form import (
    QuoteFormValues,
    build_quote_request,
    venue_deposit_values,
    venue_withdrawal_values,
)

NATIVE = "0x" + "0" * 40
PERPS = "0x" + "0" * 32
USER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


@pytest.fixture(scope="module")
def chains(world: Any) -> ChainsResponse:
    return ChainsResponse.model_validate(httpx.get(world.service_url + "/chains").json())


@pytest.fixture(scope="module")
def usdc(chains: ChainsResponse) -> str:
    base = chains.by_id(8453)
    assert base is not None
    return next(c.address for c in base.currencies if c.symbol == "USDC")


def _values(**changes: Any) -> QuoteFormValues:
    base = QuoteFormValues(
        origin_chain_id=8453,
        origin_currency=NATIVE,
        destination_chain_id=1337,
        destination_currency=PERPS,
        amount="1",
    )
    return base.with_changes(**changes)


def test_amount_uses_the_origin_decimals_for_exact_input(chains: ChainsResponse) -> None:
    body = build_quote_request(_values(amount="0.123456789012345678"), USER, chains).to_body()
    assert body["amount"] == "123456789012345678"
    assert body["tradeType"] == "EXACT_INPUT" and "protocolVersion" not in body


def test_amount_uses_the_destination_decimals_otherwise(chains: ChainsResponse) -> None:
    body = build_quote_request(
        _values(amount="25.5", trade_type="EXACT_OUTPUT"), USER, chains
    ).to_body()
    assert body["amount"] == "2550000000"  # perps USDC has 8 decimals
    with pytest.raises(QuoteRequestError) as caught:
        build_quote_request(
            _values(amount="0.000000001", trade_type="EXPECTED_OUTPUT"), USER, chains
        )
    assert caught.value.field == "amount" and "9 decimal places" in caught.value.message


@pytest.mark.parametrize("amount", ["", "abc", "-1", "1e5", "0", "0.000"])
def test_bad_amounts_name_the_amount_field(chains: ChainsResponse, amount: str) -> None:
    with pytest.raises(QuoteRequestError) as caught:
        build_quote_request(_values(amount=amount), USER, chains)
    assert caught.value.field == "amount"


def test_every_option_reaches_the_body(chains: ChainsResponse, usdc: str) -> None:
    values = _values(
        destination_chain_id=999,
        destination_currency=usdc,
        recipient=OTHER,
        refund_to=USER,
        slippage_bps="75",
        topup_gas=True,
        topup_gas_usd="2.5",
        subsidize_fees=True,
        sponsored_components=("execution", "swap"),
        max_subsidization_usd="$1.25",
        use_permit=True,
    )
    body = build_quote_request(values, USER, chains).to_body()
    assert body["recipient"] == OTHER and body["refundTo"] == USER
    assert body["slippageTolerance"] == "75"
    assert body["topupGas"] is True and body["topupGasAmount"] == "2500000"
    assert body["subsidizeFees"] is True
    assert body["sponsoredFeeComponents"] == ["execution", "swap"]
    assert body["maxSubsidizationAmount"] == "1250000"
    assert body["usePermit"] is True


def test_all_components_selected_leaves_the_field_out(chains: ChainsResponse) -> None:
    body = build_quote_request(_values(subsidize_fees=True), USER, chains).to_body()
    assert body["subsidizeFees"] is True and "sponsoredFeeComponents" not in body


def test_deposit_address_and_strict(chains: ChainsResponse) -> None:
    body = build_quote_request(
        _values(
            destination_chain_id=999,
            destination_currency=NATIVE,
            use_deposit_address=True,
            strict=True,
            refund_to=USER,
        ),
        USER,
        chains,
    ).to_body()
    assert body["useDepositAddress"] is True and body["strict"] is True
    with pytest.raises(QuoteRequestError) as caught:
        build_quote_request(_values(strict=True), USER, chains)
    assert caught.value.field == "strict"


def test_venue_forms_fill_the_venue_parameters(chains: ChainsResponse, usdc: str) -> None:
    deposit = venue_deposit_values(
        origin_chain_id=8453,
        origin_currency=usdc,
        venue_currency=PERPS,
        amount="10",
        recipient=USER,
    )
    body = build_quote_request(deposit, USER, chains).to_body()
    assert body["destinationChainId"] == 1337 and body["recipient"] == USER
    assert body["amount"] == "10000000"  # 10 USDC, 6 decimals on 8453
    withdrawal = venue_withdrawal_values(
        venue_currency=PERPS,
        destination_chain_id=8453,
        destination_currency=usdc,
        amount="10",
        recipient=USER,
    )
    body = build_quote_request(withdrawal, USER, chains).to_body()
    assert body["originChainId"] == 1337 and body["protocolVersion"] == "v2"
    assert body["amount"] == "1000000000"  # 10 perps USDC, 8 decimals


def test_a_withdrawal_gets_protocol_v2_even_when_typed_by_hand(chains: ChainsResponse) -> None:
    values = _values(
        origin_chain_id=1337,
        origin_currency=PERPS,
        destination_chain_id=8453,
        destination_currency=NATIVE,
    )
    assert build_quote_request(values, USER, chains).protocol_version == "v2"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"origin_chain_id": None}, "originChainId"),
        ({"destination_currency": None}, "destinationCurrency"),
        ({"origin_currency": "0x" + "1" * 40}, "originCurrency"),
        ({"recipient": "me"}, "recipient"),
        # OTHER and USER with one letter's case flipped: a wrong EIP-55 checksum
        ({"recipient": "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"}, "recipient"),
        ({"refund_to": "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}, "refundTo"),
        ({"slippage_bps": "20000"}, "slippageTolerance"),
        ({"topup_gas_usd": "2"}, "topupGasAmount"),
        ({"max_subsidization_usd": "1"}, "maxSubsidizationAmount"),
    ],
)
def test_each_problem_names_its_field(
    chains: ChainsResponse, changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(QuoteRequestError) as caught:
        build_quote_request(_values(**changes), USER, chains)
    assert caught.value.field == field


def test_no_wallet_says_how_to_get_one(chains: ChainsResponse) -> None:
    with pytest.raises(QuoteRequestError) as caught:
        build_quote_request(_values(), None, chains)
    assert caught.value.field == "user" and "wallet import" in (caught.value.hint or "")


def test_the_options_line_says_what_is_set_in_a_traders_words() -> None:
    from crossdeck.tui.quote_form import demo_referrer_warning, options_summary

    assert options_summary(QuoteFormValues()) == []
    said = options_summary(
        QuoteFormValues(
            recipient=OTHER, topup_gas=True, subsidize_fees=True, max_subsidization_usd="0.5"
        )
    )
    assert said == ["send to 0x7099…79C8", "gas on arrival $2", "sponsored up to $0.5"]
    assert demo_referrer_warning(QuoteFormValues(referrer="myapp")) is None
    warning = demo_referrer_warning(QuoteFormValues(referrer="demo:fail:SLIPPAGE"))
    assert warning is not None and "fail this transfer and refund it" in warning


def test_calls_reach_the_body_as_the_cli_takes_them(chains: ChainsResponse) -> None:
    calls = f"{OTHER},1000,0xd0e30db0; {USER},0,"
    body = build_quote_request(
        _values(destination_chain_id=999, destination_currency=NATIVE, calls=calls), USER, chains
    ).to_body()
    assert body["txs"] == [
        {"to": OTHER, "value": "1000", "data": "0xd0e30db0"},
        {"to": USER, "value": "0", "data": "0x"},
    ]


@pytest.mark.parametrize(
    ("calls", "words"),
    [
        (f"{OTHER},1", "is not TO,VALUE,DATA"),
        (f"{OTHER},0.5,0x", "call 1: value"),
        (f"{OTHER},0,0x; 0x12,0,0x", "call 2: to"),
        (f"{OTHER},0,0xabc", "call 1: data"),
    ],
)
def test_bad_calls_name_the_calls_field(chains: ChainsResponse, calls: str, words: str) -> None:
    with pytest.raises(QuoteRequestError) as caught:
        build_quote_request(_values(calls=calls), USER, chains)
    assert caught.value.field == "txs" and words in caught.value.message
