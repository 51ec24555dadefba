"""The words the screens use for amounts, transactions, venue addresses and ages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tui_support import load_fixture

from crossdeck.models import ChainsResponse, Quote
from crossdeck.tui import describe

DEPOSITORY = "0x71C95911E9a5D330f4D621842EC243EE1343292e"
CHAINS = ChainsResponse.model_validate(
    {
        "chains": [
            {
                "id": 8453,
                "displayName": "Base",
                "currency": {"symbol": "ETH", "address": "0x" + "0" * 40, "decimals": 18},
                "protocol": {"v2": {"chainId": "8453", "depository": DEPOSITORY}},
            }
        ]
    }
)


def test_venue_address_forms() -> None:
    assert describe.venue_kind("0x" + "0" * 32) == "perps"
    assert describe.venue_kind("0x6d1e7cde53ba9467b783cb7c530ce054") == "spot"
    assert (
        describe.venue_kind("0x6d1e7cde53ba9467b783cb7c530ce054" + b"xyz".hex()) == "HIP-3 dex xyz"
    )


def test_age_text() -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert describe.age_text(now - timedelta(seconds=7), now) == "7s ago"
    assert describe.age_text(now - timedelta(seconds=125), now) == "2m 05s ago"
    assert describe.age_text(now + timedelta(seconds=3), now) == "0s ago"


def test_recorded_withdrawal_items_in_short_words() -> None:
    """The Execute screen's rows: the describer's words on one line, addresses shortened."""
    quote = Quote.from_wire(load_fixture("run_withdrawal.json")["quote"])
    authorize, deposit = (step.items[0] for step in quote.steps)
    words = describe.item_words(authorize, None, quote)
    assert "EIP-712 NonceMapping in domain ServiceNonceMapping (chain 1)" in words
    assert 'then POST /authorize {"' in words  # the body as JSON
    # the amount as the typed data carries it (the public form, six places)
    words = describe.item_words(deposit, None, quote)
    assert "send 10.000000 USDC:0x6d1e7cde53ba9467b783cb7c530ce054" in words
    assert "(VenueSignTransaction)" in words and "0x7099…79C8" in words
    summary = describe.summarize_quote(quote, CHAINS)
    assert summary.pay.startswith("10 USDC (")
