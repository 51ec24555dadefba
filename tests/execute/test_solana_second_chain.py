"""SVM as a family: the world's second SVM chain (Eclipse, 9286185: its own LiteSVM, its own USDC
mint and depository program id, ether as its native currency, all named by /chains) runs the
Solana-origin flows through the real `crossdeck bridge --yes --json`, on its own RPC only:
USDC and native deposits reach success, the wallet pays on Eclipse and nothing moves on Solana;
a run killed after sending resumes on Eclipse without sending again. The cross-chain attacks
(a quote for one SVM chain whose transaction pays the other's depository, or whose payment
names the other chain, so that it would be sent to the other's RPC) are refused before
signing, exit 7, nothing sent on either chain. The portfolio lists both chains."""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import Cli, final_status, json_events
from tampering_proxy import TamperingProxy

from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute.guards.solana_addresses import (
    associated_token_account,
    depository_config,
    depository_vault,
)
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.solana import DEPOSIT_NATIVE, DEPOSIT_TOKEN, DEPOSITORY_PROGRAM, TOKEN_PROGRAM
from crossdeck.wallet.solana import SolanaGateway

ECLIPSE = 9286185


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path, demo_svm=True)


def svm_chain(world: Any, chain_id: int) -> dict[str, Any]:
    from helpers.loopback import http

    listed = http().get(world.service_url + "/chains").json()["chains"]
    return next(c for c in listed if c["id"] == chain_id)


def usdc_mint(world: Any, chain_id: int) -> str:
    chain = svm_chain(world, chain_id)
    mint: str = next(c["address"] for c in chain["erc20Currencies"] if c["symbol"] == "USDC")
    return mint


async def holdings(world: Any, chain_id: int) -> dict[str, int]:
    """The demo wallet's native units and USDC on one SVM chain, and its depository vault's,
    read from that chain's own RPC (the one the world file names for it)."""
    wallet = world.info["wallet"]["solana_address"]
    depository = svm_chain(world, chain_id)["protocol"]["v2"]["depository"]
    mint = usdc_mint(world, chain_id)
    gateway = SolanaGateway(world.info["rpc"][str(chain_id)], chain_id=chain_id)
    found: dict[str, int] = {}
    try:
        for who, key in (("wallet", wallet), ("vault", depository_vault(depository))):
            found[f"{who} native"] = await gateway.balance(key)
            account = associated_token_account(key, mint, TOKEN_PROGRAM)
            assert account is not None
            data = await gateway.account_data(account)
            found[f"{who} USDC"] = 0 if data is None else struct.unpack_from("<Q", data, 64)[0]
    finally:
        await gateway.aclose()
    return found


async def landed_on(world: Any, chain_id: int, signature: str) -> bool:
    gateway = SolanaGateway(world.info["rpc"][str(chain_id)], chain_id=chain_id)
    try:
        return await gateway.signature_status(signature) is not None
    finally:
        await gateway.aclose()


def test_the_world_lists_a_second_svm_chain_with_its_own_rpc_depository_and_currencies(
    world: Any,
) -> None:
    solana, eclipse = svm_chain(world, SOLANA_CHAIN_ID), svm_chain(world, ECLIPSE)
    assert eclipse["vmType"] == "svm" and eclipse["currency"]["symbol"] == "ETH"
    assert eclipse["currency"]["decimals"] == 9
    assert eclipse["httpRpcUrl"] == world.info["rpc"][str(ECLIPSE)] != solana["httpRpcUrl"]
    assert eclipse["wsRpcUrl"].startswith("ws://")
    assert eclipse["protocol"]["v2"]["depository"] != DEPOSITORY_PROGRAM
    assert solana["protocol"]["v2"]["depository"] == DEPOSITORY_PROGRAM
    assert usdc_mint(world, ECLIPSE) != usdc_mint(world, SOLANA_CHAIN_ID)


@pytest.mark.parametrize(
    ("currency", "amount", "to", "units"),
    [("USDC", "3", "USDC", 3 * 10**6), ("ETH", "0.01", "ETH", 10**7)],
)
async def test_an_eclipse_deposit_reaches_success_on_eclipse_alone(
    world: Any, cli: Cli, currency: str, amount: str, to: str, units: int
) -> None:
    eclipse_before = await holdings(world, ECLIPSE)
    solana_before = await holdings(world, SOLANA_CHAIN_ID)
    done = cli.run(
        "bridge", "--origin-chain", str(ECLIPSE), "--origin-currency", currency,
        "--destination-chain", "8453", "--destination-currency", to,
        "--amount-human", amount, "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert final_status(done) == "success", done.stdout
    quote = next(e for e in json_events(done) if e.get("event") == "Quote")["quote"]
    assert quote["details"]["currencyIn"]["currency"]["chainId"] == ECLIPSE
    # the recipient on 8453 is the EVM wallet: Eclipse's family came from /chains
    assert quote["details"]["recipient"].lower() == cli.address.lower()
    sent = [e for e in json_events(done) if e.get("event") == "TxSent"]
    assert [e["chain_id"] for e in sent] == [ECLIPSE]
    signature = sent[0]["hash"]
    # what was shown before signing names Eclipse and its own currency, never Solana's
    [asked] = [e for e in json_events(done) if e.get("event") == "AwaitingConfirmation"]
    # (the lines and the guards' words: the payload's base64 message may hold any letters)
    shown = json.dumps([asked["what"]["lines"], [g["message"] for g in asked["what"]["guards"]]])
    assert "one transaction on Eclipse" in shown
    assert "SOL" not in shown, shown
    if currency == "ETH":
        assert f"deposit {units} lamports of ETH" in shown
        assert "0.01 ETH (10000000)" in shown
    assert await landed_on(world, ECLIPSE, signature)
    assert not await landed_on(world, SOLANA_CHAIN_ID, signature)
    after = await holdings(world, ECLIPSE)
    if currency == "USDC":
        assert eclipse_before["wallet USDC"] - after["wallet USDC"] == units
        assert after["vault USDC"] - eclipse_before["vault USDC"] == units
    else:
        assert after["vault native"] - eclipse_before["vault native"] == units
        spent = eclipse_before["wallet native"] - after["wallet native"]
        assert units < spent < units + 100_000  # the deposit and one signature's fee
    assert await holdings(world, SOLANA_CHAIN_ID) == solana_before  # nothing moved on Solana


async def test_an_eclipse_run_killed_after_sending_resumes_on_eclipse_without_resending(
    world: Any, cli: Cli
) -> None:
    before = await holdings(world, ECLIPSE)
    crashed = cli.bridge(
        "--origin-chain", str(ECLIPSE), "--origin-currency", "USDC",
        "--destination-chain", "8453", "--destination-currency", "USDC",
        "--amount-human", "2", crash_at="after-send",
    )  # fmt: skip
    assert crashed.returncode != 0
    sent = [e for e in json_events(crashed) if e.get("event") == "TxSent"]
    assert [e["chain_id"] for e in sent] == [ECLIPSE]
    resumed = await cli.resume()
    assert not [e for e in resumed if e.get("event") == "TxSent"]  # found on Eclipse, not resent
    confirmed = [e for e in resumed if e.get("event") == "TxConfirmed"]
    assert [e["chain_id"] for e in confirmed] == [ECLIPSE]
    assert any(e.get("event") == "Finished" and e.get("status") == "success" for e in resumed)
    after = await holdings(world, ECLIPSE)
    assert before["wallet USDC"] - after["wallet USDC"] == 2 * 10**6  # paid once


async def test_base_usdc_to_an_eclipse_recipient_lands_eclipse_usdc(world: Any, cli: Cli) -> None:
    from execute_support import fund
    from solders.keypair import Keypair

    await fund(world, cli.address, native={8453: 10**17}, usdc={8453: 10 * 10**6})
    recipient = str(Keypair().pubkey())
    done = cli.run(
        "bridge", "--origin-chain", "8453", "--origin-currency", "USDC",
        "--destination-chain", str(ECLIPSE), "--destination-currency", "USDC",
        "--amount-human", "5", "--recipient", recipient, "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert final_status(done) == "success", done.stdout
    quote = next(e for e in json_events(done) if e.get("event") == "Quote")["quote"]
    out = int(quote["details"]["currencyOut"]["amount"])
    mint = usdc_mint(world, ECLIPSE)
    assert quote["details"]["currencyOut"]["currency"]["address"] == mint
    account = associated_token_account(recipient, mint, TOKEN_PROGRAM)
    assert account is not None
    gateway = SolanaGateway(world.info["rpc"][str(ECLIPSE)], chain_id=ECLIPSE)
    try:
        data = await gateway.account_data(account)  # the recipient's token account on Eclipse
    finally:
        await gateway.aclose()
    assert data is not None and struct.unpack_from("<Q", data, 64)[0] == out > 0


async def test_eclipse_usdc_to_the_venue_raises_withdrawable(world: Any, cli: Cli) -> None:
    from crossdeck.venue import VenueClient

    venue = VenueClient(world.venue_url)
    try:
        before = (await venue.clearinghouse_state(cli.address)).withdrawable
        done = cli.run(
            "bridge", "--origin-chain", str(ECLIPSE), "--origin-currency", "USDC",
            "--destination-chain", "1337", "--destination-currency", "perps:USDC",
            "--amount-human", "3", "--yes", "--json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert final_status(done) == "success", done.stdout
        assert (await venue.clearinghouse_state(cli.address)).withdrawable > before
    finally:
        await venue.aclose()


def test_quote_from_eclipse_is_asked_for_the_svm_wallet(world: Any, cli: Cli) -> None:
    done = cli.run(
        "quote", "--origin-chain", str(ECLIPSE), "--origin-currency", "USDC",
        "--destination-chain", "8453", "--destination-currency", "USDC",
        "--amount-human", "1", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    quote = json.loads(done.stdout)
    # /chains says Eclipse is an SVM chain: the user is the SVM wallet, the recipient the EVM one
    assert quote["details"]["sender"] == world.info["wallet"]["solana_address"]
    assert quote["details"]["recipient"].lower() == cli.address.lower()


# -- the cross-chain attacks ---------------------------------------------------------------


@pytest.fixture
def proxy(world: Any) -> Iterator[TamperingProxy]:
    with TamperingProxy(world.service_url, api="v2") as running:
        yield running


def _deposit(wire: dict[str, Any]) -> dict[str, Any]:
    step = next(s for s in wire["steps"] if s["id"] == "deposit")
    return next(
        ix for ix in step["items"][0]["data"]["instructions"]
        if ix["data"][:16] in (DEPOSIT_NATIVE.hex(), DEPOSIT_TOKEN.hex())
    )  # fmt: skip


def to_solanas_depository(wire: dict[str, Any]) -> None:
    """The Eclipse deposit, its program and accounts Solana's depository's: signed and sent to
    Eclipse it fails, but the same bytes on Solana would pay there for an Eclipse order."""
    ix = _deposit(wire)
    ix["programId"] = DEPOSITORY_PROGRAM
    ix["keys"][0]["pubkey"] = depository_config(DEPOSITORY_PROGRAM)
    ix["keys"][3]["pubkey"] = depository_vault(DEPOSITORY_PROGRAM)


def paid_on_solana(wire: dict[str, Any]) -> None:
    """The Eclipse quote says it pays on Solana (its chain and depository Solana's): a client
    taking the chain from the payment would send the Eclipse transaction to Solana's RPC."""
    wire["protocol"]["v2"]["paymentDetails"]["chainId"] = "solana"
    wire["protocol"]["v2"]["paymentDetails"]["depository"] = DEPOSITORY_PROGRAM


@pytest.mark.parametrize(
    ("tamper", "guard", "words"),
    [
        (to_solanas_depository, "solana-programs", "Solana's depository"),
        (paid_on_solana, "", "792703809"),
    ],
    ids=["solanas-depository", "paid-on-solana"],
)
async def test_a_quote_for_eclipse_aimed_at_solana_is_refused_before_signing(
    world: Any, cli: Cli, proxy: TamperingProxy, tamper: Any, guard: str, words: str
) -> None:
    before = {c: await holdings(world, c) for c in (ECLIPSE, SOLANA_CHAIN_ID)}
    proxy.tamper = tamper
    result = await asyncio.to_thread(  # the CLI runs its own event loop
        cli.invoke,
        "bridge", "--origin-chain", str(ECLIPSE), "--origin-currency", "USDC",
        "--destination-chain", "8453", "--destination-currency", "USDC",
        "--amount-human", "2", "--yes", "--json",
        CROSSDECK_SERVICE__URL=proxy.url, CROSSDECK_SERVICE__QUOTE_API=proxy.api,
    )  # fmt: skip
    assert proxy.tampered == 1
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert not [e for e in lines if e["event"] in ("Signed", "TxSent", "AwaitingConfirmation")]
    failed = lines[-1]
    assert failed["event"] == "Failed", failed
    assert any(guard in f["name"] for f in failed["failures"]), failed["error"]
    assert words in failed["error"], failed["error"]
    assert {c: await holdings(world, c) for c in before} == before  # nothing moved anywhere


async def test_the_portfolio_lists_both_svm_chains(world: Any, cli: Cli) -> None:
    wallet = world.info["wallet"]["solana_address"]
    done = cli.run("balances", wallet, "--json")
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert read["addresses"] == {"svm": wallet}
    assert {h["chainId"] for h in read["holdings"]} == {SOLANA_CHAIN_ID, ECLIPSE}
    eclipse = {h["symbol"]: h for h in read["holdings"] if h["chainId"] == ECLIPSE}
    held = await holdings(world, ECLIPSE)
    assert eclipse["USDC"]["amount"] == str(held["wallet USDC"])
    assert eclipse["ETH"]["amount"] == str(held["wallet native"])
    assert eclipse["ETH"]["decimals"] == 9
