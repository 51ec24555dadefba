"""Fixtures of the VenueClient tests: the world's own venue (crossdeck.sim.venue) on 127.0.0.1
port 0 behind a FaultProxy (which records what the client sent and answers queued faults in the
venue's place), test wallets, and a retry policy that records its sleeps instead of sleeping."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount

from crossdeck.retry import RetryPolicy
from crossdeck.sim.brand import BRANDS
from crossdeck.sim.venue import (
    PERPS_USDC_ADDRESS,
    SPOT_TOKENS,
    USDC_DECIMALS,
    VenueLedger,
    make_venue_app,
    parse_units,
)
from helpers.fault_proxy import Fault, FaultProxy
from helpers.keys import DEV_KEYS
from helpers.servers import start_app
from helpers.waiting import SleepRecorder

# anvil/hardhat account #0 and #1: publicly known test keys
KEY_0 = DEV_KEYS[0]
KEY_1 = DEV_KEYS[1]


@pytest.fixture
def wallet() -> LocalAccount:
    return Account.from_key(KEY_0)


@pytest.fixture
def other_wallet() -> LocalAccount:
    return Account.from_key(KEY_1)


# the nonce the signed test actions carry (test_venue_signing.NONCE): the venue's clock stands
# there, so the nonce is neither too old nor too new
VENUE_NOW_MS = 1732000000123


@dataclass
class WorldVenue:
    """The world's venue behind a FaultProxy: `url` is the proxy's."""

    ledger: VenueLedger
    proxy: FaultProxy

    @property
    def url(self) -> str:
        return self.proxy.url

    @property
    def received(self) -> dict[str, list[bytes]]:
        """The bodies the client sent, by path (faulted ones too)."""
        return {path: self.proxy.bodies.get(path, []) for path in ("/info", "/exchange")}

    def fund(self, user: str, perps: str = "0", **spot: str) -> None:
        """Credit `user` with perps USDC and spot tokens by name (amounts in whole units)."""
        if perps != "0":
            self.ledger.credit(user, PERPS_USDC_ADDRESS, parse_units(perps, USDC_DECIMALS))
        tokens = {token.name.casefold(): token for token in SPOT_TOKENS}
        for name, amount in spot.items():
            token = tokens[name.casefold()]
            self.ledger.credit(user, token.token_id, parse_units(amount, token.wei_decimals))

    def fail(self, path: str, *faults: Fault) -> None:
        self.proxy.fail(path, *faults)


@pytest.fixture
async def venue() -> AsyncIterator[WorldVenue]:
    # no first-send or new-account fee: a test's balance arithmetic is the transfer's alone
    ledger = VenueLedger(first_send_fee=0, new_account_fee=0, clock_ms=lambda: VENUE_NOW_MS)
    runner, url = await start_app(make_venue_app(ledger, BRANDS["neutral"]))
    proxy = FaultProxy(url)
    await proxy.start()
    try:
        yield WorldVenue(ledger, proxy)
    finally:
        await proxy.stop()
        await runner.cleanup()


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def retry(sleeps: SleepRecorder) -> RetryPolicy:
    return RetryPolicy(max_attempts=3, base_delay=0.1, max_delay=1.0, jitter=False, sleep=sleeps)


# The public venue's spotMeta, as it writes it (two of its tokens): for the model and currency
# tests, which read the public shape rather than the world's
USDC_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
SPOT_META = {
    "tokens": [
        {
            "name": "USDC",
            "szDecimals": 8,
            "weiDecimals": 8,
            "index": 0,
            "tokenId": USDC_ID,
            "isCanonical": True,
            "evmContract": None,
            "fullName": None,
        },
        {
            "name": "USDE",
            "szDecimals": 2,
            "weiDecimals": 8,
            "index": 235,
            "tokenId": "0x2e6d84f2d7ca82e6581e03523e4389f7",
            "isCanonical": False,
            "evmContract": {
                "address": "0x5d3a1ff2b6bab83b63cd9ad0787074081a52ef34",
                "evm_extra_wei_decimals": 10,
            },
            "fullName": "Ethena USDe",
        },
    ],
    "universe": [{"tokens": [235, 0], "name": "@150", "index": 150, "isCanonical": False}],
}
