"""What the executor tests share: fresh funded accounts in the demo world, an Executor wired to
the world's real servers and chains, and balance readers."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from eth_account import Account

from crossdeck.api import ServiceClient
from crossdeck.base.secret import Secret
from crossdeck.execute import (
    Collaborators,
    Event,
    Executor,
    Finished,
    Journal,
    RunOptions,
    SignRequest,
)
from crossdeck.execute.gateways import GatewayPool
from crossdeck.models import Quote, QuoteRequest
from crossdeck.track.budget import RateBudget
from crossdeck.track.policy import PollPolicy
from crossdeck.track.tracker import StatusTracker
from crossdeck.venue import VenueClient
from crossdeck.wallet.gateway import EvmGateway
from crossdeck.wallet.signer import Signer
from crossdeck.wallet.signers import KeySigner
from helpers.funding import (  # noqa: F401 - the execute tests import them from here
    PERPS_USDC,
    fund,
    new_address,
    new_key,
    send_from_demo,
    usdc_address,
)

NATIVE = "0x0000000000000000000000000000000000000000"
ETH = 10**18
USDC = 10**6
VENUE_UNIT = 10**8
FAST = PollPolicy(
    fast=0.05, first=0.05, ramp=0.5, idle_ramp=0.5, active_cap=0.5, idle_cap=0.5,
    failure_settle=3.0, settle_interval=0.1, error_base=0.05, error_cap=0.5, timeout=60.0,
)  # fmt: skip


@dataclass
class Kit:
    """One fresh wallet and an Executor for it, against `world`."""

    world: Any
    journal_path: Path
    key: str = field(default_factory=new_key)
    signing_chain_id: int = 1
    tracking: PollPolicy = FAST
    asked: list[SignRequest] = field(default_factory=list)
    answer: bool = True

    def __post_init__(self) -> None:
        self.signer = Signer(Secret(self.key))
        self.address = self.signer.address
        self.service = ServiceClient(self.world.service_url, api_key=self.world.api_key)
        self.venue = VenueClient(self.world.venue_url)
        self.journal = Journal(self.journal_path)
        self._trackers: list[StatusTracker] = []
        self.executor = self.make_executor()

    def make_executor(self, **overrides: Any) -> Executor:
        """An executor for this wallet; `overrides`: `confirm`, `rpc` (chain id -> URL; else
        the world's), `follower` (else a tracker of the kit's `tracking` policy, or
        `tracking=`), `reuse_reads_for` (the gateways'), and any `RunOptions` field."""
        confirm = overrides.pop("confirm", self.confirm)
        rpc = overrides.pop("rpc", self.world.rpc)
        policy = overrides.pop("tracking", self.tracking)
        follower = overrides.pop("follower", None)
        reuse_reads_for = overrides.pop("reuse_reads_for", 0.0)
        if follower is None:
            follower = StatusTracker(self.service, policy=policy, budget=RateBudget(50, burst=10))
            self._trackers.append(follower)
        options = {
            "signing_chain_id": self.signing_chain_id,
            "receipt_poll": 0.05,
            "service_name": self.world.brand.service_name,
            **overrides,
        }
        parts = Collaborators(
            self.service,
            self.venue,
            KeySigner(self.signer),
            GatewayPool(dict(rpc), reuse_reads_for=reuse_reads_for),
            self.journal,
            follower=follower,
        )
        return Executor(parts, confirm=confirm, options=RunOptions(**options))

    async def confirm(self, request: SignRequest) -> bool:
        """Record what was asked and answer `answer` (the user's confirm)."""
        self.asked.append(request)
        return self.answer

    async def aclose(self) -> None:
        await self.executor.aclose()
        for tracker in self._trackers:
            await tracker.aclose()
        await self.service.aclose()
        await self.venue.aclose()
        self.journal.close()

    # -- quoting ------------------------------------------------------------------------------

    async def quote(self, **fields: Any) -> tuple[Quote, QuoteRequest]:
        request = QuoteRequest.build(user=self.address, trade_type="EXACT_INPUT", **fields)
        return await self.service.quote(request), request

    @staticmethod
    def tampered(quote: Quote, change: Any) -> Quote:
        """A copy of `quote` with `change(wire_dict)` applied to its JSON."""
        wire = copy.deepcopy(quote.to_wire())
        change(wire)
        return Quote.from_wire(wire)

    # -- running ------------------------------------------------------------------------------

    async def run(self, quote: Quote, **options: Any) -> list[Event]:
        return [event async for event in self.executor.run(quote, **options)]

    async def resume(self, request_id: str) -> list[Event]:
        return [event async for event in self.executor.resume(request_id)]

    # -- balances -----------------------------------------------------------------------------

    async def native(self, chain_id: int, address: str) -> int:
        async with EvmGateway(self.world.rpc[chain_id], chain_id) as gateway:
            return await gateway.balance(address)

    async def usdc(self, chain_id: int, address: str) -> int:
        async with EvmGateway(self.world.rpc[chain_id], chain_id) as gateway:
            return await gateway.erc20_balance(usdc_address(self.world, chain_id), address)

    async def nonce(self, chain_id: int, address: str | None = None) -> int:
        async with EvmGateway(self.world.rpc[chain_id], chain_id) as gateway:
            return await gateway.nonce(address or self.address, "latest")

    async def withdrawable(self, address: str | None = None) -> Decimal:
        state = await self.venue.clearinghouse_state(address or self.address)
        return state.withdrawable


async def quote_native(
    kit: Kit, amount: int, recipient: str | None = None, **extra: Any
) -> tuple[Quote, QuoteRequest]:
    """A quote for `amount` wei of 8453's native coin to 999's native coin, paid to `recipient`
    (a fresh address unless given), with any other request field in `extra`."""
    return await kit.quote(
        origin_chain_id=8453,
        destination_chain_id=999,
        origin_currency=NATIVE,
        destination_currency=NATIVE,
        amount=str(amount),
        recipient=recipient or new_address(),
        **extra,
    )


async def native_quote(kit: Kit) -> tuple[Quote, QuoteRequest]:
    """The kit's wallet funded with 2 ETH on 8453 and a quote for 0.01 of it to 999 (native to
    native, to a fresh recipient)."""
    await fund(kit.world, kit.address, native={8453: 2 * ETH})
    return await quote_native(kit, ETH // 100)


def finished(events: list[Event]) -> Finished:
    last = events[-1]
    assert isinstance(last, Finished), f"run did not finish: {last.to_json()}"
    return last


def of_type(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


async def gas_paid(world: Any, chain_id: int, tx_hashes: list[str]) -> int:
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        total = 0
        for tx_hash in tx_hashes:
            receipt = await gateway.get_receipt(tx_hash)
            assert receipt is not None
            total += receipt.gas_used * receipt.effective_gas_price
        return total


CROSSDECK = str(Path(sys.executable).parent / "crossdeck")


def json_events(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """The JSON event lines of a `crossdeck ... --json` run (`Cli.run`)."""
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def final_status(done: subprocess.CompletedProcess[str]) -> str | None:
    """The status of the run's last Finished event (None when it never finished)."""
    finished = [e for e in json_events(done) if e.get("event") == "Finished"]
    return finished[-1].get("status") if finished else None


@dataclass
class Cli:
    """The CLI of one fresh wallet against the in-process world, isolated in `home`. With
    `demo_svm` its SVM wallet is the world's demo Solana keypair (funded on every SVM chain),
    beside the fresh EVM one: the Solana and Eclipse flows pay from it."""

    world: Any
    home: Path
    demo_svm: bool = False

    def __post_init__(self) -> None:
        self.key = new_key()
        self.address = Account.from_key(self.key).address
        info = dict(self.world.info)
        info["wallet"] = {"address": self.address, "private_key": self.key}
        if self.demo_svm:
            demo = self.world.info["wallet"]
            for field in ("solana_address", "solana_private_key"):
                info["wallet"][field] = demo[field]
        self.world_file = self.home / "world.json"
        self.world_file.write_text(json.dumps(info))
        (self.home / "config.toml").write_text("")

    def env(self, crash_at: str | None) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("CROSSDECK_") or k == "CROSSDECK_ANVIL"
        }
        env.update(
            CROSSDECK_CONFIG=str(self.home / "config.toml"),
            CROSSDECK_DATA_DIR=str(self.home / "data"),
            CROSSDECK_TRACKING__POLL_INTERVAL_SECONDS="0.05",
            CROSSDECK_TRACKING__POLL_INTERVAL_CAP_SECONDS="0.5",
            CROSSDECK_TRACKING__TIMEOUT_SECONDS="60",
        )
        if crash_at:
            env["CROSSDECK_CRASH_AT"] = crash_at
        return env

    def run(self, *args: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [CROSSDECK, "--world", str(self.world_file), *args],
            env=self.env(crash_at),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def bridge(self, *options: str, crash_at: str) -> subprocess.CompletedProcess[str]:
        return self.run("bridge", *options, "--yes", "--json", crash_at=crash_at)

    async def resume(self, *args: str) -> list[dict[str, Any]]:
        """`crossdeck resume --yes --json` (in this process, on a thread of its own: the CLI
        runs its own event loop); its JSON lines."""
        import asyncio

        done = await asyncio.to_thread(self.invoke, "resume", *args, "--yes", "--json")
        assert done.exit_code == 0, done.output
        return [json.loads(line) for line in done.stdout.splitlines()]

    def journal(self) -> Journal:
        return Journal.in_data_dir(self.home / "data")

    def invoke(self, *args: str, input: str | None = None, **env: str) -> Any:
        """The CLI in this process (click's runner): quicker than a subprocess."""
        from click.testing import CliRunner

        from crossdeck.cli import main

        environment: dict[str, str | None] = {
            k: None for k in os.environ if k.startswith("CROSSDECK_") and k != "CROSSDECK_ANVIL"
        }
        environment.update(self.env(None))
        environment.update(env)
        runner = CliRunner(env=environment)
        return runner.invoke(
            main, ["--world", str(self.world_file), *args], input=input, catch_exceptions=False
        )


@contextlib.asynccontextmanager
async def webhook_tracker(world: Any) -> AsyncIterator[Any]:
    """A `crossdeck.track.StatusTracker` fed by the world's webhooks (and polls): its `stream`
    is an Executor `follower` that sees every status, however briefly it lasts."""
    from crossdeck.api import NO_RETRY
    from crossdeck.track.policy import PollPolicy
    from crossdeck.track.receiver import WebhookReceiver
    from crossdeck.track.tracker import StatusTracker

    receiver = WebhookReceiver(world.api_key)
    await receiver.start()
    world.set_webhook(world.api_key, receiver.url)
    client = ServiceClient(world.service_url, api_key=world.api_key, retry=NO_RETRY)
    # polls are rare (the first at once, then every 5 s): in a quick flow every later status
    # arrives by webhook, in order
    policy = PollPolicy(
        fast=5.0, first=5.0, nudge_delay=5.0, active_cap=5.0, idle_cap=5.0, webhook_quiet=5.0,
        failure_settle=3.0, settle_interval=0.1,
    )  # fmt: skip
    tracker = StatusTracker(client, policy=policy)
    try:
        async with tracker:
            tracker.attach(receiver)
            yield tracker
    finally:
        await receiver.stop()
        await client.aclose()


def native_bridge(recipient: str, *extra: str) -> list[str]:
    """`bridge` of 0.1 ETH from 8453 to 999 for `recipient` (the CLI tests' usual move)."""
    return [
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", recipient, *extra,
    ]  # fmt: skip
