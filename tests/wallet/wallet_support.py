"""Constants and types the wallet tests share (conftest holds the fixtures)."""

from __future__ import annotations

from dataclasses import dataclass

# anvil's well-known dev accounts (mnemonic "test test ... junk"), funded at start.
DEV_KEYS = (
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
)
KEYRING_PASSWORD = "correct horse battery staple"


@dataclass(frozen=True)
class Anvil:
    """A running anvil node."""

    url: str
    chain_id: int
