"""What `crossdeck chains` prints: each chain and its currencies, the venue's labelled.

The venue (chain 1337) lists USDC more than once: perps USDC, spot USDC and USDC on each HIP-3
DEX, told apart only by their addresses' forms (`crossdeck.venue.currencies`). The text names
each one's place ('perps', 'spot', 'HIP-3 xyz') and how a currency option names it
('as spot:USDC'); `--json` keeps the service's answer whole and adds `venueKind` ('perps', 'spot',
'hip3'), `venueDex` ('' for perps, 'spot', or the DEX name, as a sendAsset names it) and
`venueLabel` to each venue currency.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crossdeck.base.errors import InputError
from crossdeck.cli.currency_symbols import place_on_venue
from crossdeck.cli.option_types import shown

if TYPE_CHECKING:
    from crossdeck.models import ChainsResponse

_CURRENCY_LISTS = ("currency", "erc20Currencies", "solverCurrencies", "featuredTokens")


def only_chain(chains: ChainsResponse, wanted: str | None) -> ChainsResponse:
    """`chains` with only the chain `wanted` names (its id, or its name or display name, in any
    case); all of them when `wanted` is None."""
    if wanted is None:
        return chains
    key = wanted.strip().casefold()
    found = [
        c
        for c in chains.chains
        if str(c.id) == key or key in {(c.name or "").casefold(), (c.display_name or "").casefold()}
    ]
    if not found:
        known = ", ".join(f"{c.id} ({c.name})" for c in chains.chains) or "none"
        raise InputError(f"the service lists no chain {shown(wanted)}", hint=f"its chains: {known}")
    return chains.model_copy(update={"chains": found})


def chains_text(chains: ChainsResponse) -> list[str]:
    lines: list[str] = []
    for chain in chains.chains:
        state = " (disabled)" if chain.disabled else ""
        lines.append(f"{chain.id}  {chain.display_name or chain.name or '-'}{state}")
        for currency in chain.currencies:
            decimals = currency.decimals if currency.decimals is not None else "?"
            line = f"    {currency.symbol or '?':<8} {currency.address or '-'}  {decimals} decimals"
            place = place_on_venue(chain.id, currency.address)
            if place is not None:
                # venue addresses differ in length: align the labels
                address = f"{currency.address:<42}"
                line = f"    {currency.symbol or '?':<8} {address}  {decimals} decimals"
                line += f"  {place.label:<12} as {place.prefix}:{currency.symbol}"
            lines.append(line)
    return lines


def chains_wire(chains: ChainsResponse) -> dict[str, Any]:
    """The service's answer, each venue currency with its place added."""
    wire = chains.to_wire()
    for chain in wire.get("chains") or []:
        if not isinstance(chain, dict):
            continue
        for name in _CURRENCY_LISTS:
            listed = chain.get(name)
            for currency in listed if isinstance(listed, list) else [listed]:
                if not isinstance(currency, dict):
                    continue
                place = place_on_venue(chain.get("id"), currency.get("address"))
                if place is not None:
                    currency.update(
                        venueKind=place.kind, venueDex=place.dex, venueLabel=place.label
                    )
    return wire
