"""`crossdeck bridge`/`resume` text mode: a one-line progress bar on stderr when stderr is a
terminal; the event lines (and --json) are the same with or without it."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli.commands import execute as cli_execute
from crossdeck.execute import events as ev
from crossdeck.execute.describe import Line

WALLET = "0x" + "11" * 20
ACK = {"id": "acknowledge", "kind": "signature", "items": [{"status": "incomplete", "data": {}}]}


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _request(step: str) -> ev.SignRequest:
    lines = (Line("to", "0x1"),)
    return ev.SignRequest("transaction", step, 0, f"Send {step}", lines, {"value": 1})


RUN: list[ev.Event] = [
    ev.RunStarted("0x01", WALLET, ("approve", "authorize")),
    ev.GuardsChecked(()),
    ev.StepStarted("approve", 0, 0, "transaction", "Approve"),
    ev.AwaitingConfirmation(_request("approve")),
    ev.Signed("approve", 0, "transaction"),
    ev.TxSent("0xab", 8453, 0, "approve", 0),
    ev.TxConfirmed("0xab", 8453, 10, 21000, "approve", 0),
    ev.StepStarted("authorize", 1, 0, "signature", "Authorize"),
    ev.ItemSkipped("authorize", 0, "already posted"),
    ev.Posted("/authorize", "authorize", 0, ("acknowledge",), (ACK,)),
    ev.StepStarted("acknowledge", 2, 0, "signature"),
    ev.Posted("/acknowledge", "acknowledge", 0),
    ev.StatusChanged("pending"),
    ev.Finished("0x01", "success"),
]


async def _events() -> AsyncIterator[ev.Event]:
    for event in RUN:
        yield event


def _drain(monkeypatch: pytest.MonkeyPatch, stderr: io.StringIO, as_json: bool) -> ExitCode:
    import asyncio

    monkeypatch.setattr(cli_execute, "_stderr", lambda: stderr)
    return asyncio.run(cli_execute._drain(_events(), as_json, 2))


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


def test_a_terminal_gets_a_progress_bar_and_the_same_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    assert _drain(monkeypatch, io.StringIO(), False) == ExitCode.OK
    plain = capsys.readouterr()
    tty = FakeTty()
    assert _drain(monkeypatch, tty, False) == ExitCode.OK
    assert capsys.readouterr() == plain  # stdout and click's stderr lines unchanged

    drawn = [part.removeprefix("\x1b[K") for part in tty.getvalue().split("\r")]
    bars = [d for d in drawn if d]
    assert bars[0] == "[░░░░░░░░░░░░░░░░░░░░] 0/2 items · starting"
    assert "[░░░░░░░░░░░░░░░░░░░░] 0/2 items · approve: sent, waiting for the receipt" in bars
    assert "[██████████░░░░░░░░░░] 1/2 items · approve: done" in bars
    # ItemSkipped and Posted of the same item count once; the appended step adds an item
    assert "[█████████████░░░░░░░] 2/3 items · authorize: done" in bars
    assert "[████████████████████] 3/3 items · tracking: pending" in bars
    assert not any("confirmation" in b for b in bars)  # never drawn where a prompt may come
    assert tty.getvalue().endswith("\r\x1b[K")  # cleared at the end


def test_no_bar_when_stderr_is_not_a_terminal_or_in_json(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    pipe = io.StringIO()
    _drain(monkeypatch, pipe, False)
    assert pipe.getvalue() == ""
    capsys.readouterr()
    tty = FakeTty()
    _drain(monkeypatch, tty, True)
    assert tty.getvalue() == ""
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(RUN) and all(line.startswith('{"event":') for line in lines)


def test_a_narrow_terminal_gets_a_cut_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "30")
    tty = FakeTty()
    _drain(monkeypatch, tty, False)
    bars = [d.removeprefix("\x1b[K") for d in tty.getvalue().split("\r") if d.strip("\x1b[K")]
    assert bars and all(len(b) < 30 and b.endswith("…") for b in bars)
