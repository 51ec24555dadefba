"""The portfolio's words (no world): symbols as the chains write them, a total that says what
it leaves out, a chain with no RPC URL."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import httpx
import pytest

from crossdeck.models.chains import ChainInfo
from crossdeck.models.venue import to_units
from crossdeck.models.venue_account import mode_note
from crossdeck.portfolio import ChainReading, Holding, Portfolio
from crossdeck.portfolio.evm_reader import EvmChainReader
from crossdeck.portfolio.rpc_chain import RpcChainReader
from crossdeck.portfolio.svm_reader import SvmChainReader
from crossdeck.portfolio.text import portfolio_lines
from crossdeck.portfolio.venue_reader import VenueChainReader
from crossdeck.tui.portfolio_rows import fit_notes, fold, portfolio_rows
from crossdeck.venue.client import VenueClient

USDE = "0x22e9417ea9e6367dee20b2b9b56adc9e"


def _portfolio(*, unreachable: bool = False) -> Portfolio:
    spot = Holding(1337, USDE, "USDe", 8, 10**12, place="spot", price_usd=Decimal("0.999"))
    chains = [ChainReading(1337, "Venue", "http://127.0.0.1:1", "venue", (spot,))]
    if unreachable:
        chains.append(
            ChainReading(999, "HyperEVM", "http://127.0.0.1:9", "", error="no answer within 15 s")
        )
    return Portfolio("0x" + "11" * 20, tuple(chains), {1337: "Venue", 999: "HyperEVM"})


def test_an_asset_keeps_its_symbol_as_written_everywhere() -> None:
    portfolio = _portfolio()
    (total,) = portfolio.assets()
    assert total.symbol == "USDe"
    assert portfolio.to_json()["assets"][0]["symbol"] == "USDe"
    lines = portfolio_lines(portfolio)
    assert lines[3].startswith("10,000 USDe ") and not any("USDE" in line for line in lines)
    rows = portfolio_rows(portfolio, {total.asset}, wide=False)
    assert rows[0].label == "▾ USDe" and rows[0].amount == "10,000 USDe"
    assert "USDE" not in rows[0].detail


def test_the_total_says_which_chains_it_leaves_out() -> None:
    lines = portfolio_lines(_portfolio(unreachable=True))
    at = next(i for i, line in enumerate(lines) if line.startswith("Total"))
    assert "$9,990.00" in lines[at]
    assert lines[at + 1] == "  not in the total: what HyperEVM (999) holds (not read)"
    assert not any("not in the total" in line for line in portfolio_lines(_portfolio()))


@pytest.mark.parametrize("reader", [EvmChainReader, SvmChainReader])
def test_a_chain_with_no_rpc_url_says_which_setting_to_set(reader: type[RpcChainReader]) -> None:
    chain = ChainInfo.model_validate({"id": 4242, "displayName": "Nowhere", "httpRpcUrl": ""})
    reading = asyncio.run(reader({}).read(chain, "0x" + "11" * 20))
    assert not reading.reachable and reading.name == "Nowhere" and reading.url == ""
    assert reading.error == "no RPC URL: set rpc.4242 in the config"
    # the config's URL wins over /chains', and only its scheme, host and port are shown
    assert reader({4242: "https://k:KEY@rpc.example:8545/KEY"}).where(chain) == (
        "https://rpc.example:8545"
    )


def test_values_are_exact_integers_of_micro_dollars_at_any_size() -> None:
    # a trillion of an 18-decimal token plus one wei, at a price with many digits
    whale = Holding(8453, "0x" + "ab" * 20, "MEME", 18, 10**30 + 1, price_usd=Decimal("0.1234567"))
    assert (
        whale.micro_usd == 123_456_700_000_000_000
    )  # $123,456,700,000.000000 (the wei rounds off)
    assert whale.amount_usd == Decimal("123456700000")
    # a hostile price far past Decimal's 28 digits: a figure, not a traceback
    absurd = Holding(8453, "0x" + "0" * 40, "ETH", 18, 10**20, price_usd=Decimal("1e30"))
    assert absurd.micro_usd == 10**32 * 10**6
    # half a micro-dollar rounds to even, once
    assert Holding(1, "0x" + "1" * 40, "T", 6, 1, price_usd=Decimal("0.5")).micro_usd == 0
    assert Holding(1, "0x" + "1" * 40, "T", 6, 3, price_usd=Decimal("0.5")).micro_usd == 2
    chains = (
        ChainReading(8453, "Base", "http://127.0.0.1:1", "multicall3", (whale, absurd)),
        ChainReading(1337, "Venue", "http://127.0.0.1:2", "venue", ()),
    )
    portfolio = Portfolio("0x" + "11" * 20, chains, {8453: "Base"})
    document = portfolio.to_json()
    assert document["totalUsd"] == str(10**32 + 123_456_700_000)
    assert any(line.startswith("Total ") and "$100,000,000,000,000,000,000,123,456,700,000.00"
               in line for line in portfolio_lines(portfolio))  # fmt: skip


def test_an_assets_total_adds_its_chains_decimals_exactly() -> None:
    usdc = [
        Holding(8453, "0x" + "22" * 20, "USDC", 6, 1_500_000, price_usd=Decimal(1)),
        Holding(1337, "0x" + "0" * 32, "USDC", 8, 10**40 + 1, place="perps"),  # no price
    ]
    portfolio = Portfolio("0x" + "11" * 20, (ChainReading(1, "X", "", "x", tuple(usdc)),), {})
    (total,) = portfolio.assets()
    assert total.units == Decimal("100000000000000000000000000000001.50000001")
    assert total.usd == Decimal("1.5") and total.unpriced == 1


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("0.005", "$0.01"),
        ("0.004999", "$0.00"),
        ("-1.235", "-$1.24"),
        ("1234567.891", "$1,234,567.89"),
    ],
)
def test_usd_to_the_cent_half_up(value: str, shown: str) -> None:
    from crossdeck.portfolio import usd_text

    assert usd_text(Decimal(value)) == shown and usd_text(None) == "no price"


def test_venue_values_become_integers_exactly_at_any_size() -> None:
    assert to_units(Decimal("12345678901234567890.123456789"), 8) == 1234567890123456789012345678
    assert to_units(Decimal("0.000000019"), 8) == 1  # the venue's extra digits round down


def test_a_negative_venue_balance_is_said_not_shown_as_held() -> None:
    """A venue answering a negative withdrawable (owed is not held): no row, no minus in the
    total, and a note on balances' text and on the screen."""
    perps = "0x" + "0" * 32

    def answer(request: httpx.Request) -> httpx.Response:
        state = {"withdrawable": "-12.5", "marginSummary": {"accountValue": "3.0"}}
        return httpx.Response(200, json={**state, "assetPositions": []})

    chain = ChainInfo.model_validate(
        {
            "id": 1337,
            "name": "venue",
            "displayName": "Venue",
            "currency": {"address": perps, "symbol": "USDC", "decimals": 8},
        }
    )

    async def read() -> ChainReading:
        transport = httpx.MockTransport(answer)
        async with VenueClient("http://127.0.0.1:1", transport=transport) as venue:
            return await VenueChainReader(venue).read(chain, "0x" + "11" * 20)

    reading = asyncio.run(read())
    assert reading.reachable and reading.holdings == ()
    # the mode first: this venue answers no mode (userAbstraction gets a clearinghouse state)
    assert reading.notes == (
        "account mode not read (the venue did not answer userAbstraction), read as standard: "
        "withdrawals leave from perps",
        "the venue answered a negative perps USDC balance (-12.5), left out",
    )
    portfolio = Portfolio("0x" + "11" * 20, (reading,), {1337: "Venue"})
    assert portfolio.total_usd == 0
    lines = portfolio_lines(portfolio)
    assert all(f"note: Venue (1337): {note}" in lines for note in reading.notes)
    rows = portfolio_rows(portfolio, set(), wide=False)
    assert [(row.kind, row.amount) for row in rows] == [("note", n) for n in reading.notes]


def test_a_note_is_folded_to_the_figures_width_and_said_whole_under_the_table() -> None:
    """A note never widens the amount column (the USD column would leave an 80-column screen):
    two lines of the widest figure's width, cut with '…', the whole sentence in its detail."""
    note = mode_note("unifiedAccount")
    holding = Holding(8453, "0x" + "ab" * 20, "USDC", 6, 465_000 * 10**6)
    reading = ChainReading(8453, "Base", "http://x", "rpc", (holding,), notes=(note,))
    portfolio = Portfolio("0x" + "11" * 20, (reading,), {8453: "Base"})
    rows = fit_notes(portfolio_rows(portfolio, {"USDC"}, wide=False))
    widest = max(len(r.amount) for r in rows if r.kind != "note")
    (row,) = [r for r in rows if r.kind == "note"]
    assert row.amount == "unified\naccount (un…" and widest == len("465,000 USDC")
    assert all(len(line) <= widest for line in row.amount.splitlines())
    assert row.detail == f"Base (8453): {note}"
    assert fold("perps and spot", 20) == "perps and spot"  # a short note stays whole
    assert fold("supercalifragilistic word", 6) == "superc\nalifr…"
