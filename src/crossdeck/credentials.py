"""Where each secret of a profile comes from: the world file's for the demo, else the keyring.

Kept apart from `config` (which only reads settings and never touches the keyring) and above
`wallet` (which owns the keyring), so neither imports the other. The keyring (keyring,
keyrings.alt: ~0.07 s) is imported only when a secret is read from it, never for the demo.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.config import Settings, WorldInfo
from crossdeck.models.addresses import Family
from crossdeck.wallet.errors import NoSecretError


def resolve_api_key(settings: Settings) -> Secret | None:
    """The API key: the world's, else the profile's keyring entry, else None."""
    if settings.world is not None and settings.world.api_key is not None:
        return settings.world.api_key
    from crossdeck.wallet import keystore

    return keystore.load_api_key(settings.profile)


ACCESS_TOKEN_ENV = "CROSSDECK_ACCESS_TOKEN"


def resolve_access_token(settings: Settings) -> Secret | None:
    """The access token to send instead of the API key: CROSSDECK_ACCESS_TOKEN, else the first
    line of `[service] access_token_file` (`--access-token-file`), else None. Never a flag's
    value: a token on a command line is readable by every process of the machine."""
    import os

    given = os.environ.get(ACCESS_TOKEN_ENV, "").strip()
    if given:
        return Secret(given)
    path = settings.service.access_token_file
    if path is None:
        return None
    try:
        text = path.expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise NoSecretError(
            f"the access token file {str(path)!r} cannot be read: {exc.__class__.__name__}",
            hint="mint a token and write it to that file, or drop --access-token-file and use "
            "an API key: crossdeck apikey set",
        ) from None
    token = text.splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise NoSecretError(
            f"the access token file {str(path)!r} is empty",
            hint="write the token on its first line, or use an API key: crossdeck apikey set",
        )
    return Secret(token)


def keystore_file(settings: Settings) -> tuple[Path, str]:
    """The keystore the signer settings name, and the option that named it."""
    from crossdeck.wallet.foundry_keystore import account_path

    chosen = settings.signer
    if chosen.account:
        return account_path(chosen.account), "--account"
    if chosen.keystore is not None:
        return chosen.keystore.expanduser(), "--keystore"
    raise InputError(
        "the keystore signer needs a keystore", hint="pass --account NAME or --keystore PATH"
    )


def unlock_keystore(settings: Settings, password: Secret | None = None) -> Secret:
    """The keystore's key, decrypted with `password` (the app's dialog), else the password
    file, else a terminal prompt (for this run only)."""
    from crossdeck.wallet.foundry_keystore import unlock

    path, option = keystore_file(settings)
    password_file = settings.signer.password_file
    return unlock(path, password_file.expanduser() if password_file else None, option, password)


def resolve_wallet_key(settings: Settings, password: Secret | None = None) -> Secret:
    """The private key to sign with: the keystore's when one is chosen (`password`: its
    password, when the caller asked for it), else the world's demo key, else the profile's
    keyring entry."""
    if settings.signer.kind == "keystore":
        return unlock_keystore(settings, password)
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
    """The wallet address for display (no key needed): the chosen signer's when it is known
    without a key (`--from`, a keystore naming its address in the clear; a browser wallet's is
    known once it connects), else the world's, else the keyring's."""
    chosen = settings.signer
    if chosen.kind == "read-only":
        return chosen.address
    if chosen.kind == "browser":
        return None
    if chosen.kind == "keystore":
        from crossdeck.wallet.foundry_keystore import keystore_address, read_keystore

        path, option = keystore_file(settings)
        return keystore_address(read_keystore(path, option))
    if settings.world is not None:
        return settings.world.wallet_address
    from crossdeck.wallet import keystore

    return keystore.load_wallet_address(settings.profile)


@dataclass(frozen=True)
class _DemoWallet:
    """Where a world file keeps one family's demo key and address."""

    key: Callable[[WorldInfo], Secret | None]
    address: Callable[[WorldInfo], str | None]


# the families whose key is a single stored one: the world's demo wallet, else the profile's
# keyring entry (the EVM wallet has more sources, a keystore, a browser, `--from`: see
# resolve_wallet_key and resolve_wallet_address)
_DEMO_WALLETS: dict[Family, _DemoWallet] = {
    Family.SOLANA: _DemoWallet(lambda world: world.solana_key, lambda world: world.solana_address),
    Family.BITCOIN: _DemoWallet(
        lambda world: world.bitcoin_key, lambda world: world.bitcoin_address
    ),
}


def resolve_family_key(settings: Settings, family: Family) -> Secret | None:
    """The key of `family`'s wallet (Solana's keypair, Bitcoin's WIF) to sign with: the world's
    demo one, else the profile's keyring entry, else None (no key: that family's items are
    refused in words)."""
    if settings.world is not None:
        return _DEMO_WALLETS[family].key(settings.world)
    from crossdeck.wallet import keystore

    return keystore.load_family_key(settings.profile, family)


def resolve_family_address(settings: Settings, family: Family) -> str | None:
    """The address of `family`'s wallet for display (no key needed)."""
    if settings.world is not None:
        return _DEMO_WALLETS[family].address(settings.world)
    from crossdeck.wallet import keystore

    return keystore.load_family_address(settings.profile, family)


def resolve_solana_key(settings: Settings) -> Secret | None:
    return resolve_family_key(settings, Family.SOLANA)


def resolve_solana_address(settings: Settings) -> str | None:
    return resolve_family_address(settings, Family.SOLANA)


def resolve_bitcoin_key(settings: Settings) -> Secret | None:
    return resolve_family_key(settings, Family.BITCOIN)


def resolve_bitcoin_address(settings: Settings) -> str | None:
    return resolve_family_address(settings, Family.BITCOIN)
