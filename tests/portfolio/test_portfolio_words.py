"""The portfolio's words (no world): symbols as the chains write them, a total that says what
it leaves out, a chain with no RPC URL."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from crossdeck.models.chains import ChainInfo
from crossdeck.portfolio import ChainReading, Holding, Portfolio
from crossdeck.portfolio.evm_reader import EvmChainReader
from crossdeck.portfolio.rpc_chain import RpcChainReader
from crossdeck.portfolio.svm_reader import SvmChainReader
from crossdeck.portfolio.text import portfolio_lines
from crossdeck.tui.portfolio_rows import portfolio_rows

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
    assert lines[3].startswith("10000 USDe ") and not any("USDE" in line for line in lines)
    rows = portfolio_rows(portfolio, {total.asset}, wide=False)
    assert rows[0].label == "▾ USDe" and rows[0].amount == "10000 USDe"
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
