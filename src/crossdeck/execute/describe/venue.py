"""Venue actions in words: a transfer between the venue's perps, spot and HIP-3 places (the
typed data it is signed as, then the /exchange submission), and a quote's venue items."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crossdeck.execute.describe.currencies import Currencies
from crossdeck.execute.describe.lines import Line
from crossdeck.execute.describe.typed_data import typed_data_lines
from crossdeck.models import StepItem, VenueDepositData
from crossdeck.models.text import short

if TYPE_CHECKING:
    from crossdeck.execute.describe.family import ItemDescriber
    from crossdeck.venue.fee import SendFee


def _dex_words(dex: str | None) -> str:
    if not dex:
        return "perps"
    return "spot" if dex == "spot" else f"HIP-3 DEX {dex!r}"


def venue_transfer_words(data: VenueDepositData, *, full: bool = True) -> str:
    """'send 10.000000 USDC:0x6d1e… from perps to spot of 0x…'."""
    action = data.action
    if action is None:
        return "a venue action with nothing in it (it will be refused)"
    destination = action.destination if full else short(action.destination)
    return (
        f"send {action.amount} {action.token} from {_dex_words(action.source_dex)} to "
        f"{_dex_words(action.destination_dex)} of {destination}"
    )


def venue_title(data: VenueDepositData) -> str:
    kind = data.eip712_primary_type or (data.action.type if data.action else None) or "action"
    return f"Sign the venue transfer ({kind})"


def _fee_lines(data: VenueDepositData, fee: SendFee | None) -> list[Line]:
    """The venue's own fee and what leaves the account in total (`crossdeck.venue.fee` words
    them, as every other place that shows the fee)."""
    from crossdeck.models import parse_units
    from crossdeck.models.units import UnitsError
    from crossdeck.models.venue import USDC_DECIMALS
    from crossdeck.venue.fee import fee_parts, usdc_text

    action = data.action
    if action is None or action.amount is None:
        return []
    name = (action.token or "?").partition(":")[0]
    try:
        usdc = parse_units(action.amount, USDC_DECIMALS) if name == "USDC" else None
    except UnitsError:
        usdc = None
    sent = f"{action.amount} {name}" if usdc is None else usdc_text(usdc)
    return [
        Line(label, words, kind="warning" if label == "in total" and fee else "amount")
        for label, words in fee_parts(fee, usdc, sent)
    ]


def venue_lines(
    typed: Mapping[str, Any], data: VenueDepositData, fee: SendFee | None
) -> list[Line]:
    """The venue transfer in words, the venue's fee and what leaves the account in total
    (`fee` None: it stays in the trader's own books), then its typed data and where it goes."""
    amount = data.action.amount if data.action else None
    return [
        Line("transfer", venue_transfer_words(data), raw=amount, kind="amount"),
        *_fee_lines(data, fee),
        *typed_data_lines(typed),
        Line("then", f"submit it to the venue's /exchange with nonce {data.nonce}"),
    ]


def venue_item_lines(item: StepItem, currencies: Currencies, *, full: bool) -> list[Line]:
    data = item.as_venue_deposit()
    domain = data.sign_domain_name or "?"
    words = venue_transfer_words(data, full=full)
    kind_name = data.eip712_primary_type
    return [
        Line("venue", f"sign the venue transfer {kind_name} ({domain}): {words}"),
        Line("then", f"submit it to the venue's /exchange with nonce {data.nonce}"),
    ]


ITEMS: dict[str, ItemDescriber] = {"venue_deposit": venue_item_lines}
