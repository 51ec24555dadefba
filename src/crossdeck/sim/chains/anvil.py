"""Run anvil (Foundry's EVM node) as a subprocess on a free loopback port.

The process is started in its own session and owned through a finalizer, so it is killed on
`stop()`, when its owner is garbage-collected, and at interpreter exit: no orphaned nodes.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import threading
import weakref
from collections import deque
from pathlib import Path
from typing import IO

ANVIL_ENV = "CROSSDECK_ANVIL"
INSTALL_HINT = "run ./scripts/test.sh or cd tools && npm install"
LISTENING = re.compile(r"Listening on (\d+\.\d+\.\d+\.\d+):(\d+)")
START_TIMEOUT = 30.0
STATE_INTERVAL_SECONDS = 2.0


class AnvilNotFound(RuntimeError):
    pass


def _repo_tools_anvil() -> Path | None:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "tools" / "node_modules" / ".bin" / "anvil"
        if candidate.exists():
            return candidate
    return None


def _native_binary(wrapper: Path) -> Path:
    """The platform binary behind npm's node wrapper, so signals reach anvil itself."""
    real = wrapper.resolve()
    if real.suffix not in (".mjs", ".js"):
        return wrapper
    scope = real.parent.parent  # node_modules/@foundry-rs
    for package in sorted(scope.glob("anvil-*")):
        binary = package / "bin" / "anvil"
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
    return wrapper


def find_anvil() -> Path:
    configured = os.environ.get(ANVIL_ENV)
    if configured:
        path = Path(configured)
        if not path.exists():
            raise AnvilNotFound(f"{ANVIL_ENV}={configured} does not exist; {INSTALL_HINT}")
        return _native_binary(path)
    found = _repo_tools_anvil()
    if found is None:
        raise AnvilNotFound(
            f"anvil is not installed (tools/node_modules/.bin/anvil); {INSTALL_HINT}"
        )
    return _native_binary(found)


def _kill(process: subprocess.Popen[str]) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=3)
    except ProcessLookupError:
        pass


class AnvilProcess:
    def __init__(self, process: subprocess.Popen[str], host: str, port: int) -> None:
        self.process = process
        self.rpc_url = f"http://{host}:{port}"
        self._finalizer = weakref.finalize(self, _kill, process)

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """Terminate now (blocking, at most a few seconds); later calls do nothing."""
        self._finalizer()

    async def stop(self) -> None:
        await asyncio.to_thread(self._finalizer)


def _read_until_listening(
    process: subprocess.Popen[str], tail: deque[str]
) -> tuple[str, int] | None:
    assert process.stdout is not None
    for line in process.stdout:
        tail.append(line)
        match = LISTENING.search(line)
        if match:
            return match.group(1), int(match.group(2))
    return None


def _drain(stream: IO[str]) -> None:
    # anvil logs every request; an unread pipe would fill up and stall the node.
    for _ in stream:
        pass


def _popen(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own process group, killed as one
    )


async def spawn_anvil(
    chain_id: int, *, block_time: float | None = None, state_file: Path | None = None
) -> AnvilProcess:
    """`state_file`: anvil's `--state` (loaded when it exists, written at exit and every
    `STATE_INTERVAL_SECONDS`), with the historical states so reads at old blocks still work."""
    binary = find_anvil()
    args = [
        str(binary),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--chain-id",
        str(chain_id),
        "--accounts",
        "0",
    ]
    if block_time is not None:
        args += ["--block-time", f"{block_time:g}"]
    if state_file is not None:
        args += [
            "--state", str(state_file),
            "--state-interval", f"{STATE_INTERVAL_SECONDS:g}",
            "--preserve-historical-states",
        ]  # fmt: skip
    # Popen rather than asyncio's subprocess: the process must not be tied to this event loop,
    # since the node may be stopped from another loop or thread.
    process = await asyncio.to_thread(_popen, args)
    tail: deque[str] = deque(maxlen=20)
    try:
        async with asyncio.timeout(START_TIMEOUT):
            address = await asyncio.to_thread(_read_until_listening, process, tail)
    except BaseException:
        _kill(process)
        raise
    if address is None:
        _kill(process)
        output = "".join(tail).strip()
        raise RuntimeError(f"anvil exited before listening (code {process.poll()}): {output}")
    threading.Thread(target=_drain, args=(process.stdout,), daemon=True).start()
    return AnvilProcess(process, *address)
