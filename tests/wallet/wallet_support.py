"""Constants and types the wallet tests share (conftest holds the fixtures)."""

from __future__ import annotations

from dataclasses import dataclass

KEYRING_PASSWORD = "correct horse battery staple"


@dataclass(frozen=True)
class Anvil:
    """A running anvil node."""

    url: str
    chain_id: int
