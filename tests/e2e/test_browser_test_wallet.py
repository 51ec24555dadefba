"""The browser signer tried with no wallet extension, exactly as docs/browser-wallet-demo.md says:
`crossdeck sim serve --world-file W`, then `crossdeck --world W --browser --browser-disable-open
bridge ...` (out of the venue) prints its page's URL, and `tests/helpers/browser_wallet.py
--world W URL` opens it in headless Chromium (Debian's) with the world's demo wallet injected as
an EIP-1193 provider. Each signature the page got from the test wallet recovers to that wallet,
crossdeck posts them and the withdrawal completes against the world: the venue's book and Base's
USDC (read from the venue's /info and the chain's RPC) moved by the amount."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from world_truth import BASE, World

from helpers.served_world import run_with_test_wallet, world_served

AMOUNT = 25  # USDC
pytestmark = pytest.mark.timeout(400)


def test_the_demo_wallet_signs_a_venue_withdrawal_in_headless_chromium(tmp_path: Path) -> None:
    with world_served(tmp_path) as (world_file, info):
        world = World(info["service_url"], info["venue_url"], {BASE: info["rpc"][str(BASE)]})
        wallet = info["wallet"]["address"]
        usdc = world.usdc(BASE)
        perps_before, usdc_before = (
            world.perps_withdrawable(wallet),
            world.erc20(BASE, usdc, wallet),
        )

        run = run_with_test_wallet(
            tmp_path, world_file,
            "bridge", "--origin-chain", "1337", "--origin-currency", "perps:USDC",
            "--destination-chain", str(BASE), "--destination-currency", "USDC",
            "--amount-human", str(AMOUNT), "--yes", "--json",
        )  # fmt: skip
        moved = world_moved(world, wallet, usdc, perps_before, usdc_before)

    tried = run.wallet
    assert tried.returncode == 0, tried.stdout + tried.stderr
    assert run.code == 0, run.said
    events = [json.loads(line) for line in run.out.splitlines() if line.startswith("{")]
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success", events[-1]
    [quote] = [e for e in events if e["event"] == "Quote"]
    assert quote["signer"]["kind"] == "browser" and quote["signer"]["address"] == wallet

    # what the test wallet signed, as it told: every signature is the wallet's own
    answered = [json.loads(line) for line in tried.stdout.splitlines() if line.startswith("{")]
    typed = [a for a in answered if a["method"] == "eth_signTypedData_v4"]
    assert typed and all("result" in a for a in typed), answered
    for answer in typed:
        signable = encode_typed_data(full_message=json.loads(answer["params"][1]))
        assert Account.recover_message(signable, signature=answer["result"]) == wallet
    # crossdeck took each of them (it recovers them to the connected account before posting)
    assert len([e for e in events if e["event"] == "Signed"]) == len(typed)
    assert [e for e in events if e["event"] in ("Posted", "VenueSubmitted")]
    assert "the page says crossdeck's run is over" in tried.stdout
    # the page's token stays on crossdeck's side
    assert run.url.rsplit("/", 1)[1] not in tried.stdout

    # the world moved the money: out of the venue's perps book, into Base's USDC
    assert moved


def world_moved(world: World, wallet: str, usdc: str, perps: int, base_usdc: int) -> bool:
    """The venue's book fell by at least the amount, and Base's USDC rose (less the fees)."""
    return (
        world.perps_withdrawable(wallet) <= perps - AMOUNT * 10**8
        and world.erc20(BASE, usdc, wallet) > base_usdc
    )
