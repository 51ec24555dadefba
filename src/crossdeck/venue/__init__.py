"""crossdeck.venue: the venue's API client, SendAsset typed data, currency addressing."""

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
