"""Hostile and broken Foundry keystore files: each is refused with a clear input error (exit 3)
before any key derivation runs, and a keystore with standard parameters still opens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eth_keyfile import create_keyfile_json

from crossdeck.base.exitcodes import ExitCode
from crossdeck.base.secret import Secret
from crossdeck.wallet.errors import InvalidKeyError
from crossdeck.wallet.foundry_keystore import KeystorePasswordError, unlock

PASSWORD = Secret("keystore password")
KEY = "0x" + "42" * 32


def keystore(kdf: str, iterations: int = 2, **params: Any) -> dict[str, Any]:
    """A V3 keystore of KEY (scrypt's n or pbkdf2's c is `iterations`), then `params` written
    over its kdfparams (which breaks its MAC: those are refused before it is checked)."""
    data: dict[str, Any] = create_keyfile_json(
        bytes.fromhex(KEY[2:]),
        PASSWORD.get_secret_value().encode(),
        kdf=kdf,
        iterations=iterations,
    )
    data["crypto"]["kdfparams"].update(params)
    return data


def refused(tmp_path: Path, content: str) -> str:
    path = tmp_path / "keystore"
    path.write_text(content)
    with pytest.raises(InvalidKeyError) as caught:
        unlock(path, None, "--keystore", PASSWORD)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    return str(caught.value)


def test_json_nested_past_the_parsers_limit_is_not_a_keystore(tmp_path: Path) -> None:
    # under the 64 KiB limit, but deeper than json's recursion: was "unexpected RecursionError"
    assert "is not a JSON keystore" in refused(tmp_path, "[" * 60_000)


@pytest.mark.parametrize(
    ("kdf", "params", "words"),
    [
        # 16 GiB of scrypt memory: was attempted (pycryptodome allocates what the file asks)
        ("scrypt", {"n": 1 << 24}, "MiB of work"),
        ("scrypt", {"n": 1 << 10, "p": 1 << 20}, "MiB of work"),
        # 10^10 rounds: was "unexpected OverflowError"; 10^9 would have run for half an hour
        ("pbkdf2", {"c": 10**10}, "rounds"),
        ("pbkdf2", {"c": 10**9}, "rounds"),
        ("scrypt", {"n": "8"}, "not a positive integer"),
        ("pbkdf2", {"c": -1}, "not a positive integer"),
        ("scrypt", {"dklen": 1 << 40}, "derived key length"),
    ],
)
def test_costly_or_broken_kdf_parameters_are_refused_before_deriving(
    tmp_path: Path, kdf: str, params: dict[str, Any], words: str
) -> None:
    message = refused(tmp_path, json.dumps(keystore(kdf, **params)))
    assert words in message
    assert PASSWORD.get_secret_value() not in message


@pytest.mark.parametrize("kdf", ["scrypt", "pbkdf2"])
def test_standard_parameters_still_open_and_a_wrong_password_is_exit_3(
    tmp_path: Path, kdf: str
) -> None:
    # geth's standard scrypt n (2^18, r 8) is within the bound; a small n keeps the test quick
    path = tmp_path / "keystore"
    path.write_text(json.dumps(keystore(kdf, iterations=1 << 12)))
    assert unlock(path, None, "--keystore", PASSWORD).get_secret_value() == KEY
    with pytest.raises(KeystorePasswordError) as caught:
        unlock(path, None, "--keystore", Secret("not it"))
    assert caught.value.exit_code == ExitCode.INVALID_INPUT


def test_geths_standard_scrypt_cost_is_within_the_bound() -> None:
    from crossdeck.wallet.foundry_keystore import MAX_SCRYPT_BYTES

    assert 128 * (1 << 18) * 8 * 1 <= MAX_SCRYPT_BYTES


def test_a_keystore_naming_another_address_than_its_keys_is_refused(tmp_path: Path) -> None:
    data = keystore("pbkdf2", iterations=1 << 10)
    data["address"] = "70997970c51812dc3a010c7d01b50e0d17dc79c8"  # not KEY's account
    path = tmp_path / "keystore"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidKeyError) as caught:
        unlock(path, None, "--keystore", PASSWORD)
    assert "names the address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8" in str(caught.value)
    assert KEY[2:] not in str(caught.value)
