"""Every config test runs with a clean CROSSDECK_* environment, its own config file and an
encrypted keyring under tmp_path."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from config_support import DEMO_ADDRESS, DEMO_API_KEY, DEMO_KEY

from crossdeck.wallet import keystore


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("CROSSDECK_"):
            monkeypatch.delenv(name)
    config = tmp_path / "config.toml"
    monkeypatch.setenv("CROSSDECK_CONFIG", str(config))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "crossdeck.wallet.keystore.EncryptedFileKeyring")
    monkeypatch.setenv(keystore.ENV_FILE, str(tmp_path / "keyring.cfg"))
    monkeypatch.setenv(keystore.ENV_PASSWORD, "test keyring password")
    keystore.set_keyring_password(None)
    return config


@pytest.fixture
def config_file(clean_env: Path) -> Callable[[str], Path]:
    """Write the TOML config file that CROSSDECK_CONFIG points at."""

    def write(text: str) -> Path:
        clean_env.write_text(text)
        return clean_env

    return write


@pytest.fixture
def world_file(tmp_path: Path) -> Path:
    """A world file as `crossdeck sim serve --world-file` writes it."""
    path = tmp_path / "world.json"
    path.write_text(
        json.dumps(
            {
                "service_url": "http://127.0.0.1:41001",
                "venue_url": "http://127.0.0.1:41002/",
                "rpc": {"8453": "http://127.0.0.1:41003", "999": "http://127.0.0.1:41004"},
                "wallet": {"address": DEMO_ADDRESS, "private_key": DEMO_KEY},
                "api_key": DEMO_API_KEY,
                "solver": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            }
        )
    )
    return path
