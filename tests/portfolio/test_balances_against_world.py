"""`crossdeck balances` against the demo world: every amount is the chain's (or the venue's)
own answer, priced by the service; a bridge shows on the next reading; a chain that does not
answer, or a price the service does not give, is said so while the rest renders."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from helpers.funding import PERPS_USDC, fund

from .portfolio_support import (
    VENUE_DECIMALS,
    Wallet,
    chain_balance,
    chain_usdc,
    rows,
)

NATIVE = "0x" + "0" * 40
ETH = 10**18
SOLANA = 792703809


def _funded(world: Any, home: Path) -> Wallet:
    wallet = Wallet(world, home)
    asyncio.run(
        fund(
            world,
            wallet.address,
            native={8453: 2 * ETH, 999: 3 * ETH},
            usdc={8453: 1_500_000, 999: 2_250_000},
            venue_perps=12 * 10**VENUE_DECIMALS + 34,
        )
    )
    return wallet


@pytest.fixture
def funded(world: Any, tmp_path: Path) -> Wallet:
    return _funded(world, tmp_path)


def test_every_row_is_the_chains_own_answer(any_world: Any, tmp_path: Path) -> None:
    """On both chain backends (py-evm, anvil)."""
    funded = _funded(any_world, tmp_path)
    world, owner = funded.world, funded.address
    document = funded.balances()
    held = rows(document)
    for chain_id in (8453, 999):
        usdc = world.chains[chain_id].usdc.lower()
        assert held[(chain_id, NATIVE)]["amount"] == str(chain_balance(world, chain_id, owner))
        assert held[(chain_id, usdc)]["amount"] == str(chain_usdc(world, chain_id, owner))
    assert held[(8453, NATIVE)]["amount"] == str(2 * ETH)
    assert held[(999, world.chains[999].usdc.lower())]["amount"] == "2250000"
    assert held[(999, world.chains[999].usdc.lower())]["amountFormatted"] == "2.25"
    perps = held[(1337, PERPS_USDC)]
    assert perps["venue"] == "perps" and perps["amount"] == str(12 * 10**VENUE_DECIMALS + 34)
    assert perps["accountValueUsd"] is not None
    # each value is the service's price times the units; the total adds the rows
    for holding in document["holdings"]:
        units = Decimal(holding["amount"]) / 10 ** holding["decimals"]
        assert Decimal(holding["amountUsd"]) == (units * Decimal(holding["priceUsd"])).quantize(
            Decimal("0.000001")
        )
    total = Decimal(document["totalUsd"])
    assert total > 0
    assert total == sum(Decimal(h["amountUsd"]) for h in document["holdings"])
    assert {c["chainId"]: c["readVia"] for c in document["chains"]} == {
        8453: "multicall3",
        999: "multicall3",
        1337: "venue",
    }
    usdc_total = next(a for a in document["assets"] if a["symbol"] == "USDC")
    assert "amount" not in usdc_total  # `amount` is only ever an integer in the smallest unit
    assert Decimal(usdc_total["amountFormatted"]) == Decimal("1.5") + Decimal("2.25") + Decimal(
        "12.00000034"
    )
    assert document["unreachable"] == [] and document["unpriced"] == []


def test_only_the_chains_asked_for(funded: Wallet) -> None:
    document = funded.balances("--chain", "999", "--chain", "1337")
    assert {h["chainId"] for h in document["holdings"]} == {999, 1337}
    refused = funded.invoke("balances", "--chain", "12345")
    assert refused.exit_code == 3
    assert "12345: not a chain the service lists" in refused.output
    bitcoin = funded.invoke("balances", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")
    assert bitcoin.exit_code == 3
    assert "read for EVM and Solana addresses" in bitcoin.output
    garbage = funded.invoke("balances", "0x1234")
    assert garbage.exit_code != 0 and "Traceback" not in garbage.output


def test_any_address_read_only_and_in_words(funded: Wallet, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    other = Wallet(funded.world, tmp_path / "other")
    result = other.invoke("balances", funded.address)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"Portfolio of {funded.address}" in out
    assert "2 ETH (2000000000000000000)" in out
    assert "Venue (1337) perps" in out and "12 USDC (1200000034)" in out
    assert "Total" in out and "$" in out


def test_after_a_bridge_the_reading_follows_the_chain(funded: Wallet) -> None:
    world, owner = funded.world, funded.address
    before = rows(funded.balances())
    bridged = funded.invoke(
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 2), "--yes", "--json",
    )  # fmt: skip
    assert bridged.exit_code == 0, bridged.output
    after = rows(funded.balances())
    for chain_id in (8453, 999):
        assert after[(chain_id, NATIVE)]["amount"] == str(chain_balance(world, chain_id, owner))
    sent = int(before[(8453, NATIVE)]["amount"]) - int(after[(8453, NATIVE)]["amount"])
    received = int(after[(999, NATIVE)]["amount"]) - int(before[(999, NATIVE)]["amount"])
    assert sent >= ETH // 2  # the amount and the gas
    assert received > 0


def test_an_unreachable_chain_is_named_with_its_url_and_the_rest_renders(
    funded: Wallet,
) -> None:
    funded.write_world(**{"999": "http://127.0.0.1:9"})
    result = funded.invoke("balances")
    assert result.exit_code == 0, result.output
    assert "UNREACHABLE HyperEVM (999) at http://127.0.0.1:9" in result.stdout
    assert "chain 999 (HyperEVM) unreachable at http://127.0.0.1:9" in result.stderr
    assert "Base (8453)" in result.stdout and "Venue (1337) perps" in result.stdout
    document = funded.balances()
    assert {h["chainId"] for h in document["holdings"]} == {8453, 1337}
    (gone,) = document["unreachable"]
    assert gone["chainId"] == 999 and gone["url"] == "http://127.0.0.1:9" and gone["error"]
    assert Decimal(document["totalUsd"]) > 0


def test_a_key_in_an_rpc_url_never_reaches_the_output(funded: Wallet) -> None:
    # user info, path and query each carry a key at some RPC provider
    funded.write_world(**{"999": "http://alice:PASSWORD@127.0.0.1:9/v2/PATHKEY?apikey=QUERYKEY"})
    for args in [("balances",), ("balances", "--json")]:
        result = funded.invoke(*args)
        assert result.exit_code == 0, result.output
        said = result.stdout + result.stderr
        assert "http://127.0.0.1:9" in said
        for secret in ("alice", "PASSWORD", "PATHKEY", "QUERYKEY"):
            assert secret not in said


def test_a_chain_serving_another_chain_id_is_refused(funded: Wallet) -> None:
    funded.write_world(**{"999": funded.world.rpc[8453]})
    document = funded.balances()
    (wrong,) = document["unreachable"]
    assert wrong["chainId"] == 999 and "serves chain 8453" in wrong["error"]


def test_nothing_readable_at_all_is_a_network_error(funded: Wallet) -> None:
    funded.write_world(**{"8453": "http://127.0.0.1:9"})
    result = funded.invoke("balances", "--chain", "8453")
    assert result.exit_code == 5
    assert "no chain could be read" in result.output


def test_a_price_the_service_does_not_give_is_said_not_guessed(world: Any, tmp_path: Path) -> None:
    wallet = Wallet(world, tmp_path)
    asyncio.run(fund(world, wallet.address, usdc={8453: 7_000_000}))
    # the one price asked (USDC on 8453) answers garbage: no value, and no $1 stand-in
    world.faults.inject("malformed", 1, path="/currencies/token/price")
    document = wallet.balances("--chain", "8453", CROSSDECK_SERVICE__MAX_RETRIES="0")
    (usdc,) = document["holdings"]
    assert usdc["symbol"] == "USDC" and usdc["amount"] == "7000000"
    assert usdc["amountUsd"] is None and usdc["priceUsd"] is None
    assert "no price" in usdc["priceProblem"]
    assert document["unpriced"][0]["symbol"] == "USDC"
    assert document["totalUsd"] == "0"
    world.faults.inject("503", 1, path="/currencies/token/price")
    text = wallet.invoke("balances", "--chain", "8453", CROSSDECK_SERVICE__MAX_RETRIES="0")
    assert "7 USDC (7000000)" in text.stdout and "no price" in text.stdout
    assert "not in the total: 1 holding(s) without a price" in text.stdout
    assert "$7.00" in wallet.invoke("balances", "--chain", "8453").stdout  # priced again


def _solana_rpc(world: Any, method: str, *params: Any) -> Any:
    from .portfolio_support import rpc

    return rpc(world.rpc[SOLANA], method, *params)


def test_solana_rows_are_the_chains_own_answer(world: Any, tmp_path: Path) -> None:
    """The demo wallet's world file names its Solana address too: its SOL and SPL USDC are
    Solana rows, equal to the chain's getBalance and token account."""
    wallet = Wallet(world, tmp_path)
    info = json.loads(wallet.world_file.read_text())
    info["wallet"] = dict(world.info["wallet"])  # the demo wallet, EVM and Solana
    wallet.world_file.write_text(json.dumps(info))
    owner = world.info["wallet"]["solana_address"]
    document = wallet.balances()
    assert document["addresses"]["svm"] == owner
    held = {h["symbol"]: h for h in document["holdings"] if h["chainId"] == SOLANA}
    lamports = _solana_rpc(world, "getBalance", owner)["value"]
    assert held["SOL"]["amount"] == str(lamports) and held["SOL"]["decimals"] == 9
    accounts = _solana_rpc(
        world, "getTokenAccountsByOwner", owner, {"mint": held["USDC"]["currency"]},
        {"encoding": "jsonParsed"},
    )["value"]  # fmt: skip
    units = sum(
        int(a["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"]) for a in accounts
    )
    assert held["USDC"]["amount"] == str(units) and units > 0
    assert held["USDC"]["amountUsd"] is not None
    # a Solana address alone reads the SVM chains alone (Solana, and the world's Eclipse)
    alone = wallet.balances(owner)
    assert {h["chainId"] for h in alone["holdings"]} == {SOLANA, 9286185}
    assert alone["addresses"] == {"svm": owner}
    # and a chain it cannot hold on is refused naming where it can be read, not a family
    refused = wallet.invoke("balances", owner, "--chain", "8453")
    assert refused.exit_code == 3
    assert "--chain 8453: this address cannot hold on that chain" in refused.output
    assert f"it is read on Solana ({SOLANA})" in refused.output and "svm" not in refused.output
    # only the addresses of the chains read are named: --chain 8453 reads no Solana address
    evm_only = wallet.balances("--chain", "8453")
    assert evm_only["addresses"] == {"evm": world.info["wallet"]["address"]}
    words = wallet.invoke("balances", "--chain", "8453").stdout
    assert words.splitlines()[0] == f"Portfolio of {world.info['wallet']['address']}"


def test_from_an_address_reads_that_address_alone(world: Any, tmp_path: Path) -> None:
    """`--from ADDR balances` (issue 35 point 1): the read-only address's numbers only, never
    the profile's own Solana wallet added to its totals."""
    wallet = Wallet(world, tmp_path)
    info = json.loads(wallet.world_file.read_text())
    info["wallet"] = dict(world.info["wallet"])  # a profile with a Solana wallet too
    wallet.world_file.write_text(json.dumps(info))
    (tmp_path / "watched").mkdir()
    watched = Wallet(world, tmp_path / "watched")
    asyncio.run(fund(world, watched.address, native={8453: ETH}))
    result = wallet.invoke("--from", watched.address, "balances", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document["addresses"].values()) == {watched.address}
    assert "svm" not in document["addresses"]
    assert {(h["chainId"], h["symbol"]) for h in document["holdings"]} == {(8453, "ETH")}
    held = rows(document)[(8453, NATIVE)]["amount"]
    assert held == str(chain_balance(world, 8453, watched.address))
