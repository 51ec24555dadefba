"""`crossdeck recover` end to end on the world's wrong-token case: USDC sent to an open deposit
address quoted for ETH is not noticed (the monitor watches the quoted currency only), the
request stays `waiting`; recover says what the service offers, reindexes once confirmed, and
the USDC comes back to refundTo (`refund`, INCORRECT_DEPOSIT_CURRENCY)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main

from .byhand import NATIVE, request_id, step
from .conftest import Flow

ETH = 10**18
USDC = 10**6


@pytest.fixture
def cli_env(flow: Flow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world_file = tmp_path / "world.json"
    world_file.write_text(json.dumps(flow.world.info))
    (tmp_path / "config.toml").write_text("")
    monkeypatch.setenv("CROSSDECK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("CROSSDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CROSSDECK_WORLD", str(world_file))
    monkeypatch.delenv("CROSSDECK_PROFILE", raising=False)


def test_recover_reindexes_a_deposit_address_paid_in_the_wrong_token(
    flow: Flow, cli_env: None
) -> None:
    hand = flow.hand
    user = hand.fresh_account(native=ETH, usdc={8453: 10 * USDC})
    refund_to = hand.new_address()
    quote = hand.quote(
        {
            "user": user.address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(ETH // 10),
            "tradeType": "EXACT_INPUT",
            "refundTo": refund_to,
            "useDepositAddress": True,
        }
    )
    rid = request_id(quote)
    address = step(quote, "deposit")["depositAddress"]
    hand.rpc[8453].erc20_transfer(user, hand.usdc[8453], address, 7 * USDC)  # USDC, not ETH
    time.sleep(1.5)  # the solver has seen the block: it does not act on another currency
    assert hand.status(rid)["status"] == "waiting"

    runner = CliRunner()
    declined = runner.invoke(main, ["recover", rid], input="n\n")
    assert declined.exit_code == ExitCode.ABORTED, declined.output
    assert f"deposit address {address}" in declined.output
    assert f"refunds go to {refund_to}" in declined.output
    assert hand.status(rid)["status"] == "waiting"  # nothing was asked

    done = runner.invoke(main, ["recover", rid, "--yes"])
    assert done.exit_code == ExitCode.OK, done.output
    assert "found 7000000 (smallest unit) of USDC" in done.output

    final = hand.wait_final(rid)
    assert final["status"] == "refund"
    assert final["failReason"] == "INCORRECT_DEPOSIT_CURRENCY"
    assert hand.rpc[8453].erc20_balance(hand.usdc[8453], refund_to) == 7 * USDC

    again = runner.invoke(main, ["recover", rid, "--json"])
    assert again.exit_code == ExitCode.OK, again.output
    said = json.loads(again.stdout)
    assert said["status"] == "refund" and said["offer"] is None
    assert said["failReason"] == "INCORRECT_DEPOSIT_CURRENCY"


def test_recover_of_an_unknown_request_is_a_clear_error(flow: Flow, cli_env: None) -> None:
    result = CliRunner().invoke(main, ["recover", "0x" + "12" * 32, "--yes"])
    assert result.exit_code == ExitCode.SERVICE_ERROR, result.output
    assert "Traceback" not in result.output
    bad = CliRunner().invoke(main, ["recover", "not-an-id"])
    assert bad.exit_code == ExitCode.INVALID_INPUT
