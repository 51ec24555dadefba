"""Recent recipients: which address a run sent to, and its chain family, for the Quote options'
shortcut (kept by the app in its state file, `tui/ui_state.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crossdeck.models import ChainsResponse, QuoteRequest


def family_of_chain(chains: ChainsResponse | None, chain_id: int | None) -> str | None:
    """'evm', 'svm' or 'bvm' for `chain_id` (its /chains vmType; the venue takes EVM
    addresses); None for a chain whose addresses crossdeck cannot read."""
    from crossdeck.models.addresses import UnknownFamily, family_of
    from crossdeck.models.constants import VENUE_CHAIN_ID

    if chain_id is None:
        return None
    if chain_id == VENUE_CHAIN_ID:
        return "evm"
    chain = chains.by_id(chain_id) if chains is not None else None
    try:
        return str(family_of(chain_id, chain.vm_type if chain else None))
    except UnknownFamily:
        return None


def sent_to(request: QuoteRequest | None, chains: ChainsResponse | None) -> tuple[str, str] | None:
    """(family, address) of the recipient the request named, once a run of it has sent
    something; None when it named none (the wallet's own address is not a shortcut)."""
    recipient = (request.recipient or "").strip() if request is not None else ""
    if request is None or not recipient:
        return None
    family = family_of_chain(chains, request.destination_chain_id)
    return (family, recipient) if family else None
