"""Failures that must be clear and final: a mined revert, and a journalled transaction whose
nonce another transaction took (resume must refuse to send anything)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from eth_abi import encode
from eth_account import Account
from execute_support import (
    ETH,
    NATIVE,
    PERPS_USDC,
    USDC,
    VENUE_UNIT,
    Cli,
    Kit,
    fund,
    new_address,
    send_from_demo,
    usdc_address,
)

from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret
from crossdeck.execute import Failed, TxConfirmed, TxSent
from crossdeck.wallet.gateway import EvmGateway
from crossdeck.wallet.signer import Signer
from helpers.typed_data import transfer_authorization_fields

TRANSFER_AUTHORIZATION = transfer_authorization_fields()


async def _run_a_reverted_deposit(kit: Kit) -> tuple[Any, list[Any]]:
    """A USDC deposit whose USDC leaves the wallet while the deposit's dialog is open (the
    guards saw it there and the dry run passed): the approve is mined, the deposit mined and
    reverted. (The quote, the run's events.)"""
    world = kit.world
    await fund(world, kit.address, native={8453: ETH}, usdc={8453: 10 * USDC})
    usdc = usdc_address(world, 8453)
    # an EIP-3009 transfer the wallet signed earlier, submitted by someone else mid-dialog:
    # it moves the USDC away without touching the wallet's nonce
    typed = {
        "domain": {"name": "USD Coin", "version": "2", "chainId": 8453, "verifyingContract": usdc},
        "types": {"TransferWithAuthorization": TRANSFER_AUTHORIZATION},
        "primaryType": "TransferWithAuthorization",
        "message": {
            "from": kit.address,
            "to": new_address(),
            "value": 10 * USDC,
            "validAfter": 0,
            "validBefore": 2**40,
            "nonce": b"\x01" * 32,
        },
    }
    signed = Account.sign_typed_data(kit.key, full_message=typed)
    m = typed["message"]
    call = (
        "0xe3ee160e"
        + encode(
            [
                "address",
                "address",
                "uint256",
                "uint256",
                "uint256",
                "bytes32",
                "uint8",
                "bytes32",
                "bytes32",
            ],
            [
                m["from"],
                m["to"],
                m["value"],
                0,
                2**40,
                m["nonce"],
                signed.v,
                signed.r.to_bytes(32, "big"),
                signed.s.to_bytes(32, "big"),
            ],
        ).hex()
    )
    confirm = kit.confirm

    async def drained_meanwhile(request: Any) -> bool:
        if request.step_id == "deposit":
            await send_from_demo(world, 8453, {"to": usdc, "data": call})
        return await confirm(request)

    # (the fixed gas limit below is ~3x what the deposit uses after its approve, 40,760 to
    # 57,860 as the depository holds USDC or not: allowed here)
    kit.executor = kit.make_executor(confirm=drained_meanwhile, gas_limit_multiple=4)
    quote, request = await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=999,
        origin_currency=usdc_address(world, 8453),
        destination_currency=usdc_address(world, 999),
        amount=str(10 * USDC),
        recipient=new_address(),
    )

    def fixed_gas(wire: dict[str, Any]) -> None:
        # a gas limit in the item skips estimation, so the doomed deposit is really mined
        wire["steps"][1]["items"][0]["data"]["gas"] = "120000"

    return quote, await kit.run(kit.tampered(quote, fixed_gas), request=request)


async def test_a_reverted_deposit_is_a_clear_failure(kit: Kit) -> None:
    world = kit.world
    quote, events = await _run_a_reverted_deposit(kit)

    last = events[-1]
    assert isinstance(last, Failed), last.to_json()
    assert last.exit_code == ExitCode.FAILED and last.error_type == "ExecutionError"
    [_, deposit] = [e for e in events if isinstance(e, TxSent)]
    assert f"transaction {deposit.hash} (deposit) reverted on chain 8453" in last.error
    assert [e.step_id for e in events if isinstance(e, TxConfirmed)] == ["approve"]
    async with EvmGateway(world.rpc[8453], 8453) as gateway:
        receipt = await gateway.get_receipt(deposit.hash)
    assert receipt is not None and receipt.status == 0
    assert kit.journal.run(quote.request_id).state == "failed"


async def test_resume_refuses_a_run_whose_transaction_reverted(kit: Kit) -> None:
    """A reverted item is journalled as `reverted`, not `done`: resume must not skip past it
    (after a reverted approve that would sign and send the deposit); it refuses, exit 9."""
    quote, events = await _run_a_reverted_deposit(kit)
    assert isinstance(events[-1], Failed) and events[-1].exit_code == ExitCode.FAILED
    [_, deposit] = [e for e in events if isinstance(e, TxSent)]
    items = kit.journal.items(quote.request_id)
    assert [(i.step_id, i.state) for i in items] == [("approve", "done"), ("deposit", "reverted")]
    # a bare `resume` passes over it (its failure said why); by id it is refused below
    assert kit.journal.latest_unfinished() is None
    asked, nonce = len(kit.asked), await kit.nonce(8453)

    resumed = await kit.resume(quote.request_id)

    [last] = resumed  # refused before anything else: no RunStarted, no guards, no signing
    assert isinstance(last, Failed), last.to_json()
    assert last.exit_code == ExitCode.FAILED and last.error_type == "ExecutionError"
    assert f"transaction {deposit.hash} (deposit) reverted on chain 8453" in last.error
    assert "new quote" in last.error
    assert len(kit.asked) == asked
    assert await kit.nonce(8453) == nonce
    assert [i.state for i in kit.journal.items(quote.request_id)] == ["done", "reverted"]
    assert kit.journal.run(quote.request_id).state == "failed"


async def test_resume_refuses_a_transaction_whose_nonce_was_taken(
    world: Any, tmp_path: Path
) -> None:
    cli = Cli(world, tmp_path)
    await fund(world, cli.address, native={8453: ETH})
    options = [
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(),
    ]  # fmt: skip
    killed = cli.bridge(*options, crash_at="after-sign")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    # meanwhile the same wallet spends nonce 0 on something else
    signer = Signer(Secret(cli.key))
    async with EvmGateway(world.rpc[8453], 8453) as gateway:
        max_fee, tip = await gateway.fee_params()
        other = signer.sign_transaction(
            {"chainId": 8453, "nonce": 0, "to": new_address(), "value": 1, "gas": 21000,
             "maxFeePerGas": max_fee, "maxPriorityFeePerGas": tip}
        )  # fmt: skip
        await gateway.wait_receipt(await gateway.send_raw(other.raw), poll=0.05)

    result = await asyncio.to_thread(cli.invoke, "resume", "--yes")
    assert result.exit_code == ExitCode.FAILED, result.output
    assert "the wallet's nonce 0 was used by another transaction" in result.output
    async with EvmGateway(world.rpc[8453], 8453) as gateway:
        assert await gateway.nonce(cli.address, "latest") == 1  # only the other transaction


async def test_a_refused_venue_transfer_is_resent_as_signed_after_funding(py_kit: Kit) -> None:
    """The venue refuses the sendAsset (its balance left while the dialog was open); resume
    posts the very same signed action once the account is funded again, and the request
    completes with one transfer."""
    kit = py_kit
    world = kit.world
    recipient = new_address()
    # funded, so the funds guard passes before the first signature; the funds leave the
    # account while the transfer's dialog is open, so the venue refuses the post
    await fund(world, kit.address, venue_perps=20 * VENUE_UNIT)

    async def drained_at_the_transfer(request: Any) -> bool:
        kit.asked.append(request)
        if request.step_id == "deposit":
            held = world.ledger.balance(kit.address, PERPS_USDC)
            world.ledger.debit(kit.address, PERPS_USDC, held)
        return True

    await kit.executor.aclose()
    kit.executor = kit.make_executor(confirm=drained_at_the_transfer)
    quote, request = await kit.quote(
        origin_chain_id=1337,
        destination_chain_id=8453,
        origin_currency="0x" + "0" * 32,
        destination_currency=usdc_address(world, 8453),
        amount=str(10 * VENUE_UNIT),
        recipient=recipient,
        protocol_version="v2",
    )
    events = await kit.run(quote, request=request)

    last = events[-1]
    assert isinstance(last, Failed) and last.exit_code == ExitCode.SERVICE_ERROR
    assert "the venue refused the action" in last.error
    assert f"continue with `crossdeck resume {quote.request_id}`" in last.error
    [authorize, deposit] = kit.journal.items(quote.request_id)
    assert (authorize.state, deposit.state) == ("done", "signed")
    signed_before = deposit.signed

    await fund(world, kit.address, venue_perps=20 * VENUE_UNIT)
    asked = len(kit.asked)
    resumed = await kit.resume(quote.request_id)
    assert resumed[-1].to_json()["event"] == "Finished" and resumed[-1].status == "success"
    assert len(kit.asked) == asked  # nothing new was signed
    assert kit.journal.items(quote.request_id)[1].signed == signed_before
    sends = [s for s in world.ledger.sends() if s.user == kit.address.lower()]
    assert len(sends) == 1
    assert await kit.usdc(8453, recipient) == quote.details.currency_out.amount


def _bridge_args(cli: Cli) -> list[str]:
    return [
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(),
    ]  # fmt: skip


def _nonce(cli: Cli) -> int:
    async def read() -> int:
        async with EvmGateway(cli.world.rpc[8453], 8453) as gateway:
            return await gateway.nonce(cli.address, "latest")

    return asyncio.run(read())


def test_bridge_with_stdin_closed_asks_nobody_and_signs_nothing(world: Any, tmp_path: Path) -> None:
    """`bridge <&-` used to end in "RuntimeError: input(): lost sys.stdin" (exit 1): now the
    question that cannot be answered is exit 11 (ABORTED), naming --yes."""
    import subprocess

    from execute_support import CROSSDECK

    cli = Cli(world, tmp_path)
    asyncio.run(fund(world, cli.address, native={8453: ETH}))
    done = subprocess.run(
        [CROSSDECK, "--world", str(cli.world_file), *_bridge_args(cli)],
        env=cli.env(None),
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(0),  # fd 0 closed, as with `<&-`
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == ExitCode.ABORTED, done.stderr
    assert "no answer to 'Execute this quote'" in done.stderr
    assert "standard input is closed" in done.stderr and "pass --yes" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert _nonce(cli) == 0


def test_bridge_with_stdin_at_eof_signs_nothing(world: Any, tmp_path: Path) -> None:
    cli = Cli(world, tmp_path)
    asyncio.run(fund(world, cli.address, native={8453: ETH}))
    result = cli.invoke(*_bridge_args(cli), input="")
    assert result.exit_code == ExitCode.ABORTED, result.output
    assert "standard input ended" in result.output and "Aborted!" not in result.output
    assert _nonce(cli) == 0
