"""What came back of a request in words, read from the recorded public /requests/v3 answer and
from a /requests/v2-shaped record: amounts in units and USD, fees named by what they are."""

from __future__ import annotations

import json
from pathlib import Path

from crossdeck.history.came_back import came_back
from crossdeck.models import RequestRecord
from crossdeck.models.requests_v3 import RequestsPageV3

REAL = "shared/realdata/requests-v3/docs-migrating-to-requests-v3-2026-08-19-1.json"


def _real_v3() -> RequestsPageV3:
    # the recorded answers sit beside the checkout (/work/shared), however deep the worktree
    found = next(p / REAL for p in Path(__file__).resolve().parents if (p / REAL).exists())
    return RequestsPageV3.from_json(found.read_text())


def test_v3_record_fees_in_words_in_the_fee_currency() -> None:
    record = _real_v3().requests[0]
    outcome = came_back(record)
    fees = dict(outcome.fees)
    # data.fees.quoted.swap: amount 1999380 of USDC.e (6 decimals), usd -1.999380
    assert fees["swap fee"] == "1.99938 USDC.e, -$2.00"
    assert fees["relayer fee (gas and service)"] == "0.00116 USDC.e, $0.00"
    assert fees["app fee"] == "5 USDC.e, -$5.00"
    assert "platform fee" not in fees  # a zero fee is left out
    line = outcome.line()
    assert "swap fee 1.99938 USDC.e, -$2.00" in line and "fees.quoted" not in line


def test_v2_record_amounts_and_fees_in_units_and_usd() -> None:
    usdc = {"chainId": 8453, "address": "0x" + "a" * 40, "symbol": "USDC", "decimals": 6}
    wire = {
        "id": "0x" + "1" * 64,
        "status": "success",
        "data": {
            "currency": "usdc",
            "fees": {"gas": "3807", "fixed": "0", "price": "120000"},
            "feesUsd": {"gas": "0.003806", "fixed": "0", "price": "0.119990"},
            "metadata": {
                "currencyIn": {"currency": usdc, "amount": "10000000", "amountUsd": "9.998"},
                "currencyOut": {
                    "currency": {**usdc, "chainId": 10},
                    "amount": "9876543",
                    "amountUsd": "9.874",
                },
            },
        },
    }
    outcome = came_back(RequestRecord.from_json(json.dumps(wire)))
    assert outcome.sent == "10 USDC, $10.00"
    assert outcome.received == "9.87654 USDC, $9.87"
    assert outcome.fees == (
        ("relayer gas fee", "0.003807 USDC, $0.00"),
        ("swap fee (price impact)", "0.12 USDC, $0.12"),
    )
    assert outcome.line(refunded=True).startswith("sent 10 USDC, $10.00 · was to receive 9.87654")
