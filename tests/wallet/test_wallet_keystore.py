"""Keyring round trips on real backends with their files under tmp_path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from keyrings.alt.file import PlaintextKeyring

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.wallet import keystore
from crossdeck.wallet.errors import KeyringLockedError, KeyringPasswordError
from helpers.keys import DEV_KEYS

KEY = DEV_KEYS[1]
ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


def test_wallet_key_round_trip_in_the_encrypted_file(keyring_file: Path) -> None:
    assert keystore.load_wallet_key("alpha") is None
    assert keystore.store_wallet_key("alpha", KEY.upper().replace("0X", "")) == ADDRESS
    loaded = keystore.load_wallet_key("alpha")
    assert isinstance(loaded, Secret)
    assert loaded.get_secret_value() == KEY
    assert keystore.load_wallet_address("alpha") == ADDRESS

    stored = keyring_file.read_text()
    assert "crossdeck_3Aalpha" in stored  # the entry exists...
    assert KEY[2:] not in stored.lower()  # ...but not in clear
    assert ADDRESS.lower()[2:] not in stored.lower()

    assert keystore.remove_wallet_key("alpha") is True
    assert keystore.load_wallet_key("alpha") is None
    assert keystore.load_wallet_address("alpha") is None
    assert keystore.remove_wallet_key("alpha") is False


def test_profiles_are_separate_namespaces(keyring_file: Path) -> None:
    keystore.store_api_key("alpha", "key-of-alpha")
    keystore.store_api_key("beta", Secret("key-of-beta"))
    alpha, beta = keystore.load_api_key("alpha"), keystore.load_api_key("beta")
    assert alpha is not None and alpha.get_secret_value() == "key-of-alpha"
    assert beta is not None and beta.get_secret_value() == "key-of-beta"
    assert keystore.remove_api_key("alpha") is True
    assert keystore.load_api_key("alpha") is None
    assert keystore.load_api_key("beta") is not None
    assert "key-of-beta" not in keyring_file.read_text()
    with pytest.raises(InputError):
        keystore.store_api_key("beta", "   ")


def test_a_second_process_reads_what_the_first_stored(keyring_file: Path) -> None:
    keystore.store_wallet_key("alpha", KEY)
    code = (
        "from crossdeck.wallet import keystore\n"
        "print(keystore.load_wallet_address('alpha'))\n"
        "print(keystore.backend_description())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == ADDRESS
    assert lines[1] == f"encrypted file (AES-256, keyrings.alt) at {keyring_file}"


def test_wrong_password_is_refused(keyring_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keystore.store_wallet_key("alpha", KEY)
    monkeypatch.setenv(keystore.ENV_PASSWORD, "not the password")
    keystore.set_keyring_password(None)  # drop the unlocked backend
    with pytest.raises(KeyringPasswordError, match="wrong password"):
        keystore.load_wallet_key("alpha")
    with pytest.raises(KeyringPasswordError):
        keystore.store_api_key("alpha", "x")


def test_set_keyring_password_unlocks_without_env(
    keyring_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keystore.store_wallet_key("alpha", KEY)
    password = keystore.os.environ[keystore.ENV_PASSWORD]
    monkeypatch.delenv(keystore.ENV_PASSWORD)
    keystore.set_keyring_password(None)
    assert keystore.needs_password()
    # pytest's stdin is not a terminal: nobody can be asked, so it is a clear error.
    with pytest.raises(KeyringLockedError, match=keystore.ENV_PASSWORD):
        keystore.load_wallet_key("alpha")
    keystore.set_keyring_password(Secret(password))
    assert not keystore.needs_password()
    key = keystore.load_wallet_key("alpha")
    assert key is not None and key.get_secret_value() == KEY


def test_python_keyring_backend_is_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    keystore.set_keyring_password(None)
    assert isinstance(keystore.backend(), PlaintextKeyring)
    assert not keystore.needs_password()
    assert "NOT encrypted" in keystore.backend_description()
    keystore.store_api_key("alpha", "plain-key")
    assert keystore.load_api_key("alpha") == Secret("plain-key")
    assert (tmp_path / "python_keyring" / "keyring_pass.cfg").exists()


def test_automatic_choice_never_picks_a_plaintext_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no keyringrc.cfg there
    monkeypatch.setenv(keystore.ENV_FILE, str(tmp_path / "auto.cfg"))
    keystore.set_keyring_password(None)
    chosen = keystore.backend()
    assert not type(chosen).__module__.startswith("keyrings.alt")
    if isinstance(chosen, keystore.EncryptedFileKeyring):
        assert chosen.file_path == str(tmp_path / "auto.cfg")
    else:  # a desktop with a real OS keyring
        assert chosen.priority >= 1


def test_a_keyring_not_created_yet_asks_for_nothing(
    keyring_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh machine: no password is asked for a keyring file that does not exist; reading
    finds nothing, and the first save is what creates it (with a new password)."""
    monkeypatch.delenv(keystore.ENV_PASSWORD)
    keystore.set_keyring_password(None)
    assert not keyring_file.exists()
    assert not keystore.needs_password()
    missing = keystore.not_created_yet()
    assert missing is not None and missing.startswith("no saved key yet")
    assert str(keyring_file) in missing
    assert keystore.backend_description().endswith("(not created yet: the first save creates it)")
    assert keystore.load_wallet_key("alpha") is None
    assert keystore.load_api_key("alpha") is None
    # pytest's stdin is no terminal: saving says the keyring is new and needs a password
    with pytest.raises(KeyringLockedError, match="does not exist yet") as refused:
        keystore.store_api_key("alpha", "k")
    assert keystore.ENV_PASSWORD in str(refused.value.hint)
    assert not keyring_file.exists()

    keystore.set_keyring_password(Secret("chosen at the first save"))
    keystore.store_api_key("alpha", "k")
    assert keyring_file.exists()
    keystore.set_keyring_password(None)
    assert keystore.needs_password()  # created: now there is something to unlock
    assert keystore.not_created_yet() is None
    assert "not created" not in keystore.backend_description()


def test_an_empty_keyring_file_is_not_created_yet_and_a_broken_one_is(
    keyring_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(keystore.ENV_PASSWORD)
    keyring_file.write_text("")
    keystore.set_keyring_password(None)
    assert not keystore.needs_password()
    keyring_file.write_bytes(b"\xff\xfe not an INI file")
    keystore.set_keyring_password(None)
    # asked for, so that reading it says what is wrong with it
    assert keystore.needs_password()
    assert keystore.not_created_yet() is None
