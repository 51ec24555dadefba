"""`crossdeck wallet import-bitcoin`: a native SegWit key, as WIF or at a BIP-84 path of a BIP-39
seed, goes into the keyring beside the EVM key and nowhere else; only its bc1q address is
printed; what is not a key is refused (exit 3) without echoing it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from crossdeck.cli import main
from crossdeck.wallet import keystore

# BIP-84's own test vector: the first receive address of this seed's first account
MNEMONIC = "abandon " * 11 + "about"
BIP84_ADDRESS = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
BIP84_WIF = "KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d"


def run(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, args, input=input)


def test_import_a_wif_from_stdin_then_show(cli_env: Path) -> None:
    result = run(["wallet", "import-bitcoin", "--stdin"], input=BIP84_WIF)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == BIP84_ADDRESS
    assert BIP84_WIF not in result.output
    stored = keystore.load_bitcoin_key("mainnet")
    assert stored is not None and stored.get_secret_value() == BIP84_WIF
    assert keystore.load_wallet_key("mainnet") is None  # the EVM key is another entry
    shown = json.loads(run(["--json", "wallet", "show"]).stdout)
    assert shown["bitcoinAddress"] == BIP84_ADDRESS
    assert BIP84_WIF not in cli_env.read_text()  # encrypted at rest


def test_import_the_bip84_key_of_a_seed(cli_env: Path) -> None:
    result = run(["--json", "wallet", "import-bitcoin", "--mnemonic", "--stdin"], input=MNEMONIC)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"profile": "mainnet", "bitcoinAddress": BIP84_ADDRESS}
    assert "abandon" not in result.output
    stored = keystore.load_bitcoin_key("mainnet")
    assert stored is not None and stored.get_secret_value() == BIP84_WIF
    other = run(
        ["--json", "wallet", "import-bitcoin", "--mnemonic", "--stdin", "--yes",
         "--path", "m/84'/0'/0'/0/1"], input=MNEMONIC,
    )  # fmt: skip
    assert (
        json.loads(other.stdout)["bitcoinAddress"] == "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"
    )


def test_what_is_not_a_key_is_refused_without_echo(cli_env: Path) -> None:
    for args, text, said in (
        ([], "not-a-wif-at-all", "not a Bitcoin private key in WIF"),
        (["--mnemonic"], "abandon " * 12, "not a BIP-39 mnemonic"),
        (["--mnemonic", "--path", "m/84h/x"], MNEMONIC, "not a BIP-32 derivation path"),
    ):
        result = run(["wallet", "import-bitcoin", "--stdin", *args], input=text)
        assert result.exit_code == 3, result.output
        assert said in result.output
        assert text.strip() not in result.output
    assert keystore.load_bitcoin_key("mainnet") is None
