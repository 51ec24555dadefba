"""The issue's flows on the CLI against the demo world (its Solana is LiteSVM behind a Solana
JSON-RPC; its Bitcoin a ledger the solver keeps): `bridge` from 8453 USDC to a Solana recipient
lands SPL USDC in its token account; 8453 ETH to a bc1 recipient reaches success; Solana USDC
to the venue's perps raises the withdrawable balance; Solana SOL to 8453 ETH reaches success;
a Solana run killed right after sending resumes without sending again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, Cli, final_status, fund, json_events
from solders.keypair import Keypair

from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.wallet.gateway import EvmGateway
from crossdeck.wallet.solana import SolanaGateway

SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"


@pytest.fixture
async def cli(world: Any, tmp_path: Path) -> Cli:
    made = Cli(world, tmp_path, demo_svm=True)
    await fund(world, made.address, native={8453: ETH // 10}, usdc={8453: 10 * 10**6})
    return made


async def spl_usdc(world: Any, owner: str) -> int:
    gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
    try:
        result = await gateway.rpc(
            "getTokenAccountsByOwner", owner, {"mint": SOLANA_USDC}, {"encoding": "jsonParsed"}
        )
    finally:
        await gateway.aclose()
    return sum(
        int(entry["account"]["data"]["parsed"]["info"]["tokenAmount"]["amount"])
        for entry in result["value"]
    )


async def test_base_usdc_to_a_solana_recipient_lands_spl_usdc(world: Any, cli: Cli) -> None:
    recipient = str(Keypair().pubkey())
    done = cli.run(
        "bridge", "--origin-chain", "8453", "--origin-currency", "USDC",
        "--destination-chain", str(SOLANA_CHAIN_ID), "--destination-currency", "USDC",
        "--amount-human", "5", "--recipient", recipient, "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert final_status(done) == "success"
    quote = next(e for e in json_events(done) if e.get("event") == "Quote")["quote"]
    out = int(quote["details"]["currencyOut"]["amount"])
    assert out > 0
    assert await spl_usdc(world, recipient) == out
    # the history finds it by the Solana recipient as written (base58 keeps its case)
    listed = cli.run("requests", "--user", recipient, "--json")
    assert listed.returncode == 0, listed.stderr
    assert quote["steps"][0]["requestId"] in listed.stdout, listed.stdout


async def test_base_eth_to_a_bitcoin_recipient_reaches_success(cli: Cli) -> None:
    done = cli.run(
        "bridge", "--origin-chain", "8453", "--origin-currency", "ETH",
        "--destination-chain", "8253038", "--destination-currency", "BTC",
        "--amount-human", "0.01", "--recipient", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
        "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert final_status(done) == "success"


async def test_solana_usdc_to_the_venue_raises_withdrawable(world: Any, cli: Cli) -> None:
    before = await world_withdrawable(world, cli.address)
    done = cli.run(
        "bridge", "--origin-chain", str(SOLANA_CHAIN_ID), "--origin-currency", "USDC",
        "--destination-chain", "1337", "--destination-currency", "perps:USDC",
        "--amount-human", "3", "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert final_status(done) == "success"
    assert await world_withdrawable(world, cli.address) > before


async def world_withdrawable(world: Any, address: str) -> Any:
    from crossdeck.venue import VenueClient

    venue = VenueClient(world.venue_url)
    try:
        return (await venue.clearinghouse_state(address)).withdrawable
    finally:
        await venue.aclose()


async def test_solana_sol_to_base_eth_reaches_success(world: Any, cli: Cli) -> None:
    async with EvmGateway(world.rpc[8453], 8453) as gateway:
        before = await gateway.balance(cli.address)
    done = cli.run(
        "bridge", "--origin-chain", str(SOLANA_CHAIN_ID), "--origin-currency", "SOL",
        "--destination-chain", "8453", "--destination-currency", "ETH",
        "--amount-human", "0.2", "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert final_status(done) == "success"
    async with EvmGateway(world.rpc[8453], 8453) as gateway:
        assert await gateway.balance(cli.address) > before


async def test_a_solana_run_killed_after_sending_resumes_without_sending_again(
    world: Any, cli: Cli
) -> None:
    demo = world.info["wallet"]["solana_address"]
    gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
    try:
        sol_before = await gateway.balance(demo)
        crashed = cli.bridge(
            "--origin-chain", str(SOLANA_CHAIN_ID), "--origin-currency", "SOL",
            "--destination-chain", "8453", "--destination-currency", "ETH",
            "--amount-human", "0.1", crash_at="after-send",
        )  # fmt: skip
        assert crashed.returncode != 0
        sent = [e for e in json_events(crashed) if e.get("event") == "TxSent"]
        assert len(sent) == 1
        resumed = await cli.resume()
        assert not [e for e in resumed if e.get("event") == "TxSent"]  # found, not resent
        assert any(e.get("event") == "Finished" and e.get("status") == "success"
                   for e in resumed)  # fmt: skip
        spent = sol_before - await gateway.balance(demo)
        assert 10**8 <= spent < 10**8 + 100_000  # 0.1 SOL once, and one signature's fee
    finally:
        await gateway.aclose()


async def test_from_the_venue_to_solana_and_bitcoin_recipients(world: Any, cli: Cli) -> None:
    world.ledger.credit(cli.address, "0x" + "0" * 32, 100 * 10**8)
    recipient = str(Keypair().pubkey())
    to_solana = cli.run(
        "bridge", "--origin-chain", "1337", "--origin-currency", "perps:USDC",
        "--destination-chain", str(SOLANA_CHAIN_ID), "--destination-currency", "USDC",
        "--amount-human", "20", "--recipient", recipient, "--yes", "--json",
    )  # fmt: skip
    assert to_solana.returncode == 0, to_solana.stderr
    assert final_status(to_solana) == "success"
    assert await spl_usdc(world, recipient) > 0
    to_bitcoin = cli.run(
        "bridge", "--origin-chain", "1337", "--origin-currency", "perps:USDC",
        "--destination-chain", "8253038", "--destination-currency", "BTC",
        "--amount-human", "20", "--recipient", "3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr",
        "--yes", "--json",
    )  # fmt: skip
    assert to_bitcoin.returncode == 0, to_bitcoin.stderr
    assert final_status(to_bitcoin) == "success"
