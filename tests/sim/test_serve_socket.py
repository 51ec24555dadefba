"""`sim serve` streams statuses: its JSON line names `ws_url`, a bridge against it learns
success from the socket, and with `--drop-sockets-every` (a rolling deploy, over and over)
the bridge still reaches success with each status shown once."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from .test_serve_cli import CROSSDECK, serving

BRIDGE = [
    "bridge", "--origin-chain", "8453", "--origin-currency", "ETH",
    "--destination-chain", "999", "--destination-currency", "0x" + "0" * 40,
    "--amount-human", "0.01", "--yes",
]  # fmt: skip


def _bridge(tmp_path: Path, world_file: Path) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "config.toml"
    config.write_text("")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")},
        "CROSSDECK_CONFIG": str(config),
        "CROSSDECK_DATA_DIR": str(tmp_path / "data"),
    }
    return subprocess.run(
        [CROSSDECK, "--world", str(world_file), *BRIDGE],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _statuses(out: str) -> list[tuple[str, str]]:
    return re.findall(r"^status (\w+)(?: \(\w+\))? \((socket|poll|webhook)", out, re.M)


def test_a_bridge_against_sim_serve_learns_success_from_the_socket(tmp_path: Path) -> None:
    world_file = tmp_path / "world.json"
    with serving(tmp_path, "--world-file", str(world_file)) as (_, info):
        assert info["ws_url"].startswith("ws://127.0.0.1:")
        run = _bridge(tmp_path, world_file)
    assert run.returncode == 0, run.stdout + run.stderr
    assert any(ln.startswith("finished: success") for ln in run.stdout.splitlines())
    assert ("success", "socket") in _statuses(run.stdout)
    assert "note: status socket live" in run.stderr


def test_with_sockets_dropped_over_and_over_the_bridge_still_succeeds_once(
    tmp_path: Path,
) -> None:
    world_file = tmp_path / "world.json"
    with serving(tmp_path, "--world-file", str(world_file), "--drop-sockets-every", "0.1"):
        run = _bridge(tmp_path, world_file)
    assert run.returncode == 0, run.stdout + run.stderr
    assert any(ln.startswith("finished: success") for ln in run.stdout.splitlines())
    seen = [status for status, _ in _statuses(run.stdout)]
    assert seen[-1] == "success" and len(seen) == len(set(seen)), run.stdout
    assert "dropped" in (tmp_path / "serve.log").read_text()
