"""Fixtures of the wallet tests: a real anvil node and an isolated encrypted keyring."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from wallet_support import KEYRING_PASSWORD, Anvil

from crossdeck.wallet import keystore

REPO = Path(__file__).resolve().parents[2]


def _anvil_binary() -> str:
    configured = os.environ.get("CROSSDECK_ANVIL")
    binary = Path(configured) if configured else REPO / "tools/node_modules/.bin/anvil"
    if not binary.exists():
        pytest.fail(f"anvil not found at {binary}; run scripts/bootstrap or set CROSSDECK_ANVIL")
    return str(binary)


@pytest.fixture(scope="module")
def anvil(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Anvil]:
    """A real anvil on 127.0.0.1, port 0, chain id 8453; its log goes to a file so a full
    pipe can never stall it."""
    log_path = tmp_path_factory.mktemp("anvil") / "anvil.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [_anvil_binary(), "--port", "0", "--chain-id", "8453", "--host", "127.0.0.1"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        port = None
        while port is None:
            for line in log_path.read_text(errors="replace").splitlines():
                if line.startswith("Listening on "):
                    port = int(line.rsplit(":", 1)[1])
            if port is None:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"anvil did not start:\n{log_path.read_text(errors='replace')}")
                time.sleep(0.05)
        yield Anvil(url=f"http://127.0.0.1:{port}", chain_id=8453)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def keyring_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The encrypted file backend, its file under tmp_path, unlocked through the env."""
    path = tmp_path / "keyring.cfg"
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "crossdeck.wallet.keystore.EncryptedFileKeyring")
    monkeypatch.setenv(keystore.ENV_FILE, str(path))
    monkeypatch.setenv(keystore.ENV_PASSWORD, KEYRING_PASSWORD)
    keystore.set_keyring_password(None)
    yield path
    keystore.set_keyring_password(None)


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A clean CROSSDECK_* environment for CLI runs: an empty config file and the encrypted
    keyring under tmp_path. Returns the keyring file."""
    for name in list(os.environ):
        if name.startswith("CROSSDECK_"):
            monkeypatch.delenv(name)
    config = tmp_path / "config.toml"
    config.write_text("")
    keyring_path = tmp_path / "keyring.cfg"
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "crossdeck.wallet.keystore.EncryptedFileKeyring")
    monkeypatch.setenv(keystore.ENV_FILE, str(keyring_path))
    monkeypatch.setenv(keystore.ENV_PASSWORD, KEYRING_PASSWORD)
    keystore.set_keyring_password(None)
    yield keyring_path
    keystore.set_keyring_password(None)
