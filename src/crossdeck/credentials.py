"""Where each secret of a profile comes from: the world file's for the demo, else the keyring.

Kept apart from `config` (which only reads settings and never touches the keyring) and above
`wallet` (which owns the keyring), so neither imports the other. The keyring (keyring,
keyrings.alt: ~0.07 s) is imported only when a secret is read from it, never for the demo.
"""

from __future__ import annotations

from pydantic import SecretStr

from crossdeck.config import Settings
from crossdeck.wallet.errors import NoSecretError


def resolve_api_key(settings: Settings) -> SecretStr | None:
    """The API key: the world's, else the profile's keyring entry, else None."""
    if settings.world is not None and settings.world.api_key is not None:
        return settings.world.api_key
    from crossdeck.wallet import keystore

    return keystore.load_api_key(settings.profile)


def resolve_wallet_key(settings: Settings) -> SecretStr:
    """The private key to sign with: the world's demo key, else the profile's keyring entry."""
    if settings.world is not None:
        return settings.world.wallet_key
    from crossdeck.wallet import keystore

    key = keystore.load_wallet_key(settings.profile)
    if key is None:
        raise NoSecretError(
            f"no wallet key is stored for profile {settings.profile!r}",
            hint="run `crossdeck wallet import` or `crossdeck wallet new`",
        )
    return key


def resolve_wallet_address(settings: Settings) -> str | None:
    """The wallet address for display (no key needed): the world's, else the keyring's."""
    if settings.world is not None:
        return settings.world.wallet_address
    from crossdeck.wallet import keystore

    return keystore.load_wallet_address(settings.profile)
