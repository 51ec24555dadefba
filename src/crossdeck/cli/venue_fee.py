"""The venue's first-send fee on a quote from the venue (origin chain 1337): the service's quote
does not price it, yet the venue takes it (about 1 USDC) from the account's first send that
leaves it, so `quote` and `bridge` name it in their pay / get / fees summary while it is due
(read and worded by `crossdeck.venue.fee`, as the app's quote and every confirm are)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crossdeck.config import Settings
    from crossdeck.models import QuoteRequest


async def venue_fee_words(settings: Settings, request: QuoteRequest) -> list[str]:
    """['venue first-send fee 1 USDC'] when the quote leaves the venue from an account that
    has not sent yet; [] when it does not leave the venue or the fee is paid."""
    from crossdeck import compose
    from crossdeck.venue.account import VENUE_CHAIN
    from crossdeck.venue.fee import read_send_fee

    user = request.user
    if request.origin_chain_id != VENUE_CHAIN:
        return []
    async with compose.venue_client(settings) as client:
        fee = await read_send_fee(client, user)
    return [fee.words] if fee.words else []
