"""Currencies the service quotes, with the fixed demo price table.

EVM chains (8453, 999) have their native currency at the zero address (18 decimals) and USDC
(6 decimals) at the chain node's USDC contract. Chain 1337 (the venue) has perps USDC, spot USDC,
USDe, USDH and one HIP-3 currency, all with 8 decimals, taken from ``crossdeck.sim.venue``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crossdeck.sim import venue as venue_world

NATIVE_ADDRESS = "0x0000000000000000000000000000000000000000"
VENUE_CHAIN_ID = 1337
EVM_USDC_DECIMALS = 6
NATIVE_DECIMALS = 18

# Fixed demo prices in micro-USD (1_000_000 = $1), keyed by asset.
PRICES_MICRO_USD: dict[str, int] = {
    "ETH": 3000 * 10**6,
    "HYPE": 25 * 10**6,
    "USDC": 1 * 10**6,
    "USDE": 1 * 10**6,
    "USDH": 1 * 10**6,
    "SOL": 150 * 10**6,
    "BTC": 100_000 * 10**6,
}

_LOGOS = {
    "ETH": "https://assets.demo.invalid/eth.png",
    "HYPE": "https://assets.demo.invalid/hype.png",
    "USDC": "https://assets.demo.invalid/usdc.png",
    "USDE": "https://assets.demo.invalid/usde.png",
    "USDH": "https://assets.demo.invalid/usdh.png",
    "SOL": "https://assets.demo.invalid/sol.png",
    "BTC": "https://assets.demo.invalid/btc.png",
}


@dataclass(frozen=True)
class Currency:
    chain_id: int
    address: str  # as displayed: checksummed on EVM, lowercase on the venue, as is elsewhere
    symbol: str
    name: str
    decimals: int
    asset: str  # price key; same asset on two chains = a bridge, different = a swap
    is_native: bool = False
    venue_dex: str | None = None  # venue only: '' perps, 'spot', or the HIP-3 DEX name
    venue_token: str | None = None  # venue only: sendAsset token string 'NAME:tokenId'

    @property
    def price(self) -> int:
        return PRICES_MICRO_USD[self.asset]

    @property
    def key(self) -> str:
        return currency_key(self.address)

    def to_json(self) -> dict[str, Any]:
        return {
            "chainId": self.chain_id,
            "address": self.address,
            "symbol": self.symbol,
            "name": self.name,
            "decimals": self.decimals,
            "metadata": {
                "logoURI": _LOGOS.get(self.asset, ""),
                "verified": True,
                "isNative": self.is_native,
            },
        }

    def chains_entry(self) -> dict[str, Any]:
        """The shape of a currency in GET /chains."""
        return {
            "id": self.symbol.lower(),
            "symbol": self.symbol,
            "name": self.name,
            "address": self.address,
            "decimals": self.decimals,
            "supportsBridging": True,
        }


def currency_key(address: str) -> str:
    """Hex addresses (EVM, venue) compare without case; base58 and bech32 ones keep it."""
    return address.lower() if address.startswith("0x") else address


def evm_currencies(
    chain_id: int, usdc_address: str, native_symbol: str, native_name: str
) -> list[Currency]:
    return [
        Currency(
            chain_id,
            NATIVE_ADDRESS,
            native_symbol,
            native_name,
            NATIVE_DECIMALS,
            asset=native_symbol.upper(),
            is_native=True,
        ),
        Currency(chain_id, usdc_address, "USDC", "USD Coin", EVM_USDC_DECIMALS, asset="USDC"),
    ]


def venue_currencies() -> list[Currency]:
    """Chain 1337's currencies, as the venue defines them (perps, spot, HIP-3)."""
    out = []
    for vc in venue_world.CURRENCIES.values():
        out.append(
            Currency(
                VENUE_CHAIN_ID,
                vc.address.lower(),
                vc.symbol,
                vc.name,
                vc.decimals,
                asset=vc.token.name.upper(),
                venue_dex=vc.dex,
                venue_token=vc.token.wire,
            )
        )
    return out
