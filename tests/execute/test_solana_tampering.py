"""Tamperings of Solana deposits: the real `crossdeck bridge --yes --json` from Solana against
the demo world through a service in the middle that alters the quote (tampering_proxy.py).
Each tampering (the amount, the order id, the depositor, the program id, an extra SOL transfer
to another key) is refused before signing (exit 7, naming the guard) with nothing sent: the
wallet's SOL is as before. The same flow untampered through the proxy succeeds. (A lookup
table that resolves an account elsewhere: test_solana_runner.py.)"""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import Cli
from tampering_proxy import TamperingProxy

from crossdeck.base.exitcodes import ExitCode
from crossdeck.models.addresses import SOLANA_CHAIN_ID
from crossdeck.models.base58 import b58encode
from crossdeck.wallet.solana import SolanaGateway

Tamper = Callable[[dict[str, Any]], None]
OTHER = b58encode(bytes(range(100, 132)))


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    made = Cli(world, tmp_path)
    info = json.loads(made.world_file.read_text())
    demo = world.info["wallet"]
    info["wallet"]["solana_address"] = demo["solana_address"]
    info["wallet"]["solana_private_key"] = demo["solana_private_key"]
    made.world_file.write_text(json.dumps(info))
    return made


@pytest.fixture
def proxy(world: Any) -> Iterator[TamperingProxy]:
    with TamperingProxy(world.service_url) as running:
        yield running


def deposit(wire: dict[str, Any]) -> dict[str, Any]:
    step = next(s for s in wire["steps"] if s["id"] == "deposit")
    instructions = step["items"][0]["data"]["instructions"]
    return next(ix for ix in instructions if ix["data"].startswith("0d9e0ddf5fd51c06"))


def _data(change: Callable[[bytes], bytes]) -> Tamper:
    def tamper(wire: dict[str, Any]) -> None:
        ix = deposit(wire)
        ix["data"] = change(bytes.fromhex(ix["data"])).hex()

    return tamper


def _depositor(wire: dict[str, Any]) -> None:
    deposit(wire)["keys"][2]["pubkey"] = OTHER


def _program(wire: dict[str, Any]) -> None:
    deposit(wire)["programId"] = OTHER


def _extra_transfer(wire: dict[str, Any]) -> None:
    step = next(s for s in wire["steps"] if s["id"] == "deposit")
    wallet = deposit(wire)["keys"][1]["pubkey"]
    step["items"][0]["data"]["instructions"].append(
        {
            "programId": "11111111111111111111111111111111",
            "keys": [
                {"pubkey": wallet, "isSigner": True, "isWritable": True},
                {"pubkey": OTHER, "isSigner": False, "isWritable": True},
            ],
            "data": (struct.pack("<I", 2) + struct.pack("<Q", 10**6)).hex(),
        }
    )


CASES = [
    ("amount", _data(lambda d: d[:8] + struct.pack("<Q", 2 * 10**8) + d[16:]), "solana-deposit",
     "it deposits 200000000"),
    ("order-id", _data(lambda d: d[:16] + b"\x07" * 32), "solana-deposit", "its order id is"),
    ("depositor", _depositor, "solana-deposit", f"its depositor is {OTHER}"),
    ("program-id", _program, "solana-programs", f"program {OTHER}, which crossdeck cannot read"),
    ("extra-sol-transfer", _extra_transfer, "solana-transfers", f"to {OTHER}"),
]  # fmt: skip


def _bridge(cli: Cli, proxy: TamperingProxy) -> Any:
    return cli.invoke(
        "bridge",
        "--origin-chain", str(SOLANA_CHAIN_ID), "--origin-currency", "SOL",
        "--destination-chain", "8453", "--destination-currency", "ETH",
        "--amount-human", "0.1", "--yes", "--json",
        CROSSDECK_SERVICE__URL=proxy.url,
    )  # fmt: skip


def _sol(world: Any) -> int:
    async def read() -> int:
        gateway = SolanaGateway(world.rpc[SOLANA_CHAIN_ID])
        try:
            return await gateway.balance(world.info["wallet"]["solana_address"])
        finally:
            await gateway.aclose()

    return asyncio.run(read())


@pytest.mark.parametrize(("name", "tamper", "guard", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_tampered_solana_deposit_is_refused_before_signing(
    world: Any, cli: Cli, proxy: TamperingProxy, name: str, tamper: Tamper, guard: str,
    words: str,
) -> None:  # fmt: skip
    before = _sol(world)
    proxy.tamper = tamper
    result = _bridge(cli, proxy)
    assert proxy.tampered == 1
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    failed = events[-1]
    assert failed["event"] == "Failed", failed
    assert guard in {f["name"] for f in failed["failures"]}, failed["error"]
    assert words in failed["error"]
    assert not any(e["event"] in ("Signed", "TxSent") for e in events)
    assert _sol(world) == before


def test_the_same_flow_untampered_through_the_proxy_succeeds(
    world: Any, cli: Cli, proxy: TamperingProxy
) -> None:
    result = _bridge(cli, proxy)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success"
