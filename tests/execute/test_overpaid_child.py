"""A strict deposit address paid too much: the quote is filled and the world refunds the excess
as a child request. The run's end names that child (id, kind, amount with its unit, status),
in the text and in the `--json` `Finished` line; an exact payment names none."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, NATIVE, Cli, new_address, send_from_demo


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    made = Cli(world, tmp_path)
    asyncio.run(send_from_demo(world, 8453, {"to": made.address, "value": ETH}))
    return made


def strict(deposit: int | None, *extra: str) -> list[str]:
    amount = ["--deposit-amount", str(deposit)] if deposit is not None else []
    return [
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", new_address(),
        "--use-deposit-address", "--strict", "--refund-to", new_address(),
        *amount, "--yes", *extra,
    ]  # fmt: skip


def test_the_excess_child_is_named_in_json(cli: Cli, world: Any) -> None:
    excess = ETH // 20
    result = cli.invoke(*strict(ETH // 10 + excess, "--json"))
    assert result.exit_code == 0, result.output
    [finished] = [
        e for e in map(json.loads, result.stdout.splitlines()) if e["event"] == "Finished"
    ]
    assert finished["status"] == "success"
    [child] = finished["children"]
    assert child["kind"] in ("refund", "child")  # v2 records say 'refund', v3 ones no kind
    assert child["status"] == "refund"
    # a digit string, as the refund's amount is: exact in any JSON reader
    assert child["amount"] == str(excess) and child["amount_text"] == "0.05 ETH"
    assert child["request_id"] != finished["request_id"]
    assert finished["children_note"] is None
    # it is the world's child of this request, refunded on chain
    record = world.state.get(child["request_id"])
    assert record.amount_in == excess and record.status == "refund"


def test_the_excess_child_is_named_in_words(cli: Cli) -> None:
    result = cli.invoke(*strict(ETH // 10 + ETH // 50))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("finished: success"))
    # the child is the first thing said after the outcome (what came back follows it)
    assert lines[at + 1].startswith("  child request 0x"), lines[at:]
    assert lines[at + 1].endswith(": 0.02 ETH, refund")


def test_an_exact_payment_names_no_child(cli: Cli) -> None:
    result = cli.invoke(*strict(None, "--json"))
    assert result.exit_code == 0, result.output
    [finished] = [
        e for e in map(json.loads, result.stdout.splitlines()) if e["event"] == "Finished"
    ]
    assert finished["children"] == [] and finished["children_note"] is None


def test_a_child_still_open_at_the_end_says_how_to_follow_it() -> None:
    from crossdeck.execute.events import ChildRequest

    child = ChildRequest("0xc1", "refund", "pending", 5, "0.000000000000000005 ETH")
    assert child.words().endswith("pending; follow it with: crossdeck watch 0xc1")
    settled = ChildRequest("0xc1", "refund", "refund", 5, "0.000000000000000005 ETH")
    assert "crossdeck watch" not in settled.words()


def test_children_that_cannot_be_listed_say_the_command_that_lists_them() -> None:
    import httpx

    from crossdeck.api.client import ServiceClient
    from crossdeck.execute.children_at_end import settled_children
    from crossdeck.retry import RetryPolicy

    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="not json")

    async def run() -> tuple[Any, str | None]:
        service = ServiceClient(
            "http://127.0.0.1:9", retry=RetryPolicy(max_attempts=1),
            transport=httpx.MockTransport(broken),
        )  # fmt: skip
        async with service:
            return await settled_children(service, "0xabc", within=1.0)

    children, note = asyncio.run(run())
    assert children == () and note is not None
    assert "could not be listed" in note
    assert note.endswith("(list them with: crossdeck requests --id 0xabc --include-child-requests)")
