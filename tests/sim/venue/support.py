"""Helpers for the venue tests: an independent signer and a handle on a running venue.

The typed data here is built from the spec's text (4.4 "Building the deposit signature data"),
not from crossdeck.sim.venue, so the two readings check each other.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_typed_data

from crossdeck.sim.brand import Brand
from helpers.keys import DEV_KEYS
from helpers.typed_data import eip712_domain_fields, send_asset_fields

# Publicly known anvil/hardhat test keys (#0, #1): never real funds.
PAYER_KEY = DEV_KEYS[0]
OTHER_KEY = DEV_KEYS[1]
PAYER = Account.from_key(PAYER_KEY)
OTHER = Account.from_key(OTHER_KEY)
SOLVER = "0x" + "5a" * 20
PERPS_USDC = "0x" + "0" * 32
SPOT_USDC_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
USDC_TOKEN = f"USDC:{SPOT_USDC_ID}"
USDC_UNIT = 10**8  # chain-1337 USDC has 8 decimals


def now_ms() -> int:
    return time.time_ns() // 1_000_000


_last_nonce = 0


def fresh_nonce() -> int:
    """Now in ms, but strictly increasing: two bodies built in one millisecond must differ."""
    global _last_nonce
    _last_nonce = max(now_ms(), _last_nonce + 1)
    return _last_nonce


def venue_chain_field(venue_name: str) -> str:
    # The spec's 'venueChain' carries the venue brand: Venue -> venueChain,
    # Hyperliquid -> hyperliquidChain.
    return venue_name[0].lower() + venue_name[1:] + "Chain"


def build_action(
    brand: Brand,
    *,
    destination: str = SOLVER,
    amount: str = "10",
    token: str = USDC_TOKEN,
    source_dex: str = "",
    destination_dex: str = "",
    nonce: int | None = None,
    chain_id: int = 8453,
    venue_chain: str = "Mainnet",
) -> dict[str, Any]:
    """Action = all parameters + type + signatureChainId (spec 4.4 step 4)."""
    return {
        "type": "sendAsset",
        "signatureChainId": hex(chain_id),
        venue_chain_field(brand.venue_name): venue_chain,
        "destination": destination,
        "sourceDex": source_dex,
        "destinationDex": destination_dex,
        "token": token,
        "amount": amount,
        "fromSubAccount": "",
        "nonce": fresh_nonce() if nonce is None else nonce,
    }


def typed_data(brand: Brand, action: dict[str, Any]) -> dict[str, Any]:
    primary = f"{brand.venue_name}Transaction:SendAsset"
    field = venue_chain_field(brand.venue_name)
    return {
        "domain": {
            "name": f"{brand.venue_name}SignTransaction",
            "version": "1",
            "chainId": int(action["signatureChainId"], 16),
            "verifyingContract": "0x0000000000000000000000000000000000000000",
        },
        "types": {
            primary: send_asset_fields(field),
            "EIP712Domain": eip712_domain_fields(),
        },
        "primaryType": primary,
        "message": action,
    }


def sign(brand: Brand, action: dict[str, Any], key: str = PAYER_KEY) -> dict[str, Any]:
    signed = Account.sign_message(encode_typed_data(full_message=typed_data(brand, action)), key)
    return {"r": hex(signed.r), "s": hex(signed.s), "v": signed.v}


def signed_body(brand: Brand, key: str = PAYER_KEY, **action_kw: Any) -> dict[str, Any]:
    action = build_action(brand, **action_kw)
    return {"action": action, "nonce": action["nonce"], "signature": sign(brand, action, key)}


class Venue:
    """A running venue app plus an httpx client pointed at it."""

    def __init__(self, ledger: Any, brand: Brand, url: str, http: httpx.AsyncClient):
        self.ledger, self.brand, self.url, self.http = ledger, brand, url, http

    async def info(self, body: Any) -> httpx.Response:
        return await self.http.post(f"{self.url}/info", json=body)

    async def exchange(self, body: Any) -> httpx.Response:
        return await self.http.post(f"{self.url}/exchange", json=body)
