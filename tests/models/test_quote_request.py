"""QuoteRequest (POST /quote/v2 body): each rule rejects what it should, naming the field, and
accepts what it should."""

from typing import Any

import pytest

from crossdeck.base.errors import InputError
from crossdeck.models import QuoteRequest, QuoteRequestError

USER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
THIRD = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
NATIVE = "0x0000000000000000000000000000000000000000"
PERPS_USDC = "0x" + "0" * 32
SPOT_USDC = "0x6d1e7cde53ba9467b783cb7c530ce054"
HIP3 = SPOT_USDC + b"xyz".hex()


def body(**over: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "user": USER,
        "originChainId": 8453,
        "destinationChainId": 1337,
        "originCurrency": BASE_USDC,
        "destinationCurrency": PERPS_USDC,
        "amount": "10000000",
        "tradeType": "EXACT_INPUT",
    }
    fields.update(over)
    return {k: v for k, v in fields.items() if v is not None}


def rejects(field: str, **over: Any) -> QuoteRequestError:
    with pytest.raises(QuoteRequestError) as info:
        QuoteRequest.build(**body(**over))
    err = info.value
    assert err.field == field
    assert str(err).startswith(f"{field}: ")
    assert isinstance(err, InputError)
    return err


def test_minimal_deposit_body() -> None:
    req = QuoteRequest.build(**body())
    assert req.to_body() == body()
    assert req.is_venue_deposit and not req.is_venue_withdrawal
    assert req.amount_int == 10_000_000


def test_snake_case_names_are_accepted_too() -> None:
    req = QuoteRequest.build(
        user=USER,
        origin_chain_id=8453,
        destination_chain_id=999,
        origin_currency=NATIVE,
        destination_currency=NATIVE,
        amount=10**18,
        trade_type="EXACT_OUTPUT",
        refund_to=OTHER,
    )
    assert req.to_body()["refundTo"] == OTHER
    assert req.to_body()["amount"] == "1000000000000000000"


# --- types are not coerced: a body we send must say what the caller meant ---


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("originChainId", True, "(got True)"),  # bool is an int subclass: would become chain 1
        ("destinationChainId", "999", "valid integer"),
        ("usePermit", 1, "(got 1)"),
        ("topupGas", "true", "valid boolean"),
        ("ttl", 30.0, "(got 30.0)"),
        ("referrer", 7, "(got 7)"),
    ],
)
def test_wrong_types_are_refused_not_coerced(field: str, value: Any, shown: str) -> None:
    err = rejects(field, **{field: value})
    assert shown in str(err)


def test_a_mistyped_string_is_not_echoed() -> None:
    err = rejects("originChainId", originChainId="sk-secret-looking")
    assert "sk-secret-looking" not in str(err)


# --- amount ---


@pytest.mark.parametrize("amount", ["0", "1", "123456789012345678901234567890", 42])
def test_amount_accepts_digits(amount: Any) -> None:
    req = QuoteRequest.build(**body(amount=amount))
    assert req.to_body()["amount"] == str(amount)


@pytest.mark.parametrize("amount", ["1.5", "-1", "1e6", " 1", "0x10", "", -5, 1.0, True])
def test_amount_rejects_non_digits(amount: Any) -> None:
    rejects("amount", amount=amount)


def test_amount_is_required() -> None:
    err = rejects("amount", amount=None)
    assert "is required" in str(err)


# --- addresses ---


@pytest.mark.parametrize(
    "field", ["user", "recipient", "refundTo", "referrerAddress", "recoveryAddress"]
)
@pytest.mark.parametrize(
    "bad", ["0x12", "f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x" + "g" * 40]
)
def test_address_fields_need_an_evm_address(field: str, bad: str) -> None:
    err = rejects(field, **{field: bad})
    assert "40 hex digits" in str(err)


def test_address_fields_accept_evm_addresses() -> None:
    req = QuoteRequest.build(
        **body(recipient=OTHER, refundTo=THIRD, referrerAddress=OTHER, recoveryAddress=USER)
    )
    assert req.to_body()["recoveryAddress"] == USER


@pytest.mark.parametrize("currency", [PERPS_USDC, SPOT_USDC, HIP3])
def test_venue_currencies_are_accepted_on_chain_1337(currency: str) -> None:
    dep = QuoteRequest.build(**body(destinationCurrency=currency))
    assert dep.destination_currency == currency
    wd = QuoteRequest.build(
        **body(
            originChainId=1337,
            originCurrency=currency,
            destinationChainId=8453,
            destinationCurrency=BASE_USDC,
            protocolVersion="v2",
        )
    )
    assert wd.to_body()["originCurrency"] == currency


@pytest.mark.parametrize("currency", ["0x00", "0x" + "0" * 31, SPOT_USDC + "a", "USDC"])
def test_malformed_venue_currency_is_rejected(currency: str) -> None:
    err = rejects("destinationCurrency", destinationCurrency=currency)
    assert "venue currency" in str(err)


def test_evm_chain_currency_must_be_an_evm_address() -> None:
    rejects("originCurrency", originCurrency=PERPS_USDC)
    rejects("destinationCurrency", destinationChainId=999, destinationCurrency=SPOT_USDC)


# --- tradeType, protocolVersion ---


@pytest.mark.parametrize("trade_type", ["EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT"])
def test_trade_types(trade_type: str) -> None:
    assert QuoteRequest.build(**body(tradeType=trade_type)).trade_type == trade_type


def test_unknown_trade_type() -> None:
    rejects("tradeType", tradeType="exact_input")


def test_protocol_version_is_required_for_venue_withdrawals() -> None:
    withdraw = body(
        originChainId=1337,
        originCurrency=PERPS_USDC,
        destinationChainId=8453,
        destinationCurrency=BASE_USDC,
    )
    with pytest.raises(QuoteRequestError) as info:
        QuoteRequest.build(**withdraw)
    assert info.value.field == "protocolVersion"
    assert "1337" in str(info.value)
    req = QuoteRequest.build(**withdraw, protocolVersion="v2")
    assert req.is_venue_withdrawal and req.to_body()["protocolVersion"] == "v2"


def test_protocol_version_only_v2() -> None:
    rejects("protocolVersion", protocolVersion="v1")
    assert QuoteRequest.build(**body(protocolVersion="v2")).protocol_version == "v2"


# --- slippage (bps) ---


@pytest.mark.parametrize(("given", "sent"), [(0, "0"), (50, "50"), ("50", "50"), (10000, "10000")])
def test_slippage_is_bps_sent_as_string(given: Any, sent: str) -> None:
    req = QuoteRequest.build(**body(slippageTolerance=given, latePaymentSlippageTolerance=given))
    assert req.slippage_tolerance == int(sent)
    assert req.to_body()["slippageTolerance"] == sent
    assert req.to_body()["latePaymentSlippageTolerance"] == sent


@pytest.mark.parametrize("bad", [-1, 10001, "0.5", "abc", 0.5, True])
def test_slippage_rejects_non_bps(bad: Any) -> None:
    rejects("slippageTolerance", slippageTolerance=bad)
    rejects("latePaymentSlippageTolerance", latePaymentSlippageTolerance=bad)


# --- topup ---


def test_topup_amount_needs_topup_gas() -> None:
    err = rejects("topupGasAmount", topupGasAmount="2000000")
    assert "topupGas" in str(err)
    rejects("topupGasAmount", topupGas=False, topupGasAmount="2000000")
    evm = {"destinationChainId": 999, "destinationCurrency": OTHER}
    req = QuoteRequest.build(**body(**evm, topupGas=True, topupGasAmount=2_000_000))
    assert req.to_body()["topupGasAmount"] == "2000000"
    assert QuoteRequest.build(**body(**evm, topupGas=True)).to_body()["topupGas"] is True
    # topupGas=false with no amount is just the default spelled out
    assert QuoteRequest.build(**body(topupGas=False)).topup_gas is False


def test_topup_gas_is_for_evm_destinations_without_native_output() -> None:
    err = rejects("topupGas", topupGas=True)  # destination is the venue
    assert "1337" in str(err)
    err = rejects("topupGas", destinationChainId=999, destinationCurrency=NATIVE, topupGas=True)
    assert "gas currency" in str(err)


# --- sponsorship ---


def test_sponsored_components_need_subsidize_fees() -> None:
    rejects("sponsoredFeeComponents", sponsoredFeeComponents=["execution"])
    rejects("sponsoredFeeComponents", subsidizeFees=False, sponsoredFeeComponents=["execution"])


def test_sponsored_components_must_not_be_empty() -> None:
    err = rejects("sponsoredFeeComponents", subsidizeFees=True, sponsoredFeeComponents=[])
    assert "at least one" in str(err)


@pytest.mark.parametrize("bad", ["Execution", "relay-fee", "", "app "])
def test_sponsored_components_are_lowercase_identifiers(bad: str) -> None:
    rejects("sponsoredFeeComponents", subsidizeFees=True, sponsoredFeeComponents=["swap", bad])


@pytest.mark.parametrize(
    "components",
    [["execution", "swap", "app", "rent"], ["service"], ["relay"], ["execution", "venue"]],
)
def test_sponsored_components_accept_any_brand(components: list[str]) -> None:
    req = QuoteRequest.build(**body(subsidizeFees=True, sponsoredFeeComponents=components))
    assert req.to_body()["sponsoredFeeComponents"] == components


def test_max_subsidization_needs_subsidize_fees() -> None:
    rejects("maxSubsidizationAmount", maxSubsidizationAmount="1000000")
    req = QuoteRequest.build(**body(subsidizeFees=True, maxSubsidizationAmount=1_000_000))
    assert req.to_body()["maxSubsidizationAmount"] == "1000000"
    rejects("maxSubsidizationAmount", subsidizeFees=True, maxSubsidizationAmount="-1")


# --- deposit addresses ---

DEPOSIT_NATIVE = {
    "originCurrency": NATIVE,
    "destinationChainId": 999,
    "destinationCurrency": NATIVE,
}


def test_strict_only_with_deposit_address() -> None:
    err = rejects("strict", strict=True, refundTo=OTHER)
    assert "useDepositAddress" in str(err)
    # strict=false says nothing and is harmless without a deposit address
    assert QuoteRequest.build(**body(strict=False)).to_body()["strict"] is False


def test_strict_needs_refund_to() -> None:
    err = rejects("refundTo", **DEPOSIT_NATIVE, useDepositAddress=True, strict=True)
    assert "strict" in str(err)
    req = QuoteRequest.build(
        **body(**DEPOSIT_NATIVE, useDepositAddress=True, strict=True, refundTo=OTHER)
    )
    assert req.to_body()["strict"] is True


def test_deposit_address_only_for_native_currency() -> None:
    err = rejects("useDepositAddress", useDepositAddress=True)  # USDC from Base
    assert "native" in str(err)
    # saying no to a deposit address is fine whatever the currency
    assert QuoteRequest.build(**body(useDepositAddress=False)).use_deposit_address is False
    assert QuoteRequest.build(**body(**DEPOSIT_NATIVE, useDepositAddress=True)).use_deposit_address


def test_exact_output_deposit_address_needs_strict() -> None:
    err = rejects("strict", **DEPOSIT_NATIVE, useDepositAddress=True, tradeType="EXACT_OUTPUT")
    assert "EXACT_OUTPUT" in str(err)
    ok = QuoteRequest.build(
        **body(
            **DEPOSIT_NATIVE,
            useDepositAddress=True,
            tradeType="EXACT_OUTPUT",
            strict=True,
            refundTo=USER,
        )
    )
    assert ok.strict is True
    # open deposit addresses are fine for exact input
    assert QuoteRequest.build(**body(**DEPOSIT_NATIVE, useDepositAddress=True)).strict is None


# --- effective recipient / refund (rules 2 and 3) ---


def test_effective_recipient_and_refund() -> None:
    only_user = QuoteRequest.build(**body())
    assert only_user.effective_recipient() == USER
    assert only_user.effective_refund_to() == USER
    with_recipient = QuoteRequest.build(**body(recipient=OTHER))
    assert with_recipient.effective_recipient() == OTHER
    assert with_recipient.effective_refund_to() == OTHER
    with_refund = QuoteRequest.build(**body(recipient=OTHER, refundTo=THIRD))
    assert with_refund.effective_recipient() == OTHER
    assert with_refund.effective_refund_to() == THIRD
    # defaults are shown, never sent: the body carries only what was given
    assert "recipient" not in only_user.to_body()


# --- everything else, and the body shape ---


def test_every_field_under_its_public_name() -> None:
    full = body(
        destinationChainId=999,
        destinationCurrency=OTHER,
        recipient=OTHER,
        refundTo=THIRD,
        protocolVersion="v2",
        topupGas=True,
        subsidizeFees=True,
        useDepositAddress=False,
        txs=[{"to": OTHER, "value": "0", "data": "0x"}],
        txsGasLimit=300000,
        authorizationList=[
            {"chainId": 8453, "address": OTHER, "nonce": 0, "yParity": 1, "r": "0x01", "s": "0x02"}
        ],
        additionalData={"userPublicKey": "0xabc"},
        referrer="crossdeck",
        referrerAddress=OTHER,
        recoveryAddress=USER,
        refundOnOrigin=True,
        topupGasAmount="2000000",
        enableTrueExactOutput=False,
        explicitDeposit=True,
        useExternalLiquidity=False,
        useFallbacks=True,
        usePermit=False,
        permitExpiry=600,
        slippageTolerance="50",
        latePaymentSlippageTolerance="100",
        gasLimitForDepositSpecifiedTxs=500000,
        forceSolverExecution=True,
        sponsoredFeeComponents=["execution", "service"],
        maxSubsidizationAmount="1000000",
        subsidizeRent=False,
        includedSwapSources=["uniswap-v3"],
        excludedSwapSources=["curve"],
        includedOriginSwapSources=["aerodrome"],
        includedDestinationSwapSources=["hyperswap"],
        originGasOverhead=80000,
        depositFeePayer="9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
        maxRouteLength=3,
        useSharedAccounts=True,
        includeComputeUnitLimit=True,
        overridePriceImpact=False,
        disableOriginSwaps=False,
        fixedRate="0.9995",
        appFees=[{"recipient": OTHER, "fee": "25"}],
        includeProtocolData=True,
        ttl=300,
    )
    req = QuoteRequest.build(**full)
    assert req.to_body() == full
    assert set(full) == {f.alias for f in QuoteRequest.model_fields.values()} - {"strict"}


def test_unlisted_fields_are_kept_and_named() -> None:
    req = QuoteRequest.build(**body(useReceiver=True, futureField={"a": [1]}))
    assert req.unlisted_fields == ["futureField", "useReceiver"]
    assert req.to_body()["useReceiver"] is True and req.to_body()["futureField"] == {"a": [1]}
    assert QuoteRequest.build(**body()).unlisted_fields == []
    err = rejects("body", **{"not a name": 1})
    assert "is not a field name" in str(err)


def test_nested_errors_name_the_path() -> None:
    err = rejects("txs.0.to", txs=[{"to": "0x1"}])
    assert "40 hex digits" in str(err)
    rejects("appFees.0.fee", appFees=[{"recipient": OTHER, "fee": "-3"}])


def test_several_problems_are_all_reported() -> None:
    with pytest.raises(QuoteRequestError) as info:
        QuoteRequest.build(**body(user="nope", amount="x", tradeType="?"))
    assert info.value.field == "user"
    assert info.value.fields == ["user", "amount", "tradeType"]
    assert "amount:" in str(info.value) and "tradeType:" in str(info.value)


def test_body_has_no_none_values() -> None:
    req = QuoteRequest.build(**body(recipient=None))
    assert None not in req.to_body().values()


def test_replace_revalidates() -> None:
    req = QuoteRequest.build(**body(slippageTolerance=50))
    bigger = req.replace(amount=20_000_000, slippage_tolerance=None, recipient=OTHER)
    assert bigger.to_body() == body(amount="20000000", recipient=OTHER)
    assert req.amount == "10000000"  # the original is unchanged
    with pytest.raises(QuoteRequestError) as info:
        req.replace(originChainId=1337, originCurrency=PERPS_USDC)
    assert info.value.field == "protocolVersion"
