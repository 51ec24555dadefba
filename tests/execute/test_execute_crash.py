"""Crash tests: `crossdeck bridge --yes` runs as a real subprocess that SIGKILLs itself at an
execution boundary (CROSSDECK_CRASH_AT), then `crossdeck resume` finishes the run. Afterwards
exactly one transaction per step is on chain (the wallet's nonce) and exactly one transfer left
the venue account, and the balances are the ones the quote promised."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from execute_support import (
    ETH,
    NATIVE,
    PERPS_USDC,
    USDC,
    VENUE_UNIT,
    Cli,
    fund,
    new_address,
    usdc_address,
)

from crossdeck.sim.venue.actions import apply_send_asset
from crossdeck.wallet.gateway import EvmGateway


def killed(process: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert process.returncode == -signal.SIGKILL, process.stdout + process.stderr
    return [json.loads(line) for line in process.stdout.splitlines() if line.strip()]


def names(events: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in events]


async def chain_nonce(world: Any, chain_id: int, address: str) -> int:
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        return await gateway.nonce(address, "latest")


async def native_balance(world: Any, chain_id: int, address: str) -> int:
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        return await gateway.balance(address)


async def usdc_balance(world: Any, chain_id: int, address: str) -> int:
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        return await gateway.erc20_balance(usdc_address(world, chain_id), address)


@pytest.fixture
def cli(any_world: Any, tmp_path: Path) -> Cli:
    return Cli(any_world, tmp_path)


def native_options(recipient: str) -> list[str]:
    return [
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 5), "--recipient", recipient,
    ]  # fmt: skip


@pytest.mark.parametrize("boundary", ["after-sign", "after-send"])
async def test_native_deposit_killed_then_resumed_sends_one_transaction(
    cli: Cli, boundary: str
) -> None:
    world = cli.world
    await fund(world, cli.address, native={8453: ETH})
    recipient = new_address()
    before = killed(cli.bridge(*native_options(recipient), crash_at=boundary))
    quote = before[0]["quote"]
    request_id = quote["steps"][0]["requestId"]
    with cli.journal() as journal:
        [item] = journal.items(request_id)
    assert item.state == ("signed" if boundary == "after-sign" else "sent")
    on_chain = await chain_nonce(world, 8453, cli.address)
    assert on_chain == (0 if boundary == "after-sign" else 1)
    assert ("TxSent" in names(before)) == (boundary == "after-send")

    after = await cli.resume()  # no id: the latest unfinished run
    assert after[0]["event"] == "RunStarted" and after[0]["resumed"] is True
    assert after[-1]["event"] == "Finished" and after[-1]["status"] == "success"
    assert after[-1]["in_tx_hashes"] == [item.tx_hash]
    notes = [e["message"] for e in after if e["event"] == "Note"]
    if boundary == "after-sign":
        assert any("re-broadcasting the same signed bytes" in n for n in notes)
    else:
        assert any("already mined" in n or "already pending" in n for n in notes)
    assert await chain_nonce(world, 8453, cli.address) == 1  # exactly one transaction
    out = int(quote["details"]["currencyOut"]["amount"])
    assert await native_balance(world, 999, recipient) == out
    with cli.journal() as journal:
        assert journal.run(request_id).state == "finished"
    # a second resume finds everything done and sends nothing
    again = await cli.resume(request_id)
    assert [e["reason"] for e in again if e["event"] == "ItemSkipped"] == ["already done"]
    assert await chain_nonce(world, 8453, cli.address) == 1


async def test_usdc_deposit_killed_after_signing_the_deposit(cli: Cli) -> None:
    world = cli.world
    await fund(world, cli.address, native={8453: ETH}, usdc={8453: 50 * USDC})
    recipient = new_address()
    options = [
        "--origin-chain", "8453", "--origin-currency", usdc_address(world, 8453),
        "--destination-chain", "999", "--destination-currency", usdc_address(world, 999),
        "--amount", str(20 * USDC), "--recipient", recipient,
    ]  # fmt: skip
    before = killed(cli.bridge(*options, crash_at="after-sign:deposit"))
    quote = before[0]["quote"]
    assert [s["id"] for s in quote["steps"]] == ["approve", "deposit"]
    assert "TxConfirmed" in names(before)  # the approve went through
    assert await chain_nonce(world, 8453, cli.address) == 1

    after = await cli.resume()
    assert after[-1]["status"] == "success"
    skipped = [(e["step_id"], e["reason"]) for e in after if e["event"] == "ItemSkipped"]
    assert skipped == [("approve", "already done")]
    assert await chain_nonce(world, 8453, cli.address) == 2  # approve + one deposit
    assert await usdc_balance(world, 8453, cli.address) == 30 * USDC
    out = int(quote["details"]["currencyOut"]["amount"])
    assert await usdc_balance(world, 999, recipient) == out


def withdrawal_options(world: Any, recipient: str) -> list[str]:
    return [
        "--origin-chain", "1337", "--origin-currency", PERPS_USDC,
        "--destination-chain", "8453", "--destination-currency", usdc_address(world, 8453),
        "--amount", str(25 * VENUE_UNIT), "--recipient", recipient,
    ]  # fmt: skip


def venue_sends(world: Any, address: str) -> list[Any]:
    return [s for s in world.ledger.sends() if s.user == address.lower()]


@pytest.mark.parametrize(
    ("boundary", "state", "resume_finds"),
    [
        ("after-authorize", None, "/authorize already has this signature (NONCE_ALREADY_MAPPED)"),
        ("after-sign:deposit", "signed", None),
        ("after-send:deposit", "signed", "already applied the transfer"),
    ],
)
async def test_venue_withdrawal_killed_then_resumed_moves_one_transfer(
    cli: Cli, boundary: str, state: str | None, resume_finds: str | None
) -> None:
    world = cli.world
    await fund(world, cli.address, venue_perps=100 * VENUE_UNIT)
    recipient = new_address()
    before = killed(cli.bridge(*withdrawal_options(world, recipient), crash_at=boundary))
    quote = before[0]["quote"]
    request_id = quote["steps"][0]["requestId"]
    sends_before = venue_sends(world, cli.address)
    assert len(sends_before) == (1 if boundary.startswith("after-send") else 0)
    with cli.journal() as journal:
        items = {i.step_id: i for i in journal.items(request_id)}
    assert items["authorize"].state == ("signed" if boundary == "after-authorize" else "done")
    if state is not None:
        assert items["deposit"].state == state
    else:
        assert "deposit" not in items  # killed before the sendAsset was even signed

    after = await cli.resume(request_id)
    assert after[-1]["event"] == "Finished" and after[-1]["status"] == "success"
    reasons = [e["reason"] for e in after if e["event"] == "ItemSkipped"]
    if resume_finds is not None:
        assert any(resume_finds in r for r in reasons), reasons
    [send] = venue_sends(world, cli.address)  # exactly one transfer left the account
    nonce = quote["steps"][1]["items"][0]["data"]["nonce"]
    assert send.nonce == nonce
    assert send.destination == quote["protocol"]["v2"]["paymentDetails"]["depository"].lower()
    state_now = await _withdrawable(world, cli.address)
    assert state_now == Decimal(74)  # 100 - 25 - the venue's 1 USDC first-send fee
    out = int(quote["details"]["currencyOut"]["amount"])
    assert await usdc_balance(world, 8453, recipient) == out


async def _withdrawable(world: Any, address: str) -> Decimal:
    from crossdeck.venue import VenueClient

    async with VenueClient(world.venue_url) as venue:
        return (await venue.clearinghouse_state(address)).withdrawable


@pytest.fixture
def nonce_window(any_world: Any) -> Iterator[None]:
    """The venue's nonce window is put back after the test (the world is shared)."""
    window = any_world.ledger.nonce_past_window_ms
    yield
    any_world.ledger.nonce_past_window_ms = window


async def _crash_after_the_send_and_forget_its_nonce(cli: Cli) -> str:
    """A withdrawal killed after its sendAsset went through; then the venue's nonce window
    passes (0 here, until the test ends) and the account's next transfer lets the venue
    forget the nonce (as it does)."""
    world = cli.world
    await fund(world, cli.address, venue_perps=100 * VENUE_UNIT)
    options = withdrawal_options(world, new_address())
    before = killed(cli.bridge(*options, crash_at="after-send:deposit"))
    request_id = before[0]["quote"]["steps"][0]["requestId"]
    [send] = venue_sends(world, cli.address)
    for _ in range(200):  # the solver matches the send to the request by nonce
        if world.state.get(request_id).in_txs:
            break
        await asyncio.sleep(0.05)
    world.ledger.nonce_past_window_ms = 0
    apply_send_asset(
        world.ledger, signer=cli.address, destination=new_address(), source_dex="",
        destination_dex="", token=send.token, amount_text="1", from_sub_account="",
        nonce=time.time_ns() // 1_000_000 + 60_000,  # one the window still takes
        signature_chain_id=send.signature_chain_id,
    )  # fmt: skip
    assert not world.ledger.nonce_used(cli.address, send.nonce)
    return request_id


@pytest.mark.usefixtures("nonce_window")
async def test_venue_withdrawal_resumed_after_the_venue_forgot_the_nonce(cli: Cli) -> None:
    """Re-posted, the send is refused as too old, not as a duplicate. The service has seen it
    go through: the run finishes and nothing is sent twice."""
    world = cli.world
    request_id = await _crash_after_the_send_and_forget_its_nonce(cli)

    after = await cli.resume(request_id)
    assert after[-1]["event"] == "Finished" and after[-1]["status"] == "success", after[-1]
    reasons = [e["reason"] for e in after if e["event"] == "ItemSkipped"]
    assert any("already applied the transfer" in r for r in reasons), reasons
    assert len(venue_sends(world, cli.address)) == 2  # the withdrawal once, and the later one


@pytest.mark.usefixtures("nonce_window")
def test_venue_withdrawal_refused_again_unseen_never_says_nothing_moved(cli: Cli) -> None:
    """When the service cannot say either, the resume stops, and does not claim that nothing
    was transferred: the first post may have gone through."""
    world = cli.world
    request_id = asyncio.run(_crash_after_the_send_and_forget_its_nonce(cli))
    world.faults.inject("503", 10_000, path="/intents/status")
    try:
        done = cli.invoke("resume", request_id, "--yes", "--json")
    finally:
        world.faults.clear()

    assert done.exit_code != 0
    failed = json.loads(done.stdout.splitlines()[-1])
    assert failed["event"] == "Failed" and failed["error_type"] == "VenueError"
    assert "nothing was transferred" not in failed["error"]
    assert f"may have gone through: check `crossdeck status --v3 {request_id}`" in failed["error"]
    assert len(venue_sends(world, cli.address)) == 2
