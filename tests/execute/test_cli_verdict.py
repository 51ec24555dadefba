"""The command line a trader reads at a glance (issue 35 point 8): `quote` leads with its
verdict and exits 7 when a pre-sign check already fails; `bridge` repeats the one-line pay /
get / fees summary right above its question; `status` says the service's words; a closed
pipe ends the output quietly."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, Cli, fund, new_address
from execute_support import native_bridge as native

from crossdeck.base.exitcodes import ExitCode

CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


def test_quote_leads_with_the_verdict_and_the_summary(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke("quote", *native(new_address())[1:])
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()[:2]
    assert first.startswith("Verdict      affordable: the wallet holds 1 ETH on chain 8453")
    assert first.endswith("pre-sign checks pass")
    # pay, get and fees in one line, as a wallet shows amounts (no 18-digit tails)
    said = re.fullmatch(
        r"Summary      pay 0\.1 ETH on \S+ \(\$[0-9,]+\.\d\d\) · get ([0-9.,]+) HYPE on \S+ "
        r"\(\$[0-9,]+\.\d\d\) · fees \$[0-9,]+\.\d\d \((.+)\)",
        second,
    )
    assert said is not None, second
    assert len(said.group(1).replace(",", "").replace(".", "").lstrip("0")) <= 6
    assert "relayer $" in said.group(2)


def test_an_unaffordable_quote_says_so_first_and_exits_7(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH // 20}))
    result = cli.invoke("quote", *native(new_address())[1:])
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("Verdict      NOT AFFORDABLE: it needs 0.1 ETH plus up to ")
    assert "but the wallet holds 0.05 ETH" in first and first.endswith("(exit 7)")
    # --json stays the contract's answer for scripts, with no checks run
    assert cli.invoke("quote", *native(new_address())[1:], "--json").exit_code == 0


def test_the_confirm_repeats_the_summary_right_above_the_question(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke(*native(new_address()), input="n\n")
    assert result.exit_code == ExitCode.ABORTED, result.output
    lines = result.output.splitlines()
    [asked] = [i for i, line in enumerate(lines) if "Execute this quote?" in line]
    assert lines[asked - 1].startswith("pay 0.1 ETH on "), lines[asked - 3 : asked + 1]
    assert " · get " in lines[asked - 1] and " · fees $" in lines[asked - 1]


def test_status_says_refund_as_v3_does(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    run = cli.invoke(
        *native(new_address(), "--referrer", "demo:fail", "--yes"),
        CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS="10",
    )
    assert run.exit_code == ExitCode.REFUNDED, run.output
    request_id = re.search(r"request (0x[0-9a-f]{64})", run.stdout).group(1)  # type: ignore[union-attr]

    v3 = cli.invoke("status", request_id, "--v3")
    older = cli.invoke("status", request_id)
    assert v3.exit_code == 0 and older.exit_code == 0, (v3.output, older.output)
    assert "status    refund (final)" in v3.stdout
    assert "status    refund (final; the older /intents/status calls it fallback)" in older.stdout
    assert "status    fallback" not in older.stdout
    # --json keeps the endpoint's own wire word
    assert '"status":"fallback"' in cli.invoke("status", request_id, "--json").stdout


def test_a_closed_pipe_ends_quietly(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH, 999: ETH}))
    env = {k: v for k, v in cli.env(None).items() if k != "PYTHONWARNINGS"}

    def piped(reader: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            f"'{CROSSDECK}' --world '{cli.world_file}' balances | {reader}; "
            'echo "exit ${PIPESTATUS[0]}"',
            shell=True,
            executable="/bin/bash",
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    head = piped("head -2")
    lines = head.stdout.splitlines()
    assert lines[0].startswith("Portfolio of ") and lines[-1] == "exit 0", head
    assert head.stderr == "", head.stderr
    # a reader gone before the first line (`head -n 0` reads nothing): the same quiet end
    gone = piped("head -n 0")
    assert gone.stdout == "exit 0\n" and gone.stderr == "", gone
