"""Encrypted V3 keystores as Foundry's cast reads them: `--account NAME` is the file NAME in
`~/.foundry/keystores`, `--keystore PATH` a file anywhere. The password comes from
`--password-file` (its first line, trailing whitespace dropped, as cast reads it) or a hidden
prompt on the terminal. The decrypted key lives in memory for the run only; the password is
never kept, printed or logged, and errors never repeat it.
"""

from __future__ import annotations

import getpass
import json
import sys
from pathlib import Path
from typing import Any

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret
from crossdeck.models.addresses import to_checksum_address
from crossdeck.wallet.errors import InvalidKeyError

# a keystore is a few hundred bytes; anything far larger is not one
MAX_KEYSTORE_BYTES = 64 * 1024
# The key-derivation costs a keystore may ask for. The file chooses them, so a hostile or broken
# one could ask scrypt for gigabytes of memory or pbkdf2 for hours before the password is even
# checked. geth's standard scrypt (n 2^18, r 8: 256 MiB, about 3 s here) and pbkdf2 (c 2^18)
# pass with room to spare; Foundry writes n 2^13.
MAX_SCRYPT_BYTES = 1 << 30  # 128 * n * r * p: scrypt's memory for p = 1, and its work
MAX_PBKDF2_ROUNDS = 1 << 22  # about 7 s of hmac-sha256 on this machine
DERIVED_KEY_BYTES = (32, 64)  # V3 uses the first 32; dklen outside this is not a V3 keystore


class KeystorePasswordError(InputError):
    """The password does not open the keystore (exit 3)."""


class KeystorePromptUnavailable(CrossdeckError):
    """The keystore needs a password, none was given, and there is no terminal to ask on."""

    exit_code = ExitCode.ABORTED


def foundry_keystores_dir() -> Path:
    """Where `--account NAME` looks: `~/.foundry/keystores`, as in cast."""
    return Path.home() / ".foundry" / "keystores"


def account_path(name: str) -> Path:
    """The keystore file of `--account NAME`; a name is a file name, never a path."""
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise InputError(
            f"--account takes a keystore's file name in {foundry_keystores_dir()}, not {name!r}",
            hint="use --keystore PATH for a file elsewhere",
        )
    return foundry_keystores_dir() / name


def read_keystore(path: Path, option: str = "--keystore") -> dict[str, Any]:
    """The keystore's JSON, or an input error that says what is wrong with the file."""
    if path.is_dir():
        raise InvalidKeyError(
            f"{option}: {path} is a directory", hint="name the keystore file itself"
        )
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_KEYSTORE_BYTES + 1)
    except FileNotFoundError:
        hint = "`cast wallet list` shows your keystores" if option == "--account" else None
        raise InvalidKeyError(f"{option}: no keystore at {path}", hint=hint) from None
    except OSError as exc:
        raise InvalidKeyError(f"{option}: {path} cannot be read ({exc.strerror})") from None
    if len(raw) > MAX_KEYSTORE_BYTES:
        raise InvalidKeyError(f"{option}: {path} is too large to be a keystore")
    try:
        data = json.loads(raw)
    # RecursionError: 64 KiB of `[` nests deeper than the parser's recursion limit
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidKeyError(f"{option}: {path} is not a JSON keystore") from None
    crypto = data.get("crypto", data.get("Crypto")) if isinstance(data, dict) else None
    if not isinstance(crypto, dict) or data.get("version") != 3:
        raise InvalidKeyError(f"{option}: {path} is not a version 3 keystore")
    _check_kdf_cost(crypto, f"{option}: {path}")
    keystore: dict[str, Any] = data
    return keystore


def _check_kdf_cost(crypto: dict[str, Any], where: str) -> None:
    """Refuse key-derivation parameters that would take too much memory or time, before any
    derivation runs (eth-keyfile runs whatever the file asks for)."""
    kdf = crypto.get("kdf")
    params = crypto.get("kdfparams")
    if kdf not in ("scrypt", "pbkdf2") or not isinstance(params, dict):
        return  # not one eth-keyfile derives: `decrypt` refuses it as an unknown cipher

    def whole(name: str) -> int:
        value = params.get(name)
        if type(value) is not int or value < 1:
            raise InvalidKeyError(f"{where}: its {kdf} parameter {name} is not a positive integer")
        return value

    dklen = whole("dklen")
    if not DERIVED_KEY_BYTES[0] <= dklen <= DERIVED_KEY_BYTES[1]:
        raise InvalidKeyError(f"{where}: its derived key length {dklen} is not a V3 keystore's")
    if kdf == "scrypt":
        cost = 128 * whole("n") * whole("r") * whole("p")
        if cost > MAX_SCRYPT_BYTES:
            raise InvalidKeyError(
                f"{where}: its scrypt parameters ask for {cost >> 20:,} MiB of work, more than "
                f"the {MAX_SCRYPT_BYTES >> 20} MiB crossdeck allows (geth's standard takes 256)",
                hint="re-encrypt the key with standard parameters: `cast wallet import`",
            )
    elif whole("c") > MAX_PBKDF2_ROUNDS:
        raise InvalidKeyError(
            f"{where}: its pbkdf2 asks for {params['c']:,} rounds, more than the "
            f"{MAX_PBKDF2_ROUNDS:,} crossdeck allows",
            hint="re-encrypt the key with standard parameters: `cast wallet import`",
        )


def keystore_address(data: dict[str, Any]) -> str | None:
    """The address a keystore names in the clear (geth and most tools write it), if any."""
    value = data.get("address")
    if not isinstance(value, str):
        return None
    body = value.removeprefix("0x")
    if len(body) != 40:
        return None
    try:
        return to_checksum_address("0x" + body.lower())
    except ValueError:
        return None


def read_password_file(path: Path) -> Secret:
    """The password in `--password-file`: its first line, trailing whitespace dropped."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = handle.readline(4096)
    except FileNotFoundError:
        raise InputError(f"--password-file: no file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise InputError(f"--password-file: {path} cannot be read ({reason})") from None
    return Secret(first.rstrip())


def prompt_password(path: Path, option: str) -> Secret:
    """Ask for the password on the terminal (hidden). With no terminal on standard input
    (closed, a pipe, a file) there is no one to ask: exit 11, naming the option to use."""
    stdin = sys.stdin
    if stdin is None or stdin.closed or not stdin.isatty():
        raise KeystorePromptUnavailable(
            f"the keystore {path} ({option}) needs its password and standard input is not a "
            "terminal to ask on",
            hint="pass --password-file FILE",
        )
    try:
        return Secret(getpass.getpass(f"Password for the keystore {path}: "))
    except EOFError:
        raise KeystorePromptUnavailable(
            f"no password for the keystore {path}: input ended", hint="pass --password-file FILE"
        ) from None


def decrypt(data: dict[str, Any], password: Secret, path: Path) -> Secret:
    """The keystore's private key as 0x-hex; a wrong password is `KeystorePasswordError`."""
    from eth_keyfile.keyfile import decode_keyfile_json

    try:
        # bytes: eth-keyfile's pbkdf2 path takes no str (its scrypt path takes both)
        secret: Any = password.get_secret_value().encode("utf-8")
        key = decode_keyfile_json(data, secret)
    except ValueError as exc:
        if "MAC mismatch" in str(exc):
            raise KeystorePasswordError(
                f"wrong password for the keystore {path}", hint="nothing was signed or sent"
            ) from None
        raise InvalidKeyError(f"the keystore {path} cannot be decrypted: {exc}") from None
    except (KeyError, TypeError, NotImplementedError):
        raise InvalidKeyError(f"the keystore {path} uses an unknown or broken cipher") from None
    return Secret("0x" + bytes(key).hex())


def unlock(
    path: Path, password_file: Path | None, option: str, password: Secret | None = None
) -> Secret:
    """Take, read or ask for the password, and decrypt: the key, for this run only."""
    data = read_keystore(path, option)
    if password is None and password_file is not None:
        password = read_password_file(password_file)
    if password is None:
        password = prompt_password(path, option)
    key = decrypt(data, password, path)
    named = keystore_address(data)
    if named is not None:
        from eth_account import Account

        # quotes, balances and the app read the address in the clear without the password:
        # a file whose key is another account's would have them show one account and sign
        # for another (geth refuses such a file too)
        holder = Account.from_key(key.get_secret_value()).address
        if holder != named:
            raise InvalidKeyError(
                f"the keystore {path} names the address {named}, but its key is {holder}'s",
                hint="nothing was signed or sent; re-create the keystore from the key",
            )
    return key
