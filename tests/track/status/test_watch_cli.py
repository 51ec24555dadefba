"""`crossdeck watch` end to end against the tracker tests' demo world."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.sim.world import World
from crossdeck.track.store import StatusStore

from .support import RequestMaker, advance, free_port, tx, wait_until


@pytest.fixture
def env(status_world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config, a data dir of the test's own and the world file; returns the data dir."""
    config = tmp_path / "config.toml"
    config.write_text("")
    data_dir = tmp_path / "data"
    world_file = tmp_path / "world.json"
    world_file.write_text(json.dumps(status_world.info))
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    monkeypatch.setenv("CROSSDECK_DATA_DIR", str(data_dir))
    monkeypatch.setenv("CROSSDECK_WORLD", str(world_file))
    # fast polling for the test: the first wait 0.1 s, at most 0.3 s
    monkeypatch.setenv("CROSSDECK_TRACKING__POLL_INTERVAL_SECONDS", "0.1")
    monkeypatch.setenv("CROSSDECK_TRACKING__POLL_INTERVAL_CAP_SECONDS", "0.3")
    monkeypatch.setenv("CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS", "0.5")
    # these follow by polling; test_watch_learns_from_the_status_socket turns the socket on
    monkeypatch.setenv("CROSSDECK_TRACKING__WEBSOCKET", "false")
    monkeypatch.delenv("CROSSDECK_PROFILE", raising=False)
    return data_dir


async def watch(*args: str) -> Result:
    # the command runs asyncio.run itself: a thread of its own, while this loop drives the world
    return await asyncio.to_thread(
        CliRunner().invoke, main, ["watch", "--rate", "20", *args], catch_exceptions=False
    )


def stored_status(data_dir: Path, request_id: str) -> str | None:
    """The last status the watch wrote down for `request_id` (its store is the sync point)."""
    if not (data_dir / "tracking.sqlite3").exists():
        return None
    with StatusStore.in_data_dir(data_dir) as store:
        stored = store.get(request_id)
    return str(stored.latest.status) if stored and stored.latest else None


async def until_stored(data_dir: Path, request_id: str, status: str) -> None:
    await wait_until(
        lambda: stored_status(data_dir, request_id) == status, f"the watch to see {status}"
    )


def short(request_id: str) -> str:
    """How a text line shows a request id: 0x + 6 digits, an ellipsis, the last 6."""
    return f"{request_id[:8]}…{request_id[-6:]}"


def json_lines(result: Result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


async def test_watch_prints_each_change_as_json_and_exits_0_on_success(
    no_webhooks: World, maker: RequestMaker, env: Path
) -> None:
    world = no_webhooks
    first, second = maker.make(2)
    running = asyncio.create_task(watch("--json", first, second.upper().replace("0X", "0x")))
    for rid in (first, second):
        await until_stored(env, rid, "waiting")
        advance(world, rid, "pending", in_tx=tx(8453))
    for rid in (first, second):
        await until_stored(env, rid, "pending")
        advance(world, rid, "submitted", out_tx=tx(999))
        advance(world, rid, "success")
    result = await asyncio.wait_for(running, 30)
    assert result.exit_code == ExitCode.OK, result.output
    lines = json_lines(result)
    for rid in (first, second):
        mine = [line for line in lines if line["requestId"] == rid]
        assert [m["status"] for m in mine][:2] == ["waiting", "pending"]
        assert mine[-1]["status"] == "success" and mine[-1]["final"] is True
        assert mine[-1]["txHashes"] and mine[-1]["source"] == "poll"
        assert all(not m["final"] for m in mine[:-1])
    assert "2 watched: 2 success" in result.stderr


async def test_watch_exit_code_says_refunded_and_text_lines_name_the_source(
    no_webhooks: World, maker: RequestMaker, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS", "30")  # refund comes first
    world = no_webhooks
    ok, refunded = maker.make(2)
    running = asyncio.create_task(watch(ok, refunded))
    await until_stored(env, refunded, "waiting")
    advance(world, ok, "pending", in_tx=tx(8453))
    advance(world, ok, "success")
    advance(world, refunded, "pending", in_tx=tx(8453))
    advance(world, refunded, "failure", fail_reason="SLIPPAGE")
    await until_stored(env, refunded, "failure")
    advance(world, refunded, "refund")
    result = await asyncio.wait_for(running, 30)
    assert result.exit_code == ExitCode.REFUNDED, result.output
    last_lines = {
        rid: [line for line in result.stdout.splitlines() if line.split()[1] == short(rid)][-1]
        for rid in (ok, refunded)
    }
    assert " success " in last_lines[ok] and last_lines[ok].endswith("(final)")
    assert " poll, " in last_lines[ok] and " s old " in last_lines[ok]
    assert " refund " in last_lines[refunded] and "failReason=SLIPPAGE" in last_lines[refunded]


async def test_watch_learns_from_the_status_socket_and_says_the_reason_in_words(
    no_webhooks: World, maker: RequestMaker, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROSSDECK_TRACKING__WEBSOCKET", "true")
    monkeypatch.setenv("CROSSDECK_TRACKING__FAILURE_SETTLE_SECONDS", "30")
    world = no_webhooks
    [rid] = maker.make(1)
    running = asyncio.create_task(watch(rid))
    await until_stored(env, rid, "waiting")
    await asyncio.sleep(0.5)  # the subscription is acknowledged
    advance(world, rid, "pending", in_tx=tx(8453))
    advance(world, rid, "failure", fail_reason="SOLVER_CAPACITY_EXCEEDED")
    advance(world, rid, "refund", refund_fail_reason="MANUAL_REFUND_REQUIRED")
    result = await asyncio.wait_for(running, 30)
    assert result.exit_code == ExitCode.REFUNDED, result.output
    lines = result.stdout.splitlines()
    final = next(line for line in lines if " refund " in line)
    assert " socket, " in final and final.endswith("(final)")
    assert any("why: " in line and "[SOLVER_CAPACITY_EXCEEDED]" in line for line in lines)
    assert any("refund: " in line and "[MANUAL_REFUND_REQUIRED]" in line for line in lines)
    assert "status socket live" in result.stderr


async def test_status_follow_follows_one_request_to_its_end_over_the_socket(
    no_webhooks: World, maker: RequestMaker, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROSSDECK_TRACKING__WEBSOCKET", "true")
    world = no_webhooks
    [rid] = maker.make(1)
    running = asyncio.create_task(
        asyncio.to_thread(
            CliRunner().invoke, main, ["status", rid, "--follow"], catch_exceptions=False
        )
    )
    await until_stored(env, rid, "waiting")
    await asyncio.sleep(0.5)  # the subscription is acknowledged
    advance(world, rid, "pending", in_tx=tx(8453))
    advance(world, rid, "submitted", out_tx=tx(999))
    advance(world, rid, "success")
    result = await asyncio.wait_for(running, 30)
    assert result.exit_code == ExitCode.OK, result.output
    lines = [line for line in result.stdout.splitlines() if short(rid) in line]
    assert [line.split()[2] for line in lines][-3:] == ["pending", "submitted", "success"]
    assert " socket, " in lines[-1] and lines[-1].endswith("(final)")


async def test_watch_failure_that_settles_exits_failed(
    no_webhooks: World, maker: RequestMaker, env: Path
) -> None:
    (rid,) = maker.make(1)
    advance(no_webhooks, rid, "pending", in_tx=tx(8453))
    advance(no_webhooks, rid, "failure", fail_reason="TRANSFER_FAILED")
    result = await watch("--json", rid)
    assert result.exit_code == ExitCode.FAILED, result.output
    last = json_lines(result)[-1]
    assert (last["status"], last["source"], last["final"]) == ("failure", "settle", True)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


async def test_watch_with_webhooks_receives_them(
    status_world: World, maker: RequestMaker, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = status_world
    # polling stands in at its own pace; here it is slow, so the webhooks are what tell (at
    # 0.1 s a loaded machine's poll could learn 'success' before its webhook arrived)
    monkeypatch.setenv("CROSSDECK_TRACKING__POLL_INTERVAL_SECONDS", "30")
    monkeypatch.setenv("CROSSDECK_TRACKING__POLL_INTERVAL_CAP_SECONDS", "60")
    port = free_port()
    world.set_webhook(world.api_key, f"http://127.0.0.1:{port}/webhooks/crossdeck")
    (rid,) = maker.make(1)
    try:
        running = asyncio.create_task(watch("--json", "--webhooks", str(port), rid))
        await wait_until(lambda: _listening(port), "the receiver to listen")
        # the watch's first read is done (else it could read the request already ended)
        await wait_until(lambda: stored_status(env, rid) is not None, "the watch's first read")
        advance(world, rid, "pending", in_tx=tx(8453))
        advance(world, rid, "submitted", out_tx=tx(999))
        advance(world, rid, "success")
        result = await asyncio.wait_for(running, 30)
    finally:

        async def unset() -> None:
            assert world.webhook_sender is not None
            world.webhook_sender.remove_endpoint(world.api_key)

        world.call(unset)
    assert result.exit_code == ExitCode.OK, result.output
    lines = json_lines(result)
    assert lines[-1]["status"] == "success" and lines[-1]["source"] == "webhook"
    assert f"receiving webhooks at http://127.0.0.1:{port}/webhooks/crossdeck" in result.stderr


async def test_watch_resumes_what_a_timed_out_watch_left(
    no_webhooks: World, maker: RequestMaker, env: Path
) -> None:
    world = no_webhooks
    (rid,) = maker.make(1)
    advance(world, rid, "pending", in_tx=tx(8453))
    first = await watch("--json", "--timeout", "1", rid)
    assert first.exit_code == ExitCode.TIMEOUT, first.output
    assert [line["status"] for line in json_lines(first)] == ["pending"]
    assert "resume with `crossdeck watch`" in first.stderr
    with StatusStore.in_data_dir(env) as store:
        assert [s.request_id for s in store.unfinished()] == [rid]

    advance(world, rid, "submitted", out_tx=tx(999))
    advance(world, rid, "success")
    second = await watch("--json")
    assert second.exit_code == ExitCode.OK, second.output
    lines = json_lines(second)
    assert lines[0] == {**lines[0], "status": "pending", "stored": True}
    assert lines[-1]["status"] == "success" and lines[-1]["final"] is True
    assert "resuming 1 unfinished request(s)" in second.stderr

    nothing = await watch()
    assert nothing.exit_code == ExitCode.INVALID_INPUT
    assert "nothing to watch" in nothing.stderr


async def test_watch_refuses_a_malformed_id_before_any_request(env: Path) -> None:
    result = await watch("0x1234")
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "not 0x followed by 64 hex digits" in result.stderr
    assert not (env / "tracking.sqlite3").exists()


def test_ctrl_c_stops_watch_and_keeps_the_request_for_later(
    no_webhooks: World, maker: RequestMaker, env: Path
) -> None:
    (rid,) = maker.make(1)
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "crossdeck"), "watch", "--json", rid],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        first_line = proc.stdout.readline() if proc.stdout else ""
        assert json.loads(first_line)["status"] == "waiting"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == ExitCode.ABORTED, err
    assert "stopped; 1 request(s) still open" in err
    with StatusStore.in_data_dir(env) as store:
        stored = store.get(rid)
        assert stored is not None and not stored.finished
        assert stored.latest is not None and str(stored.latest.status) == "waiting"
