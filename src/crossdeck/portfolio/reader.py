"""Read a whole portfolio: every chain of /chains the owner can hold on, all at once, each by
the reader of its family, each priced as soon as it is read.

A family is what decides how a chain is read and which of the owner's addresses holds on it:
'evm' (JSON-RPC, Multicall3), 'venue' (chain 1337, the venue's /info). A new family (Solana's
'svm') adds a reader with the same `read(chain, owner)` beside these and its address in
`owners`; nothing else changes. A chain that cannot be read comes back as a `ChainReading` with
its error and URL, never as an exception, so the other chains still show.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Protocol

from crossdeck.api.client import ServiceClient
from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.models.chains import VENUE_CHAIN_ID, ChainInfo, ChainsResponse
from crossdeck.portfolio.model import ChainReading, Portfolio
from crossdeck.portfolio.prices import priced
from crossdeck.portfolio.rpc_chain import chain_label

# a chain's reading, and then its prices, each get this long (the readers' own clients retry
# within it); past it the chain is shown as not answering and the rest as usual
CHAIN_SECONDS = 15.0


class ChainBalanceReader(Protocol):
    family: str

    def where(self, chain: ChainInfo) -> str:
        """Where the chain is read (shown with an error): scheme://host[:port], or ''."""
        ...

    async def read(self, chain: ChainInfo, owner: str) -> ChainReading: ...


def chain_family(chain: ChainInfo) -> str:
    """'venue' for chain 1337, else the chain's vmType ('evm', 'svm', 'bvm', ...)."""
    if chain.id == VENUE_CHAIN_ID:
        return "venue"
    return (chain.vm_type or "evm").lower()


def chains_to_read(
    chains: ChainsResponse,
    owners: Mapping[str, str],
    readers: Mapping[str, ChainBalanceReader],
    only: Iterable[int] = (),
) -> list[ChainInfo]:
    """The chains to read: those of a family with a reader and an owner address, not disabled;
    `only` narrows them (an id /chains does not list, or none of those, is an `InputError`)."""
    wanted = set(only)
    listed = {c.id for c in chains.chains if c.id is not None}
    unknown = sorted(wanted - listed)
    if unknown:
        raise InputError(
            f"--chain {', '.join(map(str, unknown))}: not a chain the service lists",
            hint="`crossdeck chains` lists them",
        )
    holdable = [
        chain
        for chain in chains.chains
        if chain.id is not None
        and not chain.disabled
        and chain_family(chain) in readers
        and chain_family(chain) in owners
    ]
    picked = [chain for chain in holdable if not wanted or chain.id in wanted]
    if wanted and not picked:
        # name the chains it can be read on, not the families ('svm' means nothing to a trader)
        readable = ", ".join(f"{chain_label(c)} ({c.id})" for c in holdable)
        raise InputError(
            f"--chain {', '.join(map(str, sorted(wanted)))}: this address cannot hold on "
            f"{'that chain' if len(wanted) == 1 else 'those chains'}",
            hint=f"it is read on {readable or 'no chain the service lists'}",
        )
    return picked


async def read_portfolio(
    chains: ChainsResponse,
    owners: Mapping[str, str],
    *,
    service: ServiceClient,
    readers: Mapping[str, ChainBalanceReader],
    only: Iterable[int] = (),
    chain_seconds: float = CHAIN_SECONDS,
) -> Portfolio:
    """Every chain read and priced concurrently; the readings in /chains order. A chain (or its
    prices) taking longer than `chain_seconds` is shown as not answering, so one slow chain
    never holds the others back for long."""
    picked = chains_to_read(chains, owners, readers, only)

    async def one(chain: ChainInfo) -> ChainReading:
        family = chain_family(chain)
        assert chain.id is not None
        name = chain_label(chain)
        where = readers[family].where(chain)
        try:
            async with asyncio.timeout(chain_seconds):
                reading = await readers[family].read(chain, owners[family])
        except CrossdeckError as exc:  # a reader's own refusal: that chain alone
            return ChainReading(chain.id, name, where, "", error=exc.message)
        except TimeoutError:
            return ChainReading(
                chain.id, name, where, "", error=f"no answer within {chain_seconds:g} s"
            )
        if not reading.holdings:
            return reading
        try:
            async with asyncio.timeout(chain_seconds):
                holdings = await priced(service, reading.holdings)
        except TimeoutError:
            why = f"the service gave no price within {chain_seconds:g} s"
            holdings = [h.priced(None, why) for h in reading.holdings]
        return ChainReading(
            reading.chain_id,
            reading.name,
            reading.url,
            reading.via,
            tuple(holdings),
            reading.error,
            reading.notes,
        )

    readings = await asyncio.gather(*(one(chain) for chain in picked))
    # the addresses of the families read (`--chain 999` reads no Solana address: not named)
    read_families = {chain_family(chain) for chain in picked}
    owners = {family: owner for family, owner in owners.items() if family in read_families}
    owner = owners.get("evm") or next(iter(owners.values()), "")
    names = {c.id: chain_label(c) for c in chains.chains if c.id is not None}
    return Portfolio(owner, tuple(readings), names, dict(owners))
