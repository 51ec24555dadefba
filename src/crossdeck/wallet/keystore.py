"""Secrets in the keyring, one keyring service per profile (`crossdeck:<profile>`).

Entries: `wallet-key` (hex private key), `wallet-address` (its address, so the app can show
the wallet without touching the key) and `api-key`.

Which backend:
1. `PYTHON_KEYRING_BACKEND` or keyring's own config file, when set, is honoured as is.
2. Else the best OS keyring (Secret Service, macOS Keychain, Windows Credential Locker, ...).
3. Else (headless machines, containers, CI) an encrypted file: keyrings.alt's
   `EncryptedKeyring` (AES-256, PBKDF2 key) at `CROSSDECK_KEYRING_FILE` or
   `<user data dir>/crossdeck/keyring.cfg`. Its password comes from `CROSSDECK_KEYRING_PASSWORD`,
   else from `set_keyring_password()` (the app asks in a dialog), else from a hidden prompt
   when a terminal is attached; otherwise `KeyringLockedError`. keyring's plaintext file
   backend is never chosen automatically.
To pin the encrypted file explicitly:
`PYTHON_KEYRING_BACKEND=crossdeck.wallet.keystore.EncryptedFileKeyring`.
"""

from __future__ import annotations

import configparser
import getpass
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import keyring
import keyring.backend
import keyring.core
import keyring.errors
import platformdirs
from keyrings.alt.file import EncryptedKeyring

from crossdeck.base.errors import InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret
from crossdeck.models.addresses import Family
from crossdeck.wallet.errors import KeyringError, KeyringLockedError, KeyringPasswordError

T = TypeVar("T")

ENV_PASSWORD = "CROSSDECK_KEYRING_PASSWORD"
ENV_FILE = "CROSSDECK_KEYRING_FILE"
WALLET_KEY = "wallet-key"
WALLET_ADDRESS = "wallet-address"
SOLANA_KEY = "solana-key"
SOLANA_ADDRESS = "solana-address"
BITCOIN_KEY = "bitcoin-key"
BITCOIN_ADDRESS = "bitcoin-address"
API_KEY = "api-key"
# the (key, address) entries of each family with a stored key beside the EVM wallet's
FAMILY_ENTRIES = {
    Family.SOLANA: (SOLANA_KEY, SOLANA_ADDRESS),
    Family.BITCOIN: (BITCOIN_KEY, BITCOIN_ADDRESS),
}

_REFERENCE = "password reference value"  # what keyrings.alt stores to check a password
_session_password: Secret | None = None
_cache: dict[tuple[str | None, str], keyring.backend.KeyringBackend] = {}


def service_name(profile: str) -> str:
    """The keyring service that holds one profile's secrets."""
    return f"crossdeck:{profile}"


def keyring_file_path() -> Path:
    """Where the encrypted file backend keeps its file."""
    configured = os.environ.get(ENV_FILE)
    if configured:
        return Path(configured).expanduser()
    return platformdirs.user_data_path("crossdeck") / "keyring.cfg"


def set_keyring_password(password: Secret | None) -> None:
    """Give the encrypted file backend its password for this process (the app's dialog)."""
    global _session_password
    _session_password = password
    _cache.clear()


def needs_password() -> bool:
    """True when the encrypted file backend is in use, its file exists (a keyring not yet
    created has nothing to unlock: reading it finds nothing, and the first save creates it and
    asks for a new password) and nothing supplies its password yet: the app then asks with its
    own dialog and calls `set_keyring_password`."""
    if os.environ.get(ENV_PASSWORD) or _session_password is not None:
        return False
    chosen = backend()
    return isinstance(chosen, EncryptedFileKeyring) and chosen.created()


def not_created_yet() -> str | None:
    """A plain sentence when the encrypted file keyring is in use but not created yet (a fresh
    machine: no key was ever saved), else None."""
    chosen = backend()
    if not isinstance(chosen, EncryptedFileKeyring) or chosen.created():
        return None
    return (
        f"no saved key yet: the keyring file {chosen.file_path} does not exist; the first "
        "save (`crossdeck wallet new`, `wallet import` or `apikey set`) creates it and asks "
        "you to choose its password"
    )


class KeyringFileError(KeyringError):
    """The keyring file cannot be used: not a regular file, unreadable, or not a keyring (a
    file the user named, or put there, is invalid: exit 3, not "no secret stored")."""

    exit_code = ExitCode.INVALID_INPUT


class KeyringPromptAborted(KeyringLockedError):
    """Input ended (EOF) at the keyring's hidden password prompt."""

    exit_code = ExitCode.ABORTED


# what reading a file that is not an INI keyring raises (not ValueError at large: a wrong
# password fails decryption with one, and `_unlock` reads that as a wrong password)
_FILE_ERRORS = (configparser.Error, UnicodeError, OSError)


# keyrings.alt ships no type hints, so its EncryptedKeyring is Any to the type checker
class EncryptedFileKeyring(EncryptedKeyring):  # type: ignore[misc]
    """keyrings.alt's encrypted file at crossdeck's own path, unlocked without getpass
    when a password is configured."""

    # Low, so keyring's own auto-detection in other code never prefers this class.
    priority = 0.1

    def __init__(self, path: Path | None = None) -> None:
        super().__init__()
        self.file_path = str(path or keyring_file_path())

    def _password(self, *, new: bool) -> str:
        from_env = os.environ.get(ENV_PASSWORD)
        if from_env:
            return from_env
        if _session_password is not None:
            return _session_password.get_secret_value()
        if not _terminal_attached():
            if new:
                raise KeyringLockedError(
                    f"the encrypted keyring {self.file_path} does not exist yet: saving creates "
                    "it, with a password you choose",
                    hint=f"set {ENV_PASSWORD} to the new password, or run in a terminal",
                )
            raise KeyringLockedError(
                f"the encrypted keyring {self.file_path} needs its password",
                hint=f"set {ENV_PASSWORD} or run in a terminal",
            )
        try:
            if not new:
                return getpass.getpass(f"Password for the crossdeck keyring {self.file_path}: ")
            while True:
                first = getpass.getpass(
                    f"New password for the crossdeck keyring {self.file_path}: "
                )
                if not first.strip():
                    sys.stderr.write("the password cannot be empty\n")
                    continue
                if getpass.getpass("Repeat the password: ") == first:
                    return first
                sys.stderr.write("the passwords differ, try again\n")
        except EOFError:
            raise KeyringPromptAborted(
                f"no password for the encrypted keyring {self.file_path}: input ended",
                hint=f"type it at the prompt, or set {ENV_PASSWORD}",
            ) from None

    def created(self) -> bool:
        """Whether the file holds a keyring (its password reference): only then is there a
        password to ask for. A file that cannot be read counts as created, so that reading it
        says what is wrong with it."""
        try:
            return bool(self._file_call(self._check_file))
        except (KeyringFileError, ValueError):  # ValueError: another encryption scheme
            return True

    def _check_path(self) -> None:
        """A path that exists must be a readable regular file: configparser silently skips a
        directory or an unreadable file, which read as an empty keyring ("no wallet stored")."""
        path = Path(self.file_path)
        if not path.exists():
            return
        if not path.is_file():
            raise KeyringFileError(
                f"the keyring file {path} is not a regular file (a directory?)",
                hint=f"point {ENV_FILE} at a file (it is created on first use)",
            )
        if not os.access(path, os.R_OK):
            raise KeyringFileError(f"the keyring file {path} cannot be read (permissions)")

    def _file_call(self, call: Callable[[], T]) -> T:
        self._check_path()
        try:
            return call()
        except keyring.errors.KeyringError:
            raise
        except _FILE_ERRORS as exc:
            raise KeyringFileError(
                f"the keyring file {self.file_path} is not a crossdeck keyring "
                f"({type(exc).__name__})",
                hint=f"move it away, or point {ENV_FILE} at another file",
            ) from None

    def get_password(self, service: str, username: str) -> str | None:
        password: str | None = self._file_call(
            lambda: super(EncryptedFileKeyring, self).get_password(service, username)
        )
        return password

    def set_password(self, service: str, username: str, password: str) -> None:
        self._file_call(
            lambda: super(EncryptedFileKeyring, self).set_password(service, username, password)
        )

    def delete_password(self, service: str, username: str) -> None:
        self._file_call(
            lambda: super(EncryptedFileKeyring, self).delete_password(service, username)
        )

    def _get_new_password(self) -> str:
        return self._password(new=True)

    def _unlock(self) -> None:
        self.keyring_key = self._password(new=False)
        try:
            reference = self.get_password("keyring-setting", "password reference")
        except (AssertionError, ValueError):
            reference = None
        if reference != _REFERENCE:
            self._lock()
            raise KeyringPasswordError(
                f"wrong password for the encrypted keyring {self.file_path}",
                hint=f"check {ENV_PASSWORD}",
            )


def _terminal_attached() -> bool:
    stdin, stderr = sys.stdin, sys.stderr
    return stdin is not None and stderr is not None and stdin.isatty() and stderr.isatty()


def _is_os_keyring(candidate: keyring.backend.KeyringBackend) -> bool:
    module = type(candidate).__module__
    if module.startswith("keyrings.alt") or isinstance(candidate, EncryptedFileKeyring):
        return False
    return module not in {
        "keyring.backends.chainer",
        "keyring.backends.fail",
        "keyring.backends.null",
    }


def _choose_backend() -> keyring.backend.KeyringBackend:
    try:
        explicit = keyring.core.load_env() or keyring.core.load_config()
    except (ImportError, AttributeError, RuntimeError) as exc:
        raise KeyringError(
            f"the configured keyring backend cannot be loaded: {exc}",
            hint="check PYTHON_KEYRING_BACKEND",
        ) from None
    if explicit is not None:
        return explicit
    candidates = [b for b in keyring.backend.get_all_keyring() if _is_os_keyring(b)]
    best = max(candidates, key=keyring.backend.by_priority, default=None)
    if best is not None and best.priority >= 1:
        return best
    return EncryptedFileKeyring()


def backend() -> keyring.backend.KeyringBackend:
    """The backend in use (chosen once per configuration and cached)."""
    key = (os.environ.get("PYTHON_KEYRING_BACKEND"), str(keyring_file_path()))
    if key not in _cache:
        _cache[key] = _choose_backend()
    return _cache[key]


def backend_description() -> str:
    """One line naming the backend, for `wallet show`, `config show` and the app."""
    chosen = backend()
    if isinstance(chosen, EncryptedFileKeyring):
        created = "" if chosen.created() else " (not created yet: the first save creates it)"
        return f"encrypted file (AES-256, keyrings.alt) at {chosen.file_path}{created}"
    name = f"{type(chosen).__module__}.{type(chosen).__name__}"
    file_path = getattr(chosen, "file_path", None)
    where = f" at {file_path}" if file_path else ""
    unencrypted = " (NOT encrypted)" if "Plaintext" in type(chosen).__name__ else ""
    return f"{name}{where}{unencrypted}"


def _get(profile: str, entry: str) -> str | None:
    try:
        return backend().get_password(service_name(profile), entry)
    except keyring.errors.KeyringError as exc:
        raise KeyringError(f"the keyring could not be read: {type(exc).__name__}") from None


def _set(profile: str, entry: str, value: str) -> None:
    try:
        backend().set_password(service_name(profile), entry, value)
    except keyring.errors.KeyringError as exc:
        raise KeyringError(f"the keyring could not be written: {type(exc).__name__}") from None


def _delete(profile: str, entry: str) -> bool:
    try:
        backend().delete_password(service_name(profile), entry)
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise KeyringError(f"the keyring could not be written: {type(exc).__name__}") from None
    return True


def store_wallet_key(profile: str, key_hex: str | Secret) -> str:
    """Store a private key (and its address beside it); returns the checksum address."""
    from crossdeck.wallet.signer import Signer, normalise_private_key

    key = normalise_private_key(key_hex)
    address = Signer(key).address
    _set(profile, WALLET_KEY, key.get_secret_value())
    _set(profile, WALLET_ADDRESS, address)
    return address


def load_wallet_key(profile: str) -> Secret | None:
    """The profile's private key, or None when none is stored."""
    value = _get(profile, WALLET_KEY)
    return Secret(value) if value else None


def load_wallet_address(profile: str) -> str | None:
    """The address stored beside the key (no key needed to show it)."""
    return _get(profile, WALLET_ADDRESS) or None


def remove_wallet_key(profile: str) -> bool:
    """Delete the key and its address; False when there was no key."""
    removed = _delete(profile, WALLET_KEY)
    _delete(profile, WALLET_ADDRESS)
    return removed


def store_solana_key(profile: str, keypair: Secret) -> str:
    """Store a Solana keypair (base58 of 64 bytes, checked by `wallet.solana.read_keypair`)
    beside the EVM key; returns its address."""
    from crossdeck.wallet.solana import address_of

    return _store_family_key(profile, Family.SOLANA, keypair, address_of(keypair))


def load_solana_key(profile: str) -> Secret | None:
    return load_family_key(profile, Family.SOLANA)


def load_solana_address(profile: str) -> str | None:
    return load_family_address(profile, Family.SOLANA)


def store_bitcoin_key(profile: str, wif: Secret) -> str:
    """Store a Bitcoin key (WIF, checked by `wallet.bitcoin.address_of`) beside the EVM key;
    returns its P2WPKH address."""
    from crossdeck.wallet.bitcoin import address_of

    return _store_family_key(profile, Family.BITCOIN, wif, address_of(wif))


def load_bitcoin_key(profile: str) -> Secret | None:
    return load_family_key(profile, Family.BITCOIN)


def load_bitcoin_address(profile: str) -> str | None:
    return load_family_address(profile, Family.BITCOIN)


def _store_family_key(profile: str, family: Family, key: Secret, address: str) -> str:
    """Store `family`'s key and its address beside it (read without the key); the address."""
    key_entry, address_entry = FAMILY_ENTRIES[family]
    _set(profile, key_entry, key.get_secret_value())
    _set(profile, address_entry, address)
    return address


def load_family_key(profile: str, family: Family) -> Secret | None:
    """The key stored for `family`'s wallet (Solana, Bitcoin), or None."""
    value = _get(profile, FAMILY_ENTRIES[family][0])
    return Secret(value) if value else None


def load_family_address(profile: str, family: Family) -> str | None:
    """The address stored beside `family`'s key (no key needed to show it)."""
    return _get(profile, FAMILY_ENTRIES[family][1]) or None


def store_api_key(profile: str, api_key: str | Secret) -> None:
    """Store the service API key of a profile."""
    value = (api_key.get_secret_value() if isinstance(api_key, Secret) else api_key).strip()
    if not value:
        raise InputError("an empty API key cannot be stored", hint="use `apikey remove`")
    _set(profile, API_KEY, value)


def load_api_key(profile: str) -> Secret | None:
    """The profile's API key, or None."""
    value = _get(profile, API_KEY)
    return Secret(value) if value else None


def remove_api_key(profile: str) -> bool:
    """Delete the API key; False when there was none."""
    return _delete(profile, API_KEY)
