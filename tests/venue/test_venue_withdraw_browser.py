"""`crossdeck --browser venue withdraw --max` against the world: the browser wallet's address is
known only once its page connects, so the command connects it first (one page, one connection),
reads that account's book and first-send fee for the Max, and signs the withdrawal there. The
page is driven by the headless test wallet (tests/helpers/browser_wallet.py, Debian's Chromium);
the venue's /info and Base's RPC say the money moved."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from helpers.served_world import run_with_test_wallet, world_served

BASE = 8453
pytestmark = pytest.mark.timeout(400)


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def perps_withdrawable(venue: str, wallet: str) -> int:
    """The venue's own word on the perps book, in its smallest unit (8 decimals)."""
    state = _post(f"{venue}/info", {"type": "clearinghouseState", "user": wallet})
    return int(Decimal(state["withdrawable"]).scaleb(8))


def withdraw_in_browser(
    home: Path, *withdraw: str
) -> tuple[subprocess.CompletedProcess[str], int, str, str, str, int, int]:
    """`crossdeck --browser venue withdraw WITHDRAW --yes --json` against a served world, its
    page answered by the headless test wallet: (the wallet's run, crossdeck's exit code,
    stdout, stderr, the wallet address, its perps book before and after)."""
    with world_served(home) as (world_file, info):
        wallet, venue = info["wallet"]["address"], info["venue_url"]
        before = perps_withdrawable(venue, wallet)
        run = run_with_test_wallet(
            home, world_file,
            "venue", "withdraw", "--to-chain", str(BASE), *withdraw, "--yes", "--json",
        )  # fmt: skip
        after = perps_withdrawable(venue, wallet)
    return run.wallet, run.code, run.out, run.said, wallet, before, after


def test_a_browser_wallet_withdraws_its_max_from_the_venue(tmp_path: Path) -> None:
    tried, code, out, said, wallet, before, after = withdraw_in_browser(tmp_path, "--max")
    assert tried.returncode == 0, tried.stdout + tried.stderr
    assert code == 0, said
    assert "known only once it connects" not in said
    # the Max was read from the connected wallet's own account: its book less the fee
    # (as a wallet writes them, thousands separated: the world's round figures lose no digit)
    number = r"([\d,.]+)"
    match = re.search(rf"withdrawing {number} USDC from perps .*first-send fee {number} USDC", said)
    assert match, said
    amount, fee = (int(Decimal(x.replace(",", "")).scaleb(8)) for x in match.groups())
    assert amount == before - fee > 0
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    [quote] = [e for e in events if e["event"] == "Quote"]
    assert quote["signer"] == quote["signer"] | {"kind": "browser", "address": wallet}
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success", events[-1]
    assert "the page says crossdeck's run is over" in tried.stdout
    # the venue's book gave up the whole Max (and at most the fee besides)
    assert after <= before - amount


def test_a_short_book_is_topped_up_through_the_same_connection(tmp_path: Path) -> None:
    """All of spot (the world's wallet holds 10,000 USDC there): the first-send fee does not
    fit, so the move of it from perps is signed in the same connected page (one URL), then
    the withdrawal."""
    tried, code, out, said, _, before, after = withdraw_in_browser(
        tmp_path, "--from", "spot", "--amount-human", "10000"
    )
    assert tried.returncode == 0, tried.stdout + tried.stderr
    assert code == 0, said
    assert said.count("browser wallet: open ") == 1
    assert re.search(r"moved [\d,.]+ USDC from perps to spot", said), said
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert events[-1]["event"] == "Finished" and events[-1]["status"] == "success", events[-1]
    answered = [json.loads(line) for line in tried.stdout.splitlines() if line.startswith("{")]
    signed = [a for a in answered if a["method"] == "eth_signTypedData_v4" and "result" in a]
    assert len(signed) >= 2, answered  # the move between books, then the withdrawal
    assert after < before  # perps paid the move
