"""`crossdeck sim serve` as a real process: its one JSON line, its world file, webhook flags and
config, a clean exit on SIGTERM, and history kept across a restart on the same --state-dir.

Startup time is measured in bench/sim_startup.py, not asserted here."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from crossdeck.sim.world import DEMO_API_KEY

from .byhand import NATIVE, Hand, only_item, request_id
from .webhook_receiver import WebhookReceiver

CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))  # the installed console script
# the world file: URLs, wallet, key, and the names the client holds quotes to
INFO_KEYS = {
    "service_url", "venue_url", "rpc", "wallet", "api_key", "solver", "venue_depository",
    "service_name", "venue_name", "ws_url",
}  # fmt: skip
ETH = 10**18


@contextmanager
def serving(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Any]:
    """Run `crossdeck sim serve --speed 0 ARGS`; yield (process, parsed line); SIGTERM at exit."""
    log = (tmp_path / "serve.log").open("a")
    proc = subprocess.Popen(
        [CROSSDECK, "sim", "serve", "--speed", "0", *args],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)  # a hang guard, not a timing check
        assert ready, "sim serve printed nothing"
        line = proc.stdout.readline()
        assert line.endswith("\n") and line.count("\n") == 1
        yield proc, json.loads(line)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        log.close()


def ready_line(tmp_path: Path) -> str:
    """The last "world ready" line on stderr: written before the JSON line, so already there."""
    lines = (tmp_path / "serve.log").read_text().splitlines()
    ready = [line for line in lines if line.startswith("world ready: ")]
    assert ready, lines
    return ready[-1]


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(60)
    assert proc.stdout.read() == ""  # nothing but the one line ever goes to stdout
    return code


def native_flow(hand: Hand) -> tuple[str, dict]:
    """Quote and pay a small native move 8453 -> 999 by hand; return (request id, final status)."""
    quote = hand.quote(
        {
            "user": hand.wallet.address,
            "originChainId": 8453,
            "destinationChainId": 999,
            "originCurrency": NATIVE,
            "destinationCurrency": NATIVE,
            "amount": str(ETH // 100),
            "tradeType": "EXACT_INPUT",
            "recipient": hand.new_address(),
        }
    )
    hand.rpc[8453].send(hand.wallet, only_item(quote, "deposit"))
    rid = request_id(quote)
    return rid, hand.wait_final(rid)


def test_serve_prints_one_line_writes_the_world_file_and_exits_cleanly(tmp_path: Path) -> None:
    hooks = WebhookReceiver(secrets={"demo": DEMO_API_KEY})
    hooks.start()
    world_file = tmp_path / "world.json"
    config = tmp_path / "config.toml"
    config.write_text("")
    try:
        with serving(
            tmp_path,
            "--world-file", str(world_file),
            "--webhook", f"{DEMO_API_KEY}={hooks.url('demo')}",
            "--webhook-header", f"{DEMO_API_KEY}=Authorization:Bearer flag-token",
        ) as (proc, info):  # fmt: skip
            assert set(info) == INFO_KEYS
            # the two EVM chains, the two SVM chains (Solana, Eclipse) and Bitcoin's API
            assert set(info["rpc"]) == {"8453", "999", "792703809", "9286185", "8253038"}
            assert info["wallet"]["solana_address"] and info["wallet"]["solana_private_key"]
            assert info["wallet"]["bitcoin_address"].startswith("bc1q")
            assert info["wallet"]["bitcoin_private_key"]
            assert info["wallet"]["address"] == "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
            assert info["api_key"] == DEMO_API_KEY
            # the status websocket is served beside the service, on 127.0.0.1
            assert info["ws_url"].startswith("ws://127.0.0.1:")
            assert info["ws_url"][len("ws://127.0.0.1:") :].rstrip("/").split("/")[0].isdigit()
            assert (
                info["venue_name"] == "Venue" and info["service_name"] == "Service"
            )  # neutral brand
            assert json.loads(world_file.read_text()) == info
            assert ready_line(tmp_path) == (
                f"world ready: service {info['service_url']}, venue {info['venue_url']}; "
                f"other terminals: crossdeck --world {world_file} <command>; ctrl+c to stop"
            )

            # any crossdeck command talks to this world with --world
            out = subprocess.run(
                [CROSSDECK, "--world", str(world_file), "--json", "venue", "balance",
                 info["wallet"]["address"]],
                capture_output=True, text=True, timeout=60,
                env={**os.environ, "CROSSDECK_CONFIG": str(config)},
            )  # fmt: skip
            assert out.returncode == 0, out.stderr
            assert Decimal(json.loads(out.stdout)["perps"]["withdrawable"]) == Decimal(50_000)

            rid, final = native_flow(Hand(info))
            assert final["status"] == "success"
            assert hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]
            for delivery in hooks.deliveries(rid):
                assert delivery.headers.get("Authorization") == "Bearer flag-token"
            assert stop(proc) == 0
        assert not world_file.exists()
        assert hooks.rejected == []
    finally:
        hooks.stop()


def test_webhook_config_file_and_restart_keeps_history(tmp_path: Path) -> None:
    hooks = WebhookReceiver(secrets={"demo": DEMO_API_KEY})
    hooks.start()
    state_dir = tmp_path / "state"
    config = tmp_path / "hooks.toml"
    config.write_text(
        "[[webhook]]\n"
        'api_key_env = "DEMO_WORLD_KEY"\n'
        f'url = "{hooks.url("demo")}"\n'
        'headers = { "X-Trace" = "from-config" }\n'
    )
    env = {"DEMO_WORLD_KEY": DEMO_API_KEY}
    try:
        # a --webhook-header may add to a key whose endpoint is in the config file
        args = ("--state-dir", str(state_dir), "--webhook-config", str(config))
        args += ("--webhook-header", f"{DEMO_API_KEY}=X-Flag:from-flag")
        with serving(tmp_path, *args, env=env) as (proc, info):
            hand = Hand(info)
            rid, final = native_flow(hand)
            assert final["status"] == "success"
            assert hooks.wait_for(rid, "success") == ["pending", "submitted", "success"]
            assert all(d.headers.get("X-Trace") == "from-config" for d in hooks.deliveries(rid))
            assert all(d.headers.get("X-Flag") == "from-flag" for d in hooks.deliveries(rid))
            before = hand.history(id=rid)
            balance = hand.withdrawable(hand.wallet.address)
            assert stop(proc) == 0

        with serving(tmp_path, "--state-dir", str(state_dir)) as (proc, info):
            assert ready_line(tmp_path) == (
                f"world ready: service {info['service_url']}, venue {info['venue_url']}; "
                "ctrl+c to stop"
            )
            hand = Hand(info)
            after = hand.history(id=rid)
            assert after == before and after[0]["status"] == "success"
            assert hand.history(user=hand.wallet.address)[0]["id"] == rid
            assert hand.withdrawable(hand.wallet.address) == balance  # not funded twice
            assert stop(proc) == 0
        assert hooks.rejected == []
    finally:
        hooks.stop()


def test_bridge_runs_a_self_executed_swap_against_sim_serve(tmp_path: Path) -> None:
    """The done-when of issue 23: `crossdeck bridge` swaps ETH -> USDC on 8453 through the
    world's router (the self-executed form, simulated before signing) to success, against a
    served world, as a new user would run it."""
    world_file = tmp_path / "world.json"
    config = tmp_path / "config.toml"
    config.write_text("")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")},
        "CROSSDECK_CONFIG": str(config),
        "CROSSDECK_DATA_DIR": str(tmp_path / "data"),
    }
    command = [
        CROSSDECK, "--world", str(world_file), "bridge",
        "--origin-chain", "8453", "--origin-currency", "ETH",
        "--destination-chain", "8453", "--destination-currency", "USDC",
        "--amount-human", "0.01", "--yes",
    ]  # fmt: skip
    with serving(tmp_path, "--world-file", str(world_file)):
        run = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "Steps (1)" in out and "1. swap" in out
    assert "balance-changes: ok: simulated on chain 8453 (eth_simulateV1" in out
    assert "simulated you send 0.01 ETH, you receive at least " in out  # beside the tx
    assert any(ln.startswith("finished: success") for ln in out.splitlines())


def test_serve_can_retire_requests_v2_as_the_public_service_has(tmp_path: Path) -> None:
    """`--no-requests-v2` starts the world as the public service is since 2026-11-24: history
    without an API key is then one error naming `crossdeck apikey set`, never an empty list;
    with the world's key, v3 answers."""
    world_file = tmp_path / "world.json"
    config = tmp_path / "config.toml"
    config.write_text("")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")},
        "CROSSDECK_CONFIG": str(config),
        "CROSSDECK_DATA_DIR": str(tmp_path / "data"),
        "CROSSDECK_KEYRING_FILE": str(tmp_path / "keyring.cfg"),  # holds no key
        "CROSSDECK_KEYRING_PASSWORD": "unused",
    }
    with serving(tmp_path, "--world-file", str(world_file), "--no-requests-v2") as (_, info):
        keyless = tmp_path / "keyless.json"
        keyless.write_text(json.dumps({k: v for k, v in info.items() if k != "api_key"}))
        runs = [
            subprocess.run(
                [CROSSDECK, "--world", str(path), "requests"],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            for path in (keyless, world_file)
        ]
    refused, keyed = runs
    assert refused.returncode == 6 and refused.stdout == "", refused.stdout + refused.stderr
    assert "retired (HTTP 410)" in refused.stderr and "crossdeck apikey set" in refused.stderr
    assert keyed.returncode == 0, keyed.stdout + keyed.stderr
