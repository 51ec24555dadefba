"""crossdeck.venue: the venue's API client, SendAsset typed data, currency addressing.

Names are loaded on first use (PEP 562): the app reads `crossdeck.venue.currencies` while it
fills the chain pickers, and that must not import the client (httpx) and the /info models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crossdeck.base.lazy_names import lazy_names

if TYPE_CHECKING:
    from crossdeck.venue.client import VenueClient
    from crossdeck.venue.currencies import (
        PERPS_USDC_ADDRESS,
        SPOT_USDC_TOKEN_ID,
        VenueCurrency,
        describe_venue_currency,
        hip3_address,
        parse_hip3,
        token_string,
    )
    from crossdeck.venue.errors import (
        VenueConnectionError,
        VenueDataError,
        VenueError,
        VenueMalformedResponseError,
    )
    from crossdeck.venue.signing import (
        build_send_asset_typed_data,
        sign_domain_name,
        signed_action,
        split_signature,
    )

__all__ = [
    "PERPS_USDC_ADDRESS",
    "SPOT_USDC_TOKEN_ID",
    "VenueClient",
    "VenueConnectionError",
    "VenueCurrency",
    "VenueDataError",
    "VenueError",
    "VenueMalformedResponseError",
    "build_send_asset_typed_data",
    "describe_venue_currency",
    "hip3_address",
    "parse_hip3",
    "sign_domain_name",
    "signed_action",
    "split_signature",
    "token_string",
]

# name -> the submodule that defines it
_SOURCES: dict[str, str] = {
    "VenueClient": "crossdeck.venue.client",
    "PERPS_USDC_ADDRESS": "crossdeck.venue.currencies",
    "SPOT_USDC_TOKEN_ID": "crossdeck.venue.currencies",
    "VenueCurrency": "crossdeck.venue.currencies",
    "describe_venue_currency": "crossdeck.venue.currencies",
    "hip3_address": "crossdeck.venue.currencies",
    "parse_hip3": "crossdeck.venue.currencies",
    "token_string": "crossdeck.venue.currencies",
    "VenueConnectionError": "crossdeck.venue.errors",
    "VenueDataError": "crossdeck.venue.errors",
    "VenueError": "crossdeck.venue.errors",
    "VenueMalformedResponseError": "crossdeck.venue.errors",
    "build_send_asset_typed_data": "crossdeck.venue.signing",
    "sign_domain_name": "crossdeck.venue.signing",
    "signed_action": "crossdeck.venue.signing",
    "split_signature": "crossdeck.venue.signing",
}

__getattr__, __dir__ = lazy_names(globals(), _SOURCES, __all__)
