"""`crossdeck bridge` and `crossdeck resume`: what they show, what they ask, and the exit code of
each outcome (success, refund, guard refusal, declined, timeout, bad input)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, NATIVE, Cli, fund, new_address, send_from_demo
from execute_support import native_bridge as native

from crossdeck.base.exitcodes import ExitCode


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


def nonce(cli: Cli) -> int:
    from crossdeck.wallet.gateway import EvmGateway

    async def read() -> int:
        async with EvmGateway(cli.world.rpc[8453], 8453) as gateway:
            return await gateway.nonce(cli.address, "latest")

    return asyncio.run(read())


def test_bridge_shows_asks_executes_and_tracks(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    recipient = new_address()
    result = cli.invoke(*native(recipient), input="y\n")

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Quote for request 0x" in out and "Steps" in out
    assert "guards: all" in out and "checks passed" in out
    # every guard is listed with what it checked, in words
    assert "  tx-payment: ok [step 'deposit' item 0]: deposit 0.1 ETH into the depository" in out
    assert "  request-amount: ok: sends exactly the 0.1 ETH you asked to send" in out
    assert "Checks       all" in out and "pre-sign checks passed" in out
    assert "Execute this quote?" in result.output
    assert "Send a transaction on chain 8453 (step deposit)" in out
    # what is signed, readable: amounts in units beside the integer, the calldata decoded
    flat = " ".join(out.split())
    assert f"you pay 0.1 ETH ({ETH // 10}) on " in flat
    assert f"value 0.1 ETH ({ETH // 10} wei)" in flat
    assert f"call deposit 0.1 ETH ({ETH // 10} wei) into the depository 0x" in flat
    assert f"for depositor {cli.address}, order 0x" in flat and "selector" not in flat
    assert re.search(r"\$[0-9,]+\.[0-9]{2}\b", out) and not re.search(r"\$[0-9]+\.[0-9]{3}", out)
    # the end says what came back, read from the final record: amounts in units and USD,
    # fees in words, a link per transaction from /chains' explorers
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("finished: success"))
    came = lines[at + 1 :]
    assert came[0].startswith("  sent 0.1 ETH, $"), came
    assert re.fullmatch(r"  received [0-9][0-9,.]* [A-Za-z]+, \$[0-9,]+\.[0-9]{2}", came[1]), came
    assert came[2].startswith("  fees: ") and "fees.quoted" not in out, came
    assert re.fullmatch(r"  paid on .+: https://\S+/tx/0x[0-9a-f]{64}", came[3]), came
    assert re.fullmatch(r"  filled on .+: https://\S+/tx/0x[0-9a-f]{64}", came[4]), came
    assert nonce(cli) == 1
    assert cli.key[2:] not in result.output  # the key never shows


def test_declined_at_the_prompt_signs_nothing(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke(*native(new_address()), input="n\n")

    assert result.exit_code == ExitCode.ABORTED
    assert "declined: nothing was signed" in result.output
    assert "executing request" not in result.output
    assert nonce(cli) == 0


def test_json_lines_and_refund_exit_code(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    refund_to = new_address()
    result = cli.invoke(
        *native(new_address(), "--refund-to", refund_to, "--referrer", "demo:fail", "--yes"),
        "--json",
        CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS="10",
    )

    assert result.exit_code == ExitCode.REFUNDED, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["event"] == "Quote"
    events = [line["event"] for line in lines[1:]]
    assert events[:3] == ["GuardsChecked", "RunStarted", "StepStarted"]
    assert "TxSent" in events and "TxConfirmed" in events
    statuses = [line["status"] for line in lines if line["event"] == "StatusChanged"]
    assert statuses[-1] == "refund"
    # what will be signed, as the describer's structured lines
    [asked] = [line["what"] for line in lines if line["event"] == "AwaitingConfirmation"]
    call = next(line for line in asked["lines"] if line["label"] == "call")
    assert set(call) == {"label", "value", "raw", "kind"} and call["value"].startswith("deposit ")
    last = lines[-1]
    assert last["event"] == "Finished" and last["fail_reason"] == "TRANSFER_FAILED"
    # what came back, read from the refund's transaction: on the origin chain, to refundTo
    refund = last["refund"]
    assert refund["chainId"] == 8453 and refund["currency"] == NATIVE
    assert refund["txHash"] in last["tx_hashes"] and refund["to"] == refund_to
    assert 0 < int(refund["amount"]) <= ETH // 10 and refund["symbol"] == "ETH"
    assert cli.key[2:] not in result.output

    # and in words without --json
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke(
        *native(new_address(), "--refund-to", refund_to, "--referrer", "demo:fail", "--yes"),
        CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS="10",
    )
    assert result.exit_code == ExitCode.REFUNDED, result.output
    words = r"([0-9.]+) ETH \(([0-9]+)\) refunded on chain 8453 to (0x\w+), tx"
    said = re.search(words, result.stdout)
    assert said is not None, result.stdout
    assert said.group(3) == refund_to and int(said.group(2)) > 0


def test_rpc_of_another_chain_exits_guard_refused(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke(*native(new_address(), "--yes"), CROSSDECK_RPC__8453=cli.world.rpc[999])

    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    assert "rpc-chain-id" in result.output and "serves chain 999" in result.output
    assert nonce(cli) == 0


@pytest.fixture
def status_down(world: Any) -> Iterator[Any]:
    world.faults.inject("503", 10_000, path="/intents/status")
    yield world
    world.faults.clear()


def test_timeout_exit_code_then_resume_finishes(cli: Cli, status_down: Any) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke(
        *native(new_address(), "--yes", "--timeout", "0.5"), CROSSDECK_SERVICE__MAX_RETRIES="0"
    )
    assert result.exit_code == ExitCode.TIMEOUT, result.output
    assert "no final status after 0.5s" in result.output

    status_down.faults.clear()
    listed = cli.invoke("resume", "--list", "--json")
    [run] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert run["state"] == "tracking"
    resumed = cli.invoke("resume", "--yes")
    assert resumed.exit_code == 0, resumed.output
    assert "resuming request" in resumed.stdout and "finished: success" in resumed.stdout
    assert "skipped, already done" in resumed.stdout
    assert nonce(cli) == 1


def test_bad_input_exits_before_any_request(cli: Cli) -> None:
    other = new_address()
    result = cli.invoke(*native(new_address(), "--user", other, "--yes"))
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert f"--user {other} is not this profile's wallet" in result.output

    result = cli.invoke(*native(new_address(), "--deposit-amount", "5", "--yes"))
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "--deposit-amount applies with --use-deposit-address only" in result.output

    result = cli.invoke("resume")
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "no unfinished run" in result.output


def test_deposit_address_amount_from_the_cli(cli: Cli) -> None:
    asyncio.run(send_from_demo(cli.world, 8453, {"to": cli.address, "value": ETH}))
    recipient, refund_to = new_address(), new_address()
    paid = ETH // 20  # half the quoted amount: a strict address refunds it all
    result = cli.invoke(
        *native(recipient, "--use-deposit-address", "--strict", "--refund-to", refund_to),
        "--deposit-amount",
        str(paid),
        "--yes",
    )
    assert result.exit_code == ExitCode.REFUNDED, result.output
    assert f"Deposit      sending {paid} instead of the quoted amount" in result.stdout
    assert "deposit address 0x" in result.stdout and ": strict, refunds go to" in result.stdout
    assert "NOTE" in result.stdout and "sending 0.05 ETH (50000000000000000 wei)" in result.stdout


def _journal_without_request(cli: Cli) -> str:
    """A run journalled with its quote but not the request it answers (as runs were before
    requests were journalled); its request id."""
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    quoted = cli.invoke("quote", *native(new_address())[1:], "--json")
    assert quoted.exit_code == 0, quoted.output
    wire = json.loads(quoted.stdout)
    request_id = wire["steps"][0]["requestId"]
    with cli.journal() as journal:
        journal.start_run(request_id, wallet=cli.address, quote=wire, options={})
    return request_id


def test_resume_without_a_request_needs_trust_quote(cli: Cli) -> None:
    request_id = _journal_without_request(cli)
    refused = cli.invoke("resume", request_id, "--yes", "--json")
    assert refused.exit_code == ExitCode.GUARD_REFUSED, refused.output
    assert "pass --trust-quote" in refused.output
    assert nonce(cli) == 0

    trusted = cli.invoke("resume", request_id, "--yes", "--json", "--trust-quote")
    assert trusted.exit_code == 0, trusted.output
    events = [json.loads(line) for line in trusted.stdout.splitlines()]
    [checked] = [e for e in events if e["event"] == "GuardsChecked"]
    assert any("you chose --trust-quote" in r["message"] for r in checked["results"])
    assert nonce(cli) == 1


def test_the_fee_cap_multiple_setting_reaches_the_executor(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    # at 1x, the quote's max fee (above base fee plus tip, as every wallet sets it) is refused
    result = cli.invoke(
        *native(new_address(), "--yes", "--json"), CROSSDECK_GUARDS__FEE_CAP_MULTIPLE="1"
    )
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    assert "the limit is 1x" in result.output
    assert nonce(cli) == 0


def test_the_gas_limit_multiple_setting_reaches_the_executor(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    # at 1x, the quote's gas limit (a margin above what the deposit uses) is refused, before
    # anything is signed, with the limit and the node's estimate
    result = cli.invoke(
        *native(new_address(), "--yes", "--json"), CROSSDECK_GUARDS__GAS_LIMIT_MULTIPLE="1"
    )
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output
    assert "gas-limit" in result.output and "(eth_estimateGas); the limit is 1x" in result.output
    assert nonce(cli) == 0


def test_quote_runs_the_guards_bridge_runs_and_checks_the_wallet(cli: Cli) -> None:
    # 0.05 ETH held for a 0.1 ETH transfer: shown with the quote, in ETH, before any signature
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH // 20}))
    result = cli.invoke("quote", *native(new_address())[1:])
    assert result.exit_code == ExitCode.GUARD_REFUSED, result.output  # the verdict leads
    out = result.stdout
    assert out.startswith("Verdict      NOT AFFORDABLE: it needs 0.1 ETH plus up to "), out
    assert "Checks       1 of " in out and "FAILED: bridge would refuse this quote" in out
    assert "  funds: FAILED: it needs 0.1 ETH plus up to " in out
    assert "but the wallet holds 0.05 ETH" in out
    assert "  request-amount: ok: sends exactly the 0.1 ETH you asked to send" in out

    bridged = cli.invoke(*native(new_address(), "--yes"))
    assert bridged.exit_code == ExitCode.GUARD_REFUSED, bridged.output
    assert "funds: FAILED" in bridged.output
    assert nonce(cli) == 0

    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke("quote", *native(new_address())[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Verdict      affordable: the wallet holds 1.05 ETH")
    assert "Checks       all " in result.stdout, result.output
    assert "  funds: ok: the wallet holds 1.05 ETH on chain 8453" in result.stdout


def test_dollar_options_buy_dollars_and_an_amount_of_zero_is_refused(cli: Cli) -> None:
    """`--topup-gas-amount 2` buys about $2 of gas on arrival, as the app's "2" does, and the
    quote says the dollars back; `--amount 0` never reaches the service (exit 3)."""
    route = [
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", "USDC",
        "--amount", str(ETH // 10),
    ]  # fmt: skip
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    result = cli.invoke("quote", *route, "--topup-gas", "--topup-gas-amount", "2", "--json")
    assert result.exit_code == 0, result.output
    quote = json.loads(result.stdout)
    topup = quote["details"]["currencyGasTopup"]
    assert 1.9 <= float(topup["amountUsd"]) <= 2.1, topup
    assert int(topup["amount"]) > 0 and topup["currency"]["symbol"] == "HYPE"
    said = cli.invoke("quote", *route, "--topup-gas", "--topup-gas-amount", "2")
    assert "gas on arrival $2 asked" in " ".join(said.stdout.split()), said.stdout

    zero = cli.invoke("quote", *route[:-1], "0")
    assert zero.exit_code == ExitCode.INVALID_INPUT, zero.output
    assert "--amount: 0 moves nothing" in zero.output
