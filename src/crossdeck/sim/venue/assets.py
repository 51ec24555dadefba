"""What the venue holds and how it is named: spot tokens, perp DEXes (the default one and the
HIP-3 ones), the chain-1337 currency addresses the service uses for them (spec 2.4), and the
venue's decimal strings.

Units and identifiers chosen for the demo (the spec leaves them open):
- Every balance is an `int` in the smallest unit. Perps USDC uses 8 decimals (the venue quotes its
  USDC with 8 decimals on chain 1337); every spot token here has weiDecimals 8 as well.
- A balance is keyed by its chain-1337 currency address (spec 2.4): perps USDC `0x` + 32 zeros;
  a spot token its 16-byte tokenId; a HIP-3 DEX balance the collateral token's id followed by the
  hex of the DEX name (`xyz` -> `...78797a`).
- Spot USDC's tokenId is the public one (`0x6d1e7cde53ba9467b783cb7c530ce054`). USDe and USDH ids
  are invented: the first 16 bytes of keccak256("crossdeck-sim spot token <NAME>").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PERPS_USDC_ADDRESS = "0x" + "0" * 32
SPOT_USDC_TOKEN_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
USDE_TOKEN_ID = "0x22e9417ea9e6367dee20b2b9b56adc9e"  # invented, see module docstring
USDH_TOKEN_ID = "0x9ab9d01ba42f7b79990f64040edd0edc"  # invented, see module docstring
USDC_DECIMALS = 8
HIP3_DEX_NAME = "xyz"
VENUE_CHAIN_VALUE = "Mainnet"
PERPS_DEX = ""
SPOT_DEX = "spot"

ADDRESS_RE = re.compile(r"^0x[0-9a-fA-F]{40}$")
_AMOUNT_RE = re.compile(r"^(0|[1-9][0-9]*)(\.[0-9]+)?$")
_MAX_AMOUNT_CHARS = 80


class VenueError(Exception):
    """A refusal in the venue's words: becomes HTTP 200 {"status":"err","response": str(e)}."""


class InsufficientBalance(VenueError):
    pass


class UnknownCurrency(VenueError):
    pass


@dataclass(frozen=True)
class SpotToken:
    name: str
    token_id: str
    index: int
    wei_decimals: int
    sz_decimals: int
    full_name: str
    # the service's symbol for it in /chains, where it differs from the venue's token name
    service_symbol: str | None = None

    @property
    def symbol(self) -> str:
        return self.service_symbol or self.name

    @property
    def wire(self) -> str:
        """The sendAsset `token` string: NAME:tokenId."""
        return f"{self.name}:{self.token_id}"


@dataclass(frozen=True)
class PerpDex:
    name: str
    full_name: str
    collateral: SpotToken
    deployer: str


@dataclass(frozen=True)
class VenueCurrency:
    """One chain-1337 currency: where a balance lives (dex) and in which token."""

    address: str
    symbol: str
    name: str
    decimals: int
    dex: str  # '' default perps, 'spot', or a HIP-3 DEX name
    token: SpotToken


@dataclass(frozen=True)
class PerpAsset:
    """One market of a perp DEX's `meta` universe. The world trades nothing: these exist so the
    venue's SDKs, which map coin names to asset numbers at start, find the shape they read."""

    name: str
    sz_decimals: int
    max_leverage: int
    mark_px: str  # a fixed demo price, in USD


USDC = SpotToken("USDC", SPOT_USDC_TOKEN_ID, 0, USDC_DECIMALS, 8, "USD Coin")
# named as the public venue's spotMeta names it ("USDE", full name "USDe")
USDE = SpotToken("USDE", USDE_TOKEN_ID, 1, 8, 2, "USDe", service_symbol="USDe")
USDH = SpotToken("USDH", USDH_TOKEN_ID, 2, 8, 2, "USDH")
SPOT_TOKENS: tuple[SpotToken, ...] = (USDC, USDE, USDH)
HIP3_DEXES: tuple[PerpDex, ...] = (PerpDex(HIP3_DEX_NAME, "XYZ demo DEX", USDC, "0x" + "88" * 20),)
# Perp markets per DEX ('' the default one). A HIP-3 DEX prefixes its coins with its name, as
# the public venue does ('xyz:AMD').
PERP_ASSETS: dict[str, tuple[PerpAsset, ...]] = {
    PERPS_DEX: (PerpAsset("ETH", 4, 25, "3000.0"), PerpAsset("HYPE", 2, 10, "25.0")),
    HIP3_DEX_NAME: (PerpAsset(f"{HIP3_DEX_NAME}:DEMO", 2, 10, "100.0"),),
}
SPOT_PAIR_PX = "1.0"  # every spot pair here is a dollar stablecoin against USDC
SPOT_PAIR_BASES: tuple[SpotToken, ...] = tuple(t for t in SPOT_TOKENS if t is not USDC)
"""The base token of each spot pair (all quoted in USDC), in pair-index order."""


def hip3_address(collateral_token_id: str, dex_name: str) -> str:
    """Spec 2.4: a HIP-3 currency is the spot currency's address + hex of the DEX name."""
    return collateral_token_id.lower() + dex_name.encode().hex()


def _build_currencies() -> dict[str, VenueCurrency]:
    out = [
        VenueCurrency(
            PERPS_USDC_ADDRESS, "USDC", "USD Coin (perps)", USDC_DECIMALS, PERPS_DEX, USDC
        )
    ]
    out += [
        VenueCurrency(t.token_id, t.symbol, t.full_name, t.wei_decimals, SPOT_DEX, t)
        for t in SPOT_TOKENS
    ]
    out += [
        VenueCurrency(
            hip3_address(d.collateral.token_id, d.name),
            d.collateral.name,
            f"{d.collateral.full_name} ({d.name})",
            d.collateral.wei_decimals,
            d.name,
            d.collateral,
        )
        for d in HIP3_DEXES
    ]
    return {c.address: c for c in out}


CURRENCIES: dict[str, VenueCurrency] = _build_currencies()


def currency_for(dex: str, token: SpotToken) -> VenueCurrency | None:
    for c in CURRENCIES.values():
        if c.dex == dex and c.token == token:
            return c
    return None


def perp_currency(dex: str) -> VenueCurrency | None:
    """The collateral balance of a perp DEX ('' the default one); None for 'spot' or unknown."""
    for c in CURRENCIES.values():
        if c.dex == dex and c.dex != SPOT_DEX:
            return c
    return None


def usdc_books() -> tuple[str, ...]:
    """Every chain-1337 currency that is USDC on some book (perps, spot, each HIP-3 DEX)."""
    return tuple(c.address for c in CURRENCIES.values() if c.token == USDC)


def format_units(amount: int, decimals: int) -> str:
    """Venue decimal string: '1234.5', '0.0' (never exponent notation, never a float)."""
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), 10**decimals)
    frac_text = str(frac).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}.{frac_text or '0'}"


def parse_units(text: str, decimals: int) -> int:
    """A positive decimal string in human units -> smallest units; ValueError says why not."""
    if len(text) > _MAX_AMOUNT_CHARS or not _AMOUNT_RE.fullmatch(text):
        raise ValueError(f"amount must be a plain decimal string like '12.5', got {text!r}")
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if len(frac) > decimals:
        raise ValueError(f"amount {text!r} has more than {decimals} decimal places")
    value: int = int(whole) * 10**decimals + int(frac.ljust(decimals, "0") or "0")
    if value <= 0:
        raise ValueError("amount must be greater than zero")
    return value


def norm_currency(token: str) -> VenueCurrency:
    currency = CURRENCIES.get(token.lower()) if isinstance(token, str) else None
    if currency is None:
        raise UnknownCurrency(f"Unknown venue currency {token!r}; known: {sorted(CURRENCIES)}")
    return currency


def norm_user(user: str) -> str:
    if not isinstance(user, str) or not ADDRESS_RE.fullmatch(user):
        raise ValueError(f"not a 20-byte hex address: {user!r}")
    return user.lower()


def token_from_wire(token: str) -> SpotToken:
    """A token string as signed (NAME:tokenId, or the bare name spotSend also takes)."""
    # The name is matched without case: the public venue writes 'USDE' where wallets and the
    # service write 'USDe', and the token id (matched exactly, as hex) is what identifies the token.
    name, sep, token_id = token.partition(":")
    for t in SPOT_TOKENS:
        if sep and t.name.casefold() == name.casefold() and t.token_id == token_id.lower():
            return t
    raise VenueError(f"Unknown token {token!r}; expected NAME:tokenId as listed by spotMeta")


def book(dex: str, token: SpotToken, field: str) -> VenueCurrency:
    """Where a sendAsset side lives; perp DEXes only hold their collateral token."""
    if dex != SPOT_DEX and perp_currency(dex) is None:
        raise VenueError(f"Unknown {field} {dex!r}: use '' (perps), 'spot' or a perp dex name")
    currency = currency_for(dex, token)
    if currency is None:
        raise VenueError(
            f"Token {token.name} cannot be held on perp dex {dex!r}: a perp dex only holds"
            " its collateral token"
        )
    return currency
