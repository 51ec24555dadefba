"""The demo world's contracts: Vyper sources and their committed compiled artifacts."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

ARTIFACTS_DIR = Path(__file__).resolve().parent / "artifacts"


@cache
def _read_artifact(name: str) -> str:
    path = ARTIFACTS_DIR / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in ARTIFACTS_DIR.glob("*.json"))
        raise KeyError(f"no contract artifact named {name!r}; known: {', '.join(known)}")
    return path.read_text()


def load_artifact(name: str) -> dict[str, Any]:
    """`{"abi": [...], "bytecode": "0x...", "deployedBytecode": "0x...", ...}` for a contract.

    A fresh dict each call, so a caller may modify it freely.
    """
    artifact: dict[str, Any] = json.loads(_read_artifact(name))
    return artifact
