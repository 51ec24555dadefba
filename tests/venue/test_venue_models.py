"""Venue /info answer models: lenient in, exact out, Decimal never float."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from crossdeck.models.venue import ClearinghouseState, SpotClearinghouseState, SpotMeta

from .conftest import SPOT_META

CLEARINGHOUSE = {
    "marginSummary": {
        "accountValue": "1234.50",
        "totalMarginUsed": "0.0",
        "totalNtlPos": "0.0",
        "totalRawUsd": "1234.50",
    },
    "crossMarginSummary": {
        "accountValue": "1234.50",
        "totalMarginUsed": "0.0",
        "totalNtlPos": "0.0",
        "totalRawUsd": "1234.50",
    },
    "crossMaintenanceMarginUsed": "0.0",
    "withdrawable": "1233.123456",
    "assetPositions": [{"position": {"coin": "ETH", "szi": "0.1"}, "type": "oneWay"}],
    "time": 1732000000000,
}
SPOT_STATE = {
    "balances": [
        {"coin": "USDC", "token": 0, "total": "15.00000000", "hold": "2.5", "entryNtl": "0.0"},
        {"coin": "USDE", "token": 235, "total": "3", "hold": "0", "entryNtl": "3.01"},
    ]
}


def test_spot_meta_round_trip_and_lookups() -> None:
    meta = SpotMeta.model_validate(SPOT_META)
    assert meta.to_wire() == SPOT_META
    usdc = meta.token_by_name("USDC")
    assert usdc is not None and usdc.is_canonical and usdc.wei_decimals == 8
    usde = meta.token_by_id("0x2E6D84F2D7CA82E6581E03523E4389F7")
    assert usde is not None and usde.full_name == "Ethena USDe"
    assert usde.evm_contract["evm_extra_wei_decimals"] == 10
    assert meta.universe[0].tokens == [235, 0]


def test_clearinghouse_state_decimals_are_exact() -> None:
    state = ClearinghouseState.model_validate(CLEARINGHOUSE)
    assert state.withdrawable == Decimal("1233.123456")
    assert state.margin_summary is not None
    assert state.margin_summary.account_value == Decimal("1234.50")
    assert state.extra_fields["crossMaintenanceMarginUsed"] == "0.0"
    assert state.to_wire() == CLEARINGHOUSE  # '1234.50' keeps its trailing zero


def test_spot_clearinghouse_state() -> None:
    state = SpotClearinghouseState.model_validate(SPOT_STATE)
    usdc = state.balance_of("USDC")
    assert usdc is not None and usdc.total == Decimal("15") and usdc.available == Decimal("12.5")
    assert state.balance_of("NOPE") is None
    usde = state.balance_of("USDe")  # the venue writes 'USDE'
    assert usde is not None and usde.coin == "USDE" and usde.total == Decimal("3")
    assert state.to_wire() == SPOT_STATE


def test_floats_and_garbage_are_refused() -> None:
    with pytest.raises(ValidationError):
        ClearinghouseState.model_validate({**CLEARINGHOUSE, "withdrawable": 1.5})
    with pytest.raises(ValidationError):
        ClearinghouseState.model_validate({**CLEARINGHOUSE, "withdrawable": "lots"})
    with pytest.raises(ValidationError):
        ClearinghouseState.model_validate({**CLEARINGHOUSE, "withdrawable": "NaN"})
    with pytest.raises(ValidationError):
        ClearinghouseState.model_validate({"marginSummary": {}})  # withdrawable is the point
