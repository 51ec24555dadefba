"""The destination's activation fee as the client reads and says it: the venue's
`preTransferCheck` (answered by the world's venue) for a send to another address, in the fee
words every confirm shows; a check that cannot be read counts the fee as due, saying so."""

from __future__ import annotations

from eth_account import Account

from crossdeck.venue.client import VenueClient
from crossdeck.venue.fee import FIRST_SEND_FEE, SendFee, fee_parts, read_transfer_fee
from helpers.fault_proxy import Fault

from .conftest import WorldVenue

UNIT = 10**8


async def test_a_new_destination_is_read_as_owing_its_activation(venue: WorldVenue) -> None:
    venue.ledger.new_account_fee = UNIT  # the fixture's ledger takes none; the venue's is 1 USDC
    me, known, new = (Account.create().address for _ in range(3))
    venue.fund(me, perps="10")
    venue.fund(known, perps="1")
    async with VenueClient(venue.url) as client:
        check = await client.pre_transfer_check(new, me)
        assert (check.user_exists, str(check.fee)) == (False, "1.0")
        fee = await read_transfer_fee(client, me, new, 0)
        assert (fee.units, fee.new_account, fee.unread) == (0, UNIT, None)
        assert await read_transfer_fee(client, me, known, FIRST_SEND_FEE) == SendFee(UNIT)
    assert fee.words == "venue new-account fee 1 USDC (the destination has no venue account yet)"
    both = SendFee(UNIT, new_account=UNIT)
    assert both.total == 2 * UNIT
    assert both.words == (
        "venue first-send fee 1 USDC + new-account fee 1 USDC (the destination has no venue "
        "account yet)"
    )
    assert ("in total", "7 USDC (700000000) leave your account: 5 USDC sent + the 2 USDC "
            "(200000000) fee") in fee_parts(both, 5 * UNIT, "5 USDC")  # fmt: skip


async def test_a_check_that_cannot_be_read_counts_the_fee_as_due(venue: WorldVenue) -> None:
    venue.fail("/info", Fault(200, {"not": "a check"}))
    me, new = Account.create().address, Account.create().address
    async with VenueClient(venue.url) as client:
        fee = await read_transfer_fee(client, me, new, 0)
    assert fee.new_account == FIRST_SEND_FEE and fee.unread is not None
    assert fee.words is not None and "if due (the venue's preTransferCheck could not be read" in (
        fee.words
    )
