"""`crossdeck demo` without the app: the walkthrough really executes a venue deposit and a
withdrawal against an in-process world and prints each step and status."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from crossdeck.cli import main
from crossdeck.cli.commands import sim as sim_commands


def test_demo_walkthrough_executes_a_deposit_and_a_withdrawal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sim_commands, "_app_available", lambda: False)
    result = CliRunner().invoke(main, ["demo", "--speed", "0", "--no-keep-running"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "== 1. Deposit 25 USDC" in out and "== 2. Withdraw 10 perps USDC" in out
    assert "[approve] sign a transaction on chain 8453" in out
    assert "[authorize] sign EIP-712 NonceMapping in domain ServiceNonceMapping" in out
    assert "[deposit] sign EIP-712 VenueTransaction:SendAsset in domain VenueSignTransaction" in out
    assert out.count("status: success") == 2
    assert "venue withdrawable: 50000.0 -> 50024.9375 USDC" in out
    assert "USDC on chain 8453: 99975.000000 -> 99984.975000" in out
