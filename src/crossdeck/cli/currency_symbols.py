"""Currency symbols wherever a currency address is accepted: `--origin-currency USDC`.

A currency option's value that is not an address ('0x' and hex digits) is a symbol, resolved
through the service's /chains for the option's chain, without regard to case, against every
currency the chain lists (its native currency too: ETH, HYPE). One match is used. Several are
refused with the candidates, each with its address and label: the venue (chain 1337) lists USDC
on perps, on spot and on each HIP-3 DEX; there `perps:USDC`, `spot:USDC` or `<dex>:USDC` names
one by its place (the venue writes a HIP-3 DEX's assets as `<dex>:<name>` too). None is refused
with a pointer to `crossdeck chains <chain>`.

The venue's labels come from the address form alone (`crossdeck.venue.currencies`), so
`crossdeck chains` and these messages need no venue metadata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crossdeck.base.errors import InputError
from crossdeck.cli.option_types import shown

if TYPE_CHECKING:
    from crossdeck.models import ChainCurrency, ChainInfo, ChainsResponse

_ADDRESS_FORM = re.compile(r"0x[0-9a-fA-F]*")


def is_symbol(text: str) -> bool:
    """Whether a currency option's value names the currency by symbol: anything that is not
    '0x' and hex digits (so '0xBTC' is a symbol, and '0x12' a short address the request
    refuses), a Solana mint or a Bitcoin address, or a chain's native currency."""
    from crossdeck.models.addresses import NATIVE_CURRENCY, Family, address_problem

    if _ADDRESS_FORM.fullmatch(text) or text in NATIVE_CURRENCY.values():
        return False
    return all(address_problem(text, family) is not None for family in Family)


@dataclass(frozen=True)
class VenuePlace:
    """Where a venue currency lives: kind 'perps', 'spot' or 'hip3', and its DEX as a
    sendAsset names it ('' for perps, 'spot', or the HIP-3 DEX's name)."""

    kind: str
    dex: str

    @property
    def label(self) -> str:
        from crossdeck.venue.currencies import place_label

        return place_label("hip3", self.dex) if self.kind == "hip3" else self.kind

    @property
    def prefix(self) -> str:
        """What a currency option writes before ':' to name this place ('spot:USDC')."""
        return self.dex if self.kind == "hip3" else self.kind


def place_on_venue(chain_id: int | None, address: str | None) -> VenuePlace | None:
    """The place of a venue currency, told by its address's form alone; None off the venue
    (chain 1337) or for an address of no venue form."""
    from crossdeck.models import VENUE_CHAIN_ID
    from crossdeck.venue.currencies import venue_place

    if chain_id != VENUE_CHAIN_ID or not address:
        return None
    place = venue_place(address)
    return VenuePlace(*place) if place is not None else None


def _candidate(chain_id: int, currency: ChainCurrency) -> str:
    place = place_on_venue(chain_id, currency.address)
    label = place.label if place is not None else currency.name or "-"
    return f"{currency.address} ({currency.symbol}, {label})"


def _chain_words(chain: ChainInfo) -> str:
    name = chain.display_name or chain.name
    return f"chain {chain.id} ({name})" if name else f"chain {chain.id}"


def resolve_symbol(chains: ChainsResponse, chain_id: int, text: str, option: str) -> ChainCurrency:
    """The one currency `text` names on `chain_id` (a symbol, or on the venue `place:SYMBOL`);
    `InputError` naming `option` when it names none or several."""
    chain = chains.by_id(chain_id)
    if chain is None:
        raise InputError(
            f"{option} {shown(text)}: the service lists no chain {chain_id}",
            hint="`crossdeck chains` lists the chains and their currencies",
        )
    place, sep, symbol = text.rpartition(":")
    wanted = symbol.casefold()
    matches = [c for c in chain.currencies if c.address and (c.symbol or "").casefold() == wanted]
    if sep:
        matches = [
            c
            for c in matches
            if (found := place_on_venue(chain_id, c.address)) is not None
            and found.prefix.casefold() == place.casefold()
        ]
    if len(matches) == 1:
        return matches[0]
    pointer = f"`crossdeck chains {chain_id}` lists its currencies; or give the address"
    if not matches:
        raise InputError(
            f"{option}: {_chain_words(chain)} has no currency {shown(text)}", hint=pointer
        )
    candidates = "; ".join(_candidate(chain_id, c) for c in matches)
    places = [place_on_venue(chain_id, c.address) for c in matches]
    by_place = [f"{p.prefix}:{c.symbol}" for p, c in zip(places, matches, strict=True) if p]
    # a place names one currency only if no two candidates share it
    if len(set(by_place)) == len(matches):
        hint = f"give the address of the one you mean, or its place: {', '.join(by_place)}"
    else:
        hint = "give the address of the one you mean"
    raise InputError(
        f"{option}: {shown(text)} names {len(matches)} currencies on {_chain_words(chain)}: "
        f"{candidates}",
        hint=hint,
    )
