"""The contract's fixed values, kept free of pydantic: the app's first screen needs them before
any wire model is loaded."""

from __future__ import annotations

from typing import Literal

VENUE_CHAIN_ID = 1337
ZERO_ADDRESS = "0x" + "0" * 40
# the contract names an EVM chain's native currency (ETH on Base, ...) by the zero address;
# it has 18 decimals on every EVM chain, so they are known without asking /chains
NATIVE_ADDRESS = ZERO_ADDRESS
NATIVE_DECIMALS = 18
# the quote's tradeType values: what the amount is (sent, received, about received)
TRADE_TYPES = ("EXACT_INPUT", "EXACT_OUTPUT", "EXPECTED_OUTPUT")


def required_protocol_version(origin_chain_id: int) -> Literal["v2"] | None:
    """The protocolVersion a quote from `origin_chain_id` must ask for: 'v2' for a withdrawal
    from the venue (spec 4.4), none otherwise. Forms fill it in; the model refuses without."""
    return "v2" if origin_chain_id == VENUE_CHAIN_ID else None
