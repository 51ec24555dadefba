"""The words the screens use for amounts, transactions, venue addresses and ages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tui_support import load_fixture

from crossdeck.models import ChainsResponse, Quote, TransactionData
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


def test_usd_and_amounts_keep_the_services_decimals() -> None:
    assert describe.usd("3000.000000") == "$3,000.00"
    assert describe.usd("-7.550001") == "-$7.55"
    assert describe.usd(None) == "-"


def test_transaction_words_decode_approve_and_name_the_depository() -> None:
    spender = DEPOSITORY.lower()[2:].rjust(64, "0")
    approve = TransactionData(
        to="0x8464135c8F25Da09e49BC8782676a84730C318bC",
        chain_id=8453,
        value=0,
        data="0x095ea7b3" + spender + hex(25_000_000)[2:].rjust(64, "0"),
    )
    words = describe.tx_words(approve, CHAINS)
    assert "on Base (8453)" in words and "approve spender 0x71c9…292e for 25000000 units" in words
    deposit = TransactionData(
        to=DEPOSITORY, chain_id=8453, value=10**16, data="0x49290c1c" + "0" * 128
    )
    words = describe.tx_words(deposit, CHAINS)
    assert "(the depository)" in words and "value 0.01 ETH" in words and "(68 bytes)" in words


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


def test_recorded_withdrawal_steps_in_words() -> None:
    quote = Quote.from_wire(load_fixture("run_withdrawal.json")["quote"])
    lines = describe.step_lines(quote.steps, None)
    assert lines[0].startswith("1. authorize (signature)")
    assert "sign eip712 NonceMapping in domain ServiceNonceMapping (chain 1)" in lines[1]
    assert "then POST /authorize" in lines[1]
    assert lines[2].startswith("2. deposit (transaction)")
    # the amount as the typed data carries it (the public form, six places)
    assert "send 10.000000 USDC:0x6d1e7cde53ba9467b783cb7c530ce054" in lines[3]
    assert "(VenueSignTransaction)" in lines[3]
    fees = dict((label, usd) for label, _, usd in describe.fee_rows(quote))
    assert set(fees) >= {"Relayer total", "App fee"}
