"""How the service addresses venue currencies on chain 1337 (spec 2.4).

- perps USDC: the fixed address '0x' + 32 zeros;
- spot currencies: the venue's 16-byte token id (spot USDC has a fixed one);
- currencies of a HIP-3 DEX: the spot address followed by the hex of the DEX name.

A sendAsset names a token as `<name>:<tokenId>` and a DEX as '' (perps), 'spot', or the HIP-3 DEX
name; `VenueCurrency` carries those so a caller can check a quote's sendAsset against its currency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from crossdeck.venue.errors import VenueDataError

PERPS_USDC_ADDRESS = "0x" + "0" * 32
SPOT_USDC_TOKEN_ID = "0x6d1e7cde53ba9467b783cb7c530ce054"
USDC = "USDC"
PERPS_DEX = ""
SPOT_DEX = "spot"

_SPOT_ADDRESS = re.compile(r"^0x[0-9a-f]{32}$")
_HIP3_ADDRESS = re.compile(r"^(0x[0-9a-f]{32})((?:[0-9a-f]{2})+)$")
_DEX_NAME = re.compile(r"^[\x21-\x7e]+$")  # printable ASCII without spaces

if TYPE_CHECKING:
    from crossdeck.models import ChainsResponse
    from crossdeck.models.venue import SpotMeta, SpotToken

VenueCurrencyKind = Literal["perps", "spot", "hip3"]


@dataclass(frozen=True)
class VenueCurrency:
    """A currency of the venue: its kind, name, token id, book and address."""

    kind: VenueCurrencyKind
    name: str
    token_id: str
    dex: str  # '' for perps, 'spot' for spot, the DEX name for HIP-3
    address: str

    @property
    def token_string(self) -> str:
        return token_string(self.name, self.token_id)


def token_string(name: str, token_id: str) -> str:
    """'USDC', '0x6d1e...' -> 'USDC:0x6d1e...' (the sendAsset `token` form)."""
    token_id = token_id.lower()
    if not name or ":" in name:
        raise VenueDataError(f"token name {name!r} cannot form a token string")
    if not _SPOT_ADDRESS.fullmatch(token_id):
        raise VenueDataError(f"token id {token_id!r} is not 0x followed by 32 hex digits")
    return f"{name}:{token_id}"


def parse_token_string(text: str) -> tuple[str, str]:
    """'USDC:0x6d1e...' -> ('USDC', '0x6d1e...')."""
    name, sep, token_id = text.partition(":")
    if not sep:
        raise VenueDataError(f"token {text!r} is not of the form NAME:0x<token id>")
    token_string(name, token_id)  # validates both parts
    return name, token_id.lower()


def hip3_address(spot_address: str, dex_name: str) -> str:
    """The address of a spot currency on a HIP-3 DEX: the spot address + hex(DEX name)."""
    spot_address = spot_address.lower()
    if not _SPOT_ADDRESS.fullmatch(spot_address):
        raise VenueDataError(f"spot address {spot_address!r} is not 0x followed by 32 hex digits")
    if not _DEX_NAME.fullmatch(dex_name) or dex_name == SPOT_DEX:
        raise VenueDataError(f"{dex_name!r} is not a HIP-3 DEX name")
    return spot_address + dex_name.encode("ascii").hex()


def parse_hip3(address: str) -> tuple[str, str] | None:
    """The (spot address, DEX name) of a HIP-3 currency address, or None for any other form."""
    match = _HIP3_ADDRESS.fullmatch(address.lower())
    if match is None:
        return None
    try:
        dex_name = bytes.fromhex(match.group(2)).decode("ascii")
    except UnicodeDecodeError:
        return None
    if not _DEX_NAME.fullmatch(dex_name) or dex_name == SPOT_DEX:
        return None
    return match.group(1), dex_name


def expected_token_id(currency_address: str) -> tuple[str, str] | None:
    """(token id, DEX) that a venue currency address stands for, as a sendAsset names them:
    perps USDC is spot USDC on the perps DEX '', a spot address is its own token id on 'spot',
    a HIP-3 address is its spot part on the DEX its suffix names; None for any other form."""
    address = currency_address.lower()
    if address == PERPS_USDC_ADDRESS:
        return SPOT_USDC_TOKEN_ID, PERPS_DEX
    if _SPOT_ADDRESS.fullmatch(address):
        return address, SPOT_DEX
    return parse_hip3(address)


def venue_place(address: str) -> tuple[VenueCurrencyKind, str] | None:
    """(kind, DEX) of a chain-1337 currency address from its form alone, without the venue's
    metadata: ('perps', ''), ('spot', 'spot') or ('hip3', the DEX name); None for an address
    of no venue form."""
    lowered = address.lower()
    if lowered == PERPS_USDC_ADDRESS:
        return "perps", PERPS_DEX
    if _SPOT_ADDRESS.fullmatch(lowered):
        return "spot", SPOT_DEX
    hip3 = parse_hip3(lowered)
    return ("hip3", hip3[1]) if hip3 is not None else None


def hip3_dexes(chains: ChainsResponse) -> list[str]:
    """The HIP-3 DEXes the service's /chains lists currencies of on the venue, sorted: the
    DEXes whose balances the app and `crossdeck venue balance` show."""
    venue = chains.venue
    places = (venue_place(c.address or "") for c in (venue.currencies if venue else []))
    return sorted({place[1] for place in places if place is not None and place[0] == "hip3"})


def place_label(kind: VenueCurrencyKind, dex: str) -> str:
    """A venue currency's place in words: 'perps', 'spot' or 'HIP-3 <DEX>'."""
    return f"HIP-3 {dex}" if kind == "hip3" else kind


def _usdc_token_id(spot_meta: SpotMeta | None) -> str:
    if spot_meta is not None:
        token = spot_meta.token_by_name(USDC)
        if token is not None:
            return token.token_id
    return SPOT_USDC_TOKEN_ID


def _spot_token(spot_address: str, spot_meta: SpotMeta | None) -> tuple[str, str]:
    """(name, token id) of a spot address; USDC is known without the venue's metadata."""
    if spot_address in (PERPS_USDC_ADDRESS, SPOT_USDC_TOKEN_ID):
        return USDC, _usdc_token_id(spot_meta)
    token: SpotToken | None = spot_meta.token_by_id(spot_address) if spot_meta else None
    if token is None:
        where = "the venue's spotMeta" if spot_meta else "(no spotMeta given)"
        raise VenueDataError(
            f"venue currency {spot_address} is not a known spot token {where}",
            hint="compare with the currencies that /chains lists for chain 1337",
        )
    return token.name, token.token_id


def describe_venue_currency(address: str, spot_meta: SpotMeta | None = None) -> VenueCurrency:
    """What a chain-1337 currency address stands for: kind, token name/id and DEX."""
    lowered = address.lower()
    place = venue_place(lowered)
    if place is not None:
        kind, dex = place
        if kind == "perps":
            return VenueCurrency(kind, USDC, _usdc_token_id(spot_meta), dex, lowered)
        # a HIP-3 address is its spot token's address (16 bytes, as long as perps USDC's)
        # with the DEX name's hex after it
        name, token_id = _spot_token(lowered[: len(PERPS_USDC_ADDRESS)], spot_meta)
        return VenueCurrency(kind, name, token_id, dex, lowered)
    raise VenueDataError(
        f"{address!r} is not a venue currency address",
        hint="perps USDC is 0x + 32 zeros, spot tokens are 0x + 32 hex digits, HIP-3 "
        "currencies append the hex of the DEX name",
    )


def spot_token_for(spot_meta: SpotMeta, name_or_id: str) -> SpotToken:
    """A spot token by token id (0x + 32 hex) or by name, without regard to case: the venue
    names tokens as it likes ('USDE' for what the service and its users call USDe)."""
    token = (
        spot_meta.token_by_id(name_or_id)
        if _SPOT_ADDRESS.fullmatch(name_or_id.lower())
        else spot_meta.token_by_name(name_or_id)
    )
    if token is None:
        raise VenueDataError(f"no spot token {name_or_id!r} in the venue's spotMeta")
    return token
