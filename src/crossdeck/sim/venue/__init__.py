"""The perps venue of the demo world: chain 1337's off-chain ledger behind /info and /exchange.

Written from the spec (2.4, 4.4), facts.md and the venue's public SDK and answers, never from the
client's code. One module a job:
- `assets`: tokens, perp DEXes, the chain-1337 currency addresses, the venue's decimal strings;
- `ledger`: the books (balances, accounts and their modes, sub accounts, vault equities, nonces,
  ledger updates) and their one way of changing;
- `actions`: each user-signed action checked and applied, refusals in the venue's words;
- `signed`: each action's EIP-712 fields, the /exchange body's parse, signer recovery;
- `info`: the /info answers; `http`: the aiohttp app.
"""

from crossdeck.sim.venue.assets import (
    CURRENCIES,
    HIP3_DEX_NAME,
    HIP3_DEXES,
    PERP_ASSETS,
    PERPS_DEX,
    PERPS_USDC_ADDRESS,
    SPOT_DEX,
    SPOT_TOKENS,
    SPOT_USDC_TOKEN_ID,
    USDC,
    USDC_DECIMALS,
    USDE,
    USDE_TOKEN_ID,
    USDH,
    USDH_TOKEN_ID,
    VENUE_CHAIN_VALUE,
    InsufficientBalance,
    PerpAsset,
    PerpDex,
    SpotToken,
    UnknownCurrency,
    VenueCurrency,
    VenueError,
    currency_for,
    format_units,
    hip3_address,
    parse_units,
)
from crossdeck.sim.venue.http import make_venue_app
from crossdeck.sim.venue.ledger import (
    DEFAULT_FIRST_SEND_FEE,
    NONCE_FUTURE_WINDOW_MS,
    NONCE_PAST_WINDOW_MS,
    SETTABLE_MODES,
    STANDARD_MODE,
    UNIFIED_MODES,
    SendAssetCallback,
    SendAssetRecord,
    SubAccount,
    VaultEquity,
    VenueLedger,
)
from crossdeck.sim.venue.signed import (
    ACTIONS,
    action_typed_data,
    send_asset_fields,
    send_asset_typed_data,
)

__all__ = [
    "ACTIONS", "CURRENCIES", "DEFAULT_FIRST_SEND_FEE", "HIP3_DEXES", "HIP3_DEX_NAME",
    "NONCE_FUTURE_WINDOW_MS", "NONCE_PAST_WINDOW_MS", "PERPS_DEX", "PERPS_USDC_ADDRESS",
    "PERP_ASSETS", "SETTABLE_MODES", "SPOT_DEX", "SPOT_TOKENS", "SPOT_USDC_TOKEN_ID",
    "STANDARD_MODE", "UNIFIED_MODES", "USDC", "USDC_DECIMALS", "USDE", "USDE_TOKEN_ID", "USDH",
    "USDH_TOKEN_ID", "VENUE_CHAIN_VALUE", "InsufficientBalance", "PerpAsset", "PerpDex",
    "SendAssetCallback", "SendAssetRecord", "SpotToken", "SubAccount", "UnknownCurrency",
    "VaultEquity", "VenueCurrency", "VenueError", "VenueLedger", "action_typed_data",
    "currency_for", "format_units", "hip3_address", "make_venue_app", "parse_units",
    "send_asset_fields", "send_asset_typed_data",
]  # fmt: skip
