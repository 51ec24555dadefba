"""A Solana deposit whose fees another account pays (`depositFeePayer`), on the CLI against the
demo world: `bridge --deposit-fee-payer ADDRESS --deposit-fee-payer-keypair FILE` signs with
both keys, the fee payer's SOL pays the fee and the wallet's SOL does not move; a missing,
unreadable or mismatched fee-payer key is an input error (exit 3) naming the option, before any
quote is asked for or anything signed, and the key is never printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from execute_support import Cli, json_events
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.wallet.solana import SolanaGateway

FEE_PAYER_SOL = 10_000_000  # 0.01 SOL: room for the fee


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path, demo_svm=True)


async def funded_fee_payer(world: Any) -> Keypair:
    """A new key holding 0.01 SOL, sent from the demo wallet through the world's JSON-RPC."""
    payer = Keypair()
    demo = Keypair.from_base58_string(world.info["wallet"]["solana_private_key"])
    gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
    try:
        blockhash, _ = await gateway.latest_blockhash()
        ix = transfer(
            TransferParams(from_pubkey=demo.pubkey(), to_pubkey=payer.pubkey(),
                           lamports=FEE_PAYER_SOL)
        )  # fmt: skip
        message = MessageV0.try_compile(demo.pubkey(), [ix], [], Hash.from_string(blockhash))
        signature = await gateway.send(bytes(VersionedTransaction(message, [demo])))
        for _ in range(100):
            status = await gateway.signature_status(signature)
            if status is not None and status.landed:
                break
        assert await gateway.balance(str(payer.pubkey())) == FEE_PAYER_SOL
    finally:
        await gateway.aclose()
    return payer


async def sol(world: Any, address: str) -> int:
    gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
    try:
        return await gateway.balance(address)
    finally:
        await gateway.aclose()


def keypair_file(tmp_path: Path, keypair: Keypair, name: str = "payer.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(list(bytes(keypair))))  # the Solana CLI's file
    return path


BRIDGE = (
    "bridge", "--origin-chain", str(SOLANA_CHAIN_ID), "--origin-currency", "USDC",
    "--destination-chain", "8453", "--destination-currency", "USDC", "--amount-human", "2",
)  # fmt: skip


async def test_a_second_fee_payer_signs_and_pays_the_fee(
    world: Any, cli: Cli, tmp_path: Path
) -> None:
    payer = await funded_fee_payer(world)
    wallet = world.info["wallet"]["solana_address"]
    wallet_before = await sol(world, wallet)
    done = cli.run(
        *BRIDGE, "--deposit-fee-payer", str(payer.pubkey()),
        "--deposit-fee-payer-keypair", str(keypair_file(tmp_path, payer)), "--yes", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json_events(done)
    finished = [e for e in seen if e.get("event") == "Finished"]
    assert finished and finished[-1].get("status") == "success", done.stdout[-2000:]
    assert len([e for e in seen if e.get("event") == "TxSent"]) == 1
    quote = next(e for e in seen if e.get("event") == "Quote")["quote"]
    [item] = quote["steps"][0]["items"]
    signers = {k["pubkey"] for ix in item["data"]["instructions"] for k in ix["keys"]
               if k["isSigner"]}  # fmt: skip
    assert signers <= {wallet, str(payer.pubkey())}
    paid = FEE_PAYER_SOL - await sol(world, str(payer.pubkey()))
    assert 5_000 <= paid <= 10_000  # two signatures' fee, paid by the fee payer
    assert await sol(world, wallet) == wallet_before  # the wallet paid no fee
    secret = str(payer)
    assert secret not in done.stdout and secret not in done.stderr


@pytest.mark.parametrize("case", ["missing", "another key", "not a keypair", "no address"])
async def test_a_missing_or_mismatched_fee_payer_key_is_exit_3_before_anything(
    world: Any, cli: Cli, tmp_path: Path, case: str
) -> None:
    named = Keypair()
    other = Keypair()
    options: list[str] = ["--deposit-fee-payer", str(named.pubkey())]
    expected = "--deposit-fee-payer-keypair"
    if case == "another key":
        options += ["--deposit-fee-payer-keypair", str(keypair_file(tmp_path, other))]
        expected = f"holds the key of {other.pubkey()}, not of --deposit-fee-payer"
    elif case == "not a keypair":
        bad = tmp_path / "bad.json"
        bad.write_text("[1, 2, 3]")
        options += ["--deposit-fee-payer-keypair", str(bad)]
        expected = "--deposit-fee-payer-keypair: a Solana keypair file is a JSON array"
    elif case == "no address":
        options = ["--deposit-fee-payer-keypair", str(keypair_file(tmp_path, named))]
        expected = f"add --deposit-fee-payer {named.pubkey()}"
    wallet = world.info["wallet"]["solana_address"]
    before = await sol(world, wallet)
    done = cli.run(*BRIDGE, *options, "--yes", "--json")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert expected in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert json_events(done) == []  # no quote asked, nothing signed or sent
    assert await sol(world, wallet) == before
    for key in (named, other):
        assert str(key) not in done.stdout + done.stderr
