"""Every quote-body rule of 4.1 answers 400 {message, errorCode} with the documented code."""

from __future__ import annotations

from typing import Any

import pytest

from .support import (
    BASE_USDC,
    HIP3_USDC,
    HYPER_USDC,
    NATIVE,
    PERPS_USDC,
    RECIPIENT,
    SPOT_USDC,
    USER,
    Service,
    body,
)

DROP = None  # an override of None removes the field

CASES: list[tuple[str, dict[str, Any], str, str]] = [
    # (case id, overrides, errorCode, a word the message must contain)
    ("missing user", {"user": DROP}, "INVALID_INPUT", "user"),
    ("bad user", {"user": "0x1234"}, "INVALID_ADDRESS", "user"),
    ("user not hex", {"user": "0x" + "zz" * 20}, "INVALID_ADDRESS", "user"),
    ("missing originChainId", {"originChainId": DROP}, "INVALID_INPUT", "originChainId"),
    ("string chain id", {"originChainId": "8453"}, "INVALID_INPUT", "originChainId"),
    ("bool chain id", {"destinationChainId": True}, "INVALID_INPUT", "destinationChainId"),
    ("unknown origin chain", {"originChainId": 10}, "UNSUPPORTED_CHAIN", "originChainId"),
    ("unknown dest chain", {"destinationChainId": 42161}, "UNSUPPORTED_CHAIN", "destination"),
    ("malformed origin currency", {"originCurrency": "eth"}, "INVALID_INPUT_CURRENCY", "origin"),
    (
        "malformed destination currency",
        {"destinationCurrency": "0x12"},
        "INVALID_OUTPUT_CURRENCY",
        "destination",
    ),
    (
        "unknown origin currency",
        {"originCurrency": "0x" + "99" * 20},
        "UNSUPPORTED_CURRENCY",
        "originCurrency",
    ),
    (
        "unknown venue currency",
        {"destinationChainId": 1337, "destinationCurrency": "0x" + "99" * 16},
        "UNSUPPORTED_CURRENCY",
        "destinationCurrency",
    ),
    (
        "evm address on the venue",
        {"destinationChainId": 1337, "destinationCurrency": "0x" + "99" * 15 + "9"},
        "INVALID_OUTPUT_CURRENCY",
        "destinationCurrency",
    ),
    ("missing amount", {"amount": DROP}, "INVALID_INPUT", "amount"),
    ("numeric amount", {"amount": 1000}, "INVALID_INPUT", "amount"),
    ("decimal amount", {"amount": "1.5"}, "INVALID_INPUT", "amount"),
    ("negative amount", {"amount": "-5"}, "INVALID_INPUT", "amount"),
    ("zero amount", {"amount": "0"}, "AMOUNT_TOO_LOW", "amount"),
    ("dust amount", {"amount": "1000"}, "AMOUNT_TOO_LOW", "amount"),
    ("missing tradeType", {"tradeType": DROP}, "INVALID_INPUT", "tradeType"),
    ("bad tradeType", {"tradeType": "EXACT"}, "INVALID_INPUT", "tradeType"),
    ("bad recipient", {"recipient": "alice"}, "INVALID_RECIPIENT", "recipient"),
    ("bad refundTo", {"refundTo": "0xabc"}, "INVALID_ADDRESS", "refundTo"),
    (
        "withdrawal without protocolVersion",
        {
            "originChainId": 1337,
            "originCurrency": PERPS_USDC,
            "destinationChainId": 8453,
            "destinationCurrency": BASE_USDC,
            "amount": "1000000000",
        },
        "INVALID_INPUT",
        "protocolVersion",
    ),
    ("protocolVersion v1", {"protocolVersion": "v1"}, "INVALID_INPUT", "protocolVersion"),
    (
        "same currency same chain",
        {"destinationChainId": 8453, "destinationCurrency": NATIVE},
        "UNSUPPORTED_ROUTE",
        "same",
    ),
    (
        "venue to venue",
        {
            "originChainId": 1337,
            "originCurrency": PERPS_USDC,
            "destinationChainId": 1337,
            "destinationCurrency": SPOT_USDC,
            "protocolVersion": "v2",
        },
        "UNSUPPORTED_ROUTE",
        "venue",
    ),
    ("topupGas not bool", {"topupGas": "yes"}, "INVALID_INPUT", "topupGas"),
    ("topupGasAmount alone", {"topupGasAmount": "1000000"}, "INVALID_INPUT", "topupGas"),
    (
        "topupGasAmount bad",
        {"topupGas": True, "topupGasAmount": "1.5"},
        "INVALID_INPUT",
        "topupGasAmount",
    ),
    (
        "topup to gas currency",
        {"topupGas": True, "destinationCurrency": NATIVE},
        "UNSUPPORTED_ROUTE",
        "gas currency",
    ),
    (
        "topup to the venue",
        {"topupGas": True, "destinationChainId": 1337, "destinationCurrency": PERPS_USDC},
        "UNSUPPORTED_ROUTE",
        "1337",
    ),
    (
        "components without subsidizeFees",
        {"sponsoredFeeComponents": ["execution"]},
        "INVALID_INPUT",
        "subsidizeFees",
    ),
    (
        "cap without subsidizeFees",
        {"maxSubsidizationAmount": "1000000"},
        "INVALID_INPUT",
        "subsidizeFees",
    ),
    (
        "empty components",
        {"subsidizeFees": True, "sponsoredFeeComponents": []},
        "INVALID_INPUT",
        "sponsoredFeeComponents",
    ),
    (
        "unknown component",
        {"subsidizeFees": True, "sponsoredFeeComponents": ["gas"]},
        "INVALID_INPUT",
        "gas",
    ),
    (
        "public brand component in neutral world",
        {"subsidizeFees": True, "sponsoredFeeComponents": ["relay"]},
        "INVALID_INPUT",
        "relay",
    ),
    (
        "negative cap",
        {"subsidizeFees": True, "maxSubsidizationAmount": -1},
        "INVALID_INPUT",
        "maxSubsidizationAmount",
    ),
    ("strict alone", {"strict": True, "refundTo": USER}, "INVALID_INPUT", "useDepositAddress"),
    (
        "strict without refundTo",
        {"useDepositAddress": True, "strict": True},
        "INVALID_INPUT",
        "refundTo",
    ),
    (
        "deposit address for ERC-20",
        {"useDepositAddress": True, "originCurrency": BASE_USDC},
        "UNSUPPORTED_ROUTE",
        "native",
    ),
    (
        "deposit address exact output open",
        {"useDepositAddress": True, "tradeType": "EXACT_OUTPUT", "amount": "1000000"},
        "INVALID_INPUT",
        "strict",
    ),
    ("slippage negative", {"slippageTolerance": "-1"}, "INVALID_SLIPPAGE_TOLERANCE", "slippage"),
    ("slippage decimal", {"slippageTolerance": "0.5"}, "INVALID_SLIPPAGE_TOLERANCE", "slippage"),
    ("slippage too big", {"slippageTolerance": 10001}, "INVALID_SLIPPAGE_TOLERANCE", "10000"),
    ("permit for native", {"usePermit": True}, "UNSUPPORTED_ROUTE", "USDC"),
    (
        "permit expiry zero",
        {"usePermit": True, "originCurrency": BASE_USDC, "permitExpiry": 0},
        "INVALID_INPUT",
        "permitExpiry",
    ),
    ("referrer not a string", {"referrer": 12}, "INVALID_INPUT", "referrer"),
    (
        "app fee bad recipient",
        {"appFees": [{"recipient": "x", "fee": "10"}]},
        "INVALID_ADDRESS",
        "",
    ),
    ("app fee too big", {"appFees": [{"recipient": USER, "fee": "10000"}]}, "INVALID_INPUT", ""),
]


@pytest.mark.parametrize(
    ("overrides", "code", "word"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_rule_refused_with_code(
    service: Service, overrides: dict[str, Any], code: str, word: str
) -> None:
    payload = body(**{k: v for k, v in overrides.items() if v is not None})
    for name, value in overrides.items():
        if value is None:
            payload.pop(name, None)
    response = await service.quote(payload)
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["errorCode"] == code, answer
    assert word in answer["message"], answer
    # A refused quote stores nothing.
    assert service.state.query("SELECT COUNT(*) AS n FROM requests")[0]["n"] == 0


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"", b"[1, 2]", b'"text"', b"null"],
    ids=["garbage", "empty", "array", "string", "null"],
)
async def test_bad_json_is_400_not_a_crash(service: Service, raw: bytes) -> None:
    response = await service.http.post(
        f"{service.url}/quote/v2", content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["errorCode"] == "INVALID_INPUT"


async def test_protocol_version_is_mandatory_only_for_withdrawals(service: Service) -> None:
    # A deposit to the venue needs no protocolVersion; a withdrawal with it is accepted.
    await service.ok_quote(
        body(destinationChainId=1337, destinationCurrency=PERPS_USDC, recipient=RECIPIENT)
    )
    await service.ok_quote(
        body(
            originChainId=1337,
            originCurrency=PERPS_USDC,
            destinationChainId=8453,
            destinationCurrency=BASE_USDC,
            amount="1000000000",
            protocolVersion="v2",
        )
    )


@pytest.mark.parametrize("currency", [PERPS_USDC, SPOT_USDC, HIP3_USDC])
async def test_venue_currencies_are_quotable(service: Service, currency: str) -> None:
    quote = await service.ok_quote(
        body(
            destinationChainId=1337,
            destinationCurrency=currency,
            originCurrency=BASE_USDC,
            amount="5000000",
        )
    )
    assert quote["details"]["currencyOut"]["currency"]["address"] == currency
    assert quote["details"]["currencyOut"]["currency"]["decimals"] == 8


async def test_public_brand_accepts_its_service_component(make_service) -> None:
    service = await make_service("public")
    quote = await service.ok_quote(
        body(subsidizeFees=True, sponsoredFeeComponents=["relay", "app"])
    )
    assert quote["feeSponsorship"]["quoted"]["selectedComponents"] == ["relay", "app"]
    refused = await service.quote(body(subsidizeFees=True, sponsoredFeeComponents=["service"]))
    assert refused.status_code == 400


async def test_hyper_usdc_helper_constant_is_the_quoted_destination(service: Service) -> None:
    quote = await service.ok_quote(body())
    assert quote["details"]["currencyOut"]["currency"]["address"].lower() == HYPER_USDC
