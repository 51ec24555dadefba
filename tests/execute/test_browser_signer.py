"""`crossdeck --browser`: the browser wallet in a real headless Chromium against the world.

crossdeck runs as its own process (`bridge --yes --json`), prints its page's URL on stderr,
and a test EIP-1193 wallet (`browser_wallet.InjectedWallet`) injected into that page signs with a
test key and sends to the world's chains. Covered: a native bridge, a USDC deposit with its
approve, a venue withdrawal (typed data on the wallet's active chain), a user who rejects in
the wallet, a wallet that sends another transaction, and a signature from another account;
and the page's own gate (token, Host, Origin) and its end with the run.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from execute_support import (
    CROSSDECK,
    ETH,
    PERPS_USDC,
    USDC,
    VENUE_UNIT,
    Cli,
    fund,
    native_bridge,
    new_address,
    new_key,
    usdc_address,
)

from crossdeck.base.exitcodes import ExitCode
from crossdeck.wallet.gateway import EvmGateway
from helpers.browser_wallet import InjectedWallet, chromium, open_with_wallet, read_url

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


@pytest.fixture
def wallet(world: Any) -> InjectedWallet:
    return InjectedWallet(new_key(), dict(world.rpc))


class Ran:
    def __init__(self, code: int, stdout: str, stderr: str, url: str, page_state: str) -> None:
        self.code, self.stdout, self.stderr, self.url = code, stdout, stderr, url
        self.page_state = page_state
        self.events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]

    def of(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == name]


async def in_browser(
    cli: Cli, wallet: InjectedWallet, *args: str, crash_at: str | None = None
) -> Ran:
    """`crossdeck --world W --browser --browser-disable-open ARGS` with the wallet's page open
    in headless Chromium until the process ends (`crash_at`: killed there)."""
    process = await asyncio.create_subprocess_exec(
        CROSSDECK, "--world", str(cli.world_file), "--browser", "--browser-disable-open", *args,
        env=cli.env(crash_at), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    seen: list[str] = []
    try:
        url = await asyncio.wait_for(read_url(process.stderr, seen), 60)
        async with chromium() as context:
            page = await open_with_wallet(context, url, wallet)
            rest = asyncio.create_task(process.stderr.read())
            stdout = await asyncio.wait_for(process.stdout.read(), 180)
            code = await asyncio.wait_for(process.wait(), 30)
            stderr = "".join(seen) + (await rest).decode()
            # the run is over: the page no longer serves, and says so
            await page.wait_for_function("document.body.dataset.state === 'closed'", timeout=30_000)
            state = await page.evaluate("document.body.dataset.state")
        return Ran(code, stdout.decode(), stderr, url, state)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def native(recipient: str, *extra: str) -> list[str]:
    return native_bridge(recipient, "--yes", "--json", *extra)


async def nonce(world: Any, address: str, chain_id: int = 8453) -> int:
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        return await gateway.nonce(address, "latest")


async def usdc_balance(world: Any, chain_id: int, address: str) -> int:
    async with EvmGateway(world.rpc[chain_id], chain_id) as gateway:
        return await gateway.erc20_balance(usdc_address(world, chain_id), address)


def token_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def assert_token_kept(ran: Ran) -> None:
    """The page's token is on stderr (for the user) and nowhere in --json."""
    token = token_of(ran.url)
    assert len(token) >= 40 and token in ran.stderr
    assert token not in ran.stdout


async def test_native_bridge_sent_by_the_browser_wallet(cli: Cli, wallet: InjectedWallet) -> None:
    world = cli.world
    await fund(world, wallet.address, native={8453: ETH // 5})
    recipient = new_address()
    ran = await in_browser(cli, wallet, *native(recipient))

    assert ran.code == 0, ran.stderr
    assert ran.url.startswith("http://127.0.0.1:")
    [quote] = ran.of("Quote")
    assert quote["signer"]["kind"] == "browser" and quote["signer"]["address"] == wallet.address
    [started] = ran.of("RunStarted")
    assert started["wallet"] == wallet.address  # the browser's account, not the world file's
    [sent] = ran.of("TxSent")
    assert wallet.sent == [sent["hash"]]
    assert "eth_sendTransaction" in wallet.calls
    assert ran.events[-1]["event"] == "Finished" and ran.events[-1]["status"] == "success"
    assert await nonce(world, wallet.address) == 1 and await nonce(world, cli.address) == 0
    # the hash the wallet returned is what the journal holds (no signed bytes: none were had)
    journal = cli.journal()
    [item] = journal.items(started["request_id"])
    assert item.tx_hash == sent["hash"] and item.raw_tx is None and item.state == "done"
    journal.close()
    assert_token_kept(ran)
    assert ran.page_state == "closed"


async def test_killed_after_the_wallet_sent_resume_finds_the_hash(
    cli: Cli, wallet: InjectedWallet
) -> None:
    world = cli.world
    await fund(world, wallet.address, native={8453: ETH // 5})
    killed = await in_browser(cli, wallet, *native(new_address()), crash_at="after-sign")
    assert killed.code == -9 and len(wallet.sent) == 1  # SIGKILL right after the journal write
    journal = cli.journal()
    [run] = journal.runs()
    [item] = journal.items(run.request_id)
    assert item.tx_hash == wallet.sent[0] and item.state == "signed"  # written before anything
    journal.close()

    calls_before = wallet.calls.count("eth_sendTransaction")
    resumed = await in_browser(cli, wallet, "resume", run.request_id, "--yes", "--json")

    assert resumed.code == 0, resumed.stderr
    assert wallet.calls.count("eth_sendTransaction") == calls_before  # never asked again
    notes = [e["message"] for e in resumed.of("Note")]
    assert any(f"transaction {wallet.sent[0]} the wallet sent is on chain 8453" in n for n in notes)
    assert resumed.events[-1]["status"] == "success"
    assert await nonce(world, wallet.address) == 1


async def test_usdc_deposit_with_its_approve(cli: Cli, wallet: InjectedWallet) -> None:
    world = cli.world
    await fund(world, wallet.address, native={8453: ETH // 20}, usdc={8453: 100 * USDC})
    wallet.chain_id = 999  # the wallet is elsewhere: the page switches it to 8453 first
    ran = await in_browser(
        cli, wallet,
        "bridge", "--origin-chain", "8453", "--origin-currency", usdc_address(world, 8453),
        "--destination-chain", "1337", "--destination-currency", PERPS_USDC,
        "--amount", str(40 * USDC), "--yes", "--json",
    )  # fmt: skip

    assert ran.code == 0, ran.stderr
    assert [e["step_id"] for e in ran.of("TxConfirmed")] == ["approve", "deposit"]
    assert wallet.sent == [e["hash"] for e in ran.of("TxSent")]
    assert await usdc_balance(world, 8453, wallet.address) == 60 * USDC
    assert ran.events[-1]["status"] == "success"
    assert wallet.calls.count("wallet_switchEthereumChain") == 1 and wallet.chain_id == 8453


async def withdraw(cli: Cli, wallet: InjectedWallet) -> tuple[Ran, str]:
    await fund(cli.world, wallet.address, venue_perps=100 * VENUE_UNIT)
    recipient = new_address()
    ran = await in_browser(
        cli, wallet,
        "bridge", "--origin-chain", "1337", "--origin-currency", PERPS_USDC,
        "--destination-chain", "8453", "--destination-currency", usdc_address(cli.world, 8453),
        "--amount", str(25 * VENUE_UNIT), "--recipient", recipient,
        "--protocol-version", "v2", "--yes", "--json",
    )  # fmt: skip
    return ran, recipient


async def test_venue_withdrawal_signed_on_the_wallets_chain(
    cli: Cli, wallet: InjectedWallet
) -> None:
    ran, recipient = await withdraw(cli, wallet)

    assert ran.code == 0, ran.stderr
    assert wallet.calls.count("eth_signTypedData_v4") == 2
    asked = [e["what"] for e in ran.of("AwaitingSignature")]
    assert [a["kind"] for a in asked] == ["typed_data", "venue_action"]
    # the domains name the chain the wallet is on (8453), as the 4.4 override allows
    assert asked[0]["payload"]["domain"]["chainId"] == 8453
    assert asked[1]["payload"]["message"]["signatureChainId"] == hex(8453)
    assert ran.events[-1]["status"] == "success"
    assert await usdc_balance(cli.world, 8453, recipient) > 0
    assert "eth_sendTransaction" not in wallet.calls


async def test_rejected_in_the_wallet_sends_nothing(cli: Cli, wallet: InjectedWallet) -> None:
    await fund(cli.world, wallet.address, native={8453: ETH // 5})
    wallet.behaviour = "reject-tx"
    ran = await in_browser(cli, wallet, *native(new_address()))

    assert ran.code == ExitCode.ABORTED, ran.stderr
    [failed] = ran.of("Failed")
    assert "declined: you rejected the transaction" in failed["error"]
    assert wallet.sent == [] and await nonce(cli.world, wallet.address) == 0


async def test_a_wallet_that_sends_another_transaction_stops_the_run(
    cli: Cli, wallet: InjectedWallet
) -> None:
    await fund(cli.world, wallet.address, native={8453: ETH // 5})
    wallet.behaviour = "other-tx"
    ran = await in_browser(cli, wallet, *native(new_address()))

    assert ran.code == ExitCode.FAILED, ran.stderr
    [failed] = ran.of("Failed")
    [sent_hash] = wallet.sent
    assert (
        f"the wallet sent {sent_hash}, which is not the transaction crossdeck checked"
        in (failed["error"])
    )
    assert f"value {ETH // 10 + 1} instead of {ETH // 10}" in failed["error"]
    assert not ran.of("TxConfirmed")
    # journalled at once: resume knows the hash and will not ask for another
    journal = cli.journal()
    [run] = journal.runs()
    [item] = journal.items(run.request_id)
    assert item.tx_hash == sent_hash and item.state == "sent"
    journal.close()


async def test_a_signature_from_another_account_is_not_posted(
    cli: Cli, wallet: InjectedWallet
) -> None:
    wallet.behaviour = "other-signer"
    other = InjectedWallet(wallet.other_key, {}).address
    ran, recipient = await withdraw(cli, wallet)

    assert ran.code == ExitCode.FAILED, ran.stderr
    [failed] = ran.of("Failed")
    assert f"the signature recovers to {other}, not {wallet.address}" in failed["error"]
    assert not ran.of("Posted") and not ran.of("VenueSubmitted")
    assert await usdc_balance(cli.world, 8453, recipient) == 0
    assert cli.world.ledger.withdrawable(wallet.address) == 100 * VENUE_UNIT


async def test_the_page_is_refused_without_its_token_origin_or_host(cli: Cli) -> None:
    process = await asyncio.create_subprocess_exec(
        CROSSDECK, "--world", str(cli.world_file), "--browser", "--browser-disable-open",
        *native(new_address()),
        env=cli.env(None), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    try:
        url = await asyncio.wait_for(read_url(process.stderr, []), 60)
        origin = url.rsplit("/", 1)[0]
        token = token_of(url)
        async with httpx.AsyncClient() as client:
            page = await client.get(url)
            assert page.status_code == 200 and "crossdeck" in page.text
            assert "no-referrer" in page.headers["Referrer-Policy"]
            assert "script-src 'nonce-" in page.headers["Content-Security-Policy"]
            assert (await client.get(origin + "/")).status_code in (403, 404)
            assert (await client.get(origin + "/" + token[:-1] + "x")).status_code == 403
            assert (await client.get(url, headers={"Host": "localhost"})).status_code == 403
            assert (
                await client.get(url, headers={"Origin": "http://evil.test"})
            ).status_code == 403
            call = url + "/api/connected"
            body = {"accounts": [new_address()], "chainId": "0x2105"}
            evil = await client.post(call, json=body, headers={"Origin": "http://evil.test"})
            assert evil.status_code == 403
            bare = await client.post(call, json=body)  # no Origin: not the page
            assert bare.status_code == 403
        assert process.returncode is None  # nothing connected: still waiting
    finally:
        process.kill()
        await process.wait()
