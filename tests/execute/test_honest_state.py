"""Only a request something of which left the machine is unfinished: a declined run is listed as
declined and forgotten by `crossdeck watch`; `resume --list` says what the tracker saw (a
request `watch` saw succeed is not "tracking"); `resume` prints what it will sign once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from execute_support import ETH, NATIVE, Cli, fund, new_address

from crossdeck.base.exitcodes import ExitCode
from crossdeck.execute.journal import Journal
from crossdeck.execute.unfinished import reconcile
from crossdeck.track.store import StatusStore
from crossdeck.track.updates import StatusUpdate

RID = "0x" + "ab" * 32
SENT = "0x" + "cd" * 32


@pytest.fixture
def cli(world: Any, tmp_path: Path) -> Cli:
    return Cli(world, tmp_path)


@pytest.fixture
def status_down(world: Any) -> Iterator[Any]:
    world.faults.inject("503", 10_000, path="/intents/status")
    yield world
    world.faults.clear()


def _bridge(recipient: str, *extra: str) -> list[str]:
    return [
        "bridge",
        "--origin-chain", "8453", "--origin-currency", NATIVE,
        "--destination-chain", "999", "--destination-currency", NATIVE,
        "--amount", str(ETH // 10), "--recipient", recipient, *extra,
    ]  # fmt: skip


def _update(request_id: str, status: str, *, final: bool) -> StatusUpdate:
    return StatusUpdate.from_json(
        {"requestId": request_id, "status": status, "source": "poll", "final": final,
         "observedAt": 1.0, "inTxHashes": [], "txHashes": []}
    )  # fmt: skip


def test_reconcile_forgets_the_unsent_and_finishes_what_the_tracker_saw_end(
    tmp_path: Path,
) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal, StatusStore(":memory:") as store:
        journal.start_run(RID, wallet="0x" + "11" * 20, quote={}, options={})
        journal.set_run_state(RID, "failed", error="declined: Send a transaction")
        journal.start_run(SENT, wallet="0x" + "11" * 20, quote={}, options={})
        journal.record(SENT, 0, 0, "sent", kind="transaction", tx_hash="0x" + "22" * 32)
        journal.set_run_state(SENT, "tracking")
        store.save(_update(RID, "waiting", final=False))
        store.save(_update(SENT, "pending", final=False))

        assert [run.request_id for run in reconcile(journal, store)] == [SENT]
        assert store.get(RID) is None  # never sent: not followed
        assert journal.run(RID).label == "declined, nothing sent"
        assert [s.request_id for s in store.unfinished()] == [SENT]

        store.save(_update(SENT, "success", final=True))
        assert reconcile(journal, store) == []
        run = journal.run(SENT)
        assert run.state == "finished" and run.final_status == "success"
        # declined before anything was sent: the same quote may run again
        journal.start_run(RID, wallet="0x" + "11" * 20, quote={}, options={})


def test_watch_forgets_a_declined_run_and_lists_it_as_declined(cli: Cli) -> None:
    with cli.journal() as journal:
        journal.start_run(RID, wallet=cli.address, quote={}, options={})
        journal.set_run_state(RID, "failed", error="declined: Send a transaction")
    with StatusStore.in_data_dir(cli.home / "data") as store:
        store.add(RID)  # as an older app left it: followed from the run's start

    watched = cli.invoke("watch", "--timeout", "2")
    assert watched.exit_code == ExitCode.INVALID_INPUT, watched.output
    assert "nothing to watch" in watched.output and "resuming" not in watched.output
    listed = cli.invoke("resume", "--list")
    assert f"{RID}  declined, nothing sent" in listed.stdout
    bare = cli.invoke("resume")
    assert bare.exit_code == ExitCode.INVALID_INPUT and "no unfinished run" in bare.output


def test_resume_list_says_what_watch_saw(cli: Cli, status_down: Any) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    first = cli.invoke(*_bridge(new_address(), "--yes", "--timeout", "1"), "--json")
    assert first.exit_code == ExitCode.TIMEOUT, first.output
    rid = json.loads(first.stdout.splitlines()[-1])["request_id"]
    listed = json.loads(cli.invoke("resume", "--list", "--json").stdout.splitlines()[0])
    assert listed["state"] == "tracking" and listed["sent"] and listed["unfinished"]

    status_down.faults.clear()
    watched = cli.invoke("watch", rid, "--timeout", "60")
    assert watched.exit_code == 0, watched.output

    listed = json.loads(cli.invoke("resume", "--list", "--json").stdout.splitlines()[0])
    assert listed["requestId"] == rid
    assert listed["state"] == "finished" and listed["finalStatus"] == "success"
    assert not listed["unfinished"]
    assert f"{rid}  finished (success)" in cli.invoke("resume", "--list").stdout
    bare = cli.invoke("resume")
    assert bare.exit_code == ExitCode.INVALID_INPUT and "no unfinished run" in bare.output


def test_resume_prints_what_it_will_sign_once(cli: Cli) -> None:
    asyncio.run(fund(cli.world, cli.address, native={8453: ETH}))
    quoted = cli.invoke("quote", *_bridge(new_address())[1:], "--json")
    assert quoted.exit_code == 0, quoted.output
    wire = json.loads(quoted.stdout)
    rid = wire["steps"][0]["requestId"]
    with cli.journal() as journal:  # a run journalled, then stopped before its signature
        journal.start_run(rid, wallet=cli.address, quote=wire, options={})

    result = cli.invoke("resume", rid, "--trust-quote", input="n\n")
    assert result.exit_code == ExitCode.ABORTED, result.output
    # the block's fee line, whatever words the describer gives its title
    block = "max fee "
    assert result.output.count(block) == 1, result.output
    assert result.output.index(block) < result.output.index("[y/N]")
