"""Brand-bearing names of the demo world.

The spec writes 'venue' and 'the service' where the public deployment uses its own brands. The
world can speak either way: `neutral` uses the spec's names, `public` the public deployment's, so
that a public SDK could talk to it. The client never hard-codes either; it reads them from quotes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Brand:
    key: str
    service_name: str  # 'Relay' in public: prefixes the NonceMapping domain
    venue_name: str  # 'Hyperliquid' in public: prefixes SendAsset types and the sign domain

    @property
    def nonce_mapping_domain(self) -> str:
        return f"{self.service_name}NonceMapping"

    @property
    def venue_chain_label(self) -> str:
        """value.chainId of the NonceMapping message: the venue's lowercase name."""
        return self.venue_name.lower()

    @property
    def venue_chain_field(self) -> str:
        """The sendAsset parameter the spec calls venueChain ('hyperliquidChain' in public)."""
        return f"{self.venue_name[0].lower()}{self.venue_name[1:]}Chain"

    @property
    def send_asset_type(self) -> str:
        return f"{self.venue_name}Transaction:SendAsset"

    @property
    def sign_domain(self) -> str:
        return f"{self.venue_name}SignTransaction"

    @property
    def service_fee_component(self) -> str:
        """The sponsorable fee component named after the service ('relay' in public)."""
        return self.service_name.lower()


BRANDS: dict[str, Brand] = {
    "neutral": Brand(key="neutral", service_name="Service", venue_name="Venue"),
    "public": Brand(key="public", service_name="Relay", venue_name="Hyperliquid"),
}
