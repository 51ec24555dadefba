"""A chain's family from /chains before the request is built: the CLI reads the wallet of the
origin's family (the SVM key for any chain /chains lists with vmType 'svm', not Solana's id
alone) and the default recipient of the destination's, so it asks /chains first.

Asked only for a chain whose family is not public knowledge (Solana, Bitcoin, the venue and
its HyperEVM, Base: the contract's chains), so a route between those asks /chains no more
often than before; a failure is left to the quote that follows (which asks again and says what
went wrong), and the families then fall back to what is publicly known of the ids.
"""

from __future__ import annotations

from crossdeck.base.errors import CrossdeckError
from crossdeck.config import Settings
from crossdeck.models import VENUE_CHAIN_ID
from crossdeck.models.addresses import WELL_KNOWN_FAMILIES

# EVM chains of the contract whose family is a public fact: Base and the venue's HyperEVM
CONTRACT_EVM_CHAINS = frozenset({8453, 999})


async def learn_chain_families(settings: Settings, *chain_ids: int) -> None:
    """Ask /chains (its vmTypes are then known to `addresses.family_of`) unless every chain is
    one whose family is public knowledge."""
    known = {*WELL_KNOWN_FAMILIES, VENUE_CHAIN_ID, *CONTRACT_EVM_CHAINS}
    if all(c in known for c in chain_ids):
        return
    from crossdeck.cli.support import service_client

    service = service_client(settings)
    try:
        await service.chains()
    except CrossdeckError:
        pass  # the quote asks again and reports it
    finally:
        await service.aclose()
