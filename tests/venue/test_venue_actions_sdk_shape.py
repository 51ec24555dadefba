"""crossdeck's typed data for each venue action, held to the venue SDK's own reading: for the
public venue's name, the SDK's `user_signed_payload` over the same message (with its own field
list for the action) is the same typed data, so a wallet signs the same digest either way."""

from __future__ import annotations

from typing import Any

import pytest
from eth_account.messages import encode_typed_data
from hyperliquid.utils import signing as sdk

from crossdeck.venue.actions import TransferRequest, plan, typed_data

ME = "0x" + "12" * 20
OTHER = "0x" + "34" * 20
SUB = "0x" + "56" * 20

CASES: dict[str, tuple[TransferRequest, list[dict[str, str]], str]] = {
    "usdClassTransfer": (
        TransferRequest(ME, "perps", "spot", 10 * 10**8),
        sdk.USD_CLASS_TRANSFER_SIGN_TYPES, "HyperliquidTransaction:UsdClassTransfer",
    ),
    "usdClassTransfer from a sub account": (
        TransferRequest(ME, "spot", "perps", 25 * 10**7, from_sub_account=SUB),
        sdk.USD_CLASS_TRANSFER_SIGN_TYPES, "HyperliquidTransaction:UsdClassTransfer",
    ),
    "sendAsset between books": (
        TransferRequest(ME, "spot", "xyz", 10 * 10**8),
        sdk.SEND_ASSET_SIGN_TYPES, "HyperliquidTransaction:SendAsset",
    ),
    "usdSend": (
        TransferRequest(ME, "perps", "perps", 2 * 10**8, to_address=OTHER),
        sdk.USD_SEND_SIGN_TYPES, "HyperliquidTransaction:UsdSend",
    ),
    "spotSend": (
        TransferRequest(ME, "spot", "spot", 2 * 10**8, to_address=OTHER),
        sdk.SPOT_TRANSFER_SIGN_TYPES, "HyperliquidTransaction:SpotSend",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_typed_data_as_the_venue_sdk(case: str) -> None:
    request, sdk_types, primary = CASES[case]
    ours = typed_data(plan(request, nonce=1_700_000_000_000), "Hyperliquid")
    theirs: dict[str, Any] = sdk.user_signed_payload(primary, sdk_types, dict(ours["message"]))
    assert ours == theirs
    digest = encode_typed_data(full_message=ours).body
    assert digest == encode_typed_data(full_message=theirs).body


def test_the_sub_account_is_written_as_the_sdk_writes_it() -> None:
    request = TransferRequest(ME, "perps", "spot", 10**8, from_sub_account=SUB)
    action = plan(request, nonce=1)
    # exchange.usd_class_transfer appends " subaccount:<address>" to the amount string
    assert action.parameters["amount"] == f"1.0 subaccount:{SUB}"
