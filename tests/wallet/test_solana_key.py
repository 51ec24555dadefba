"""`crossdeck wallet import-solana`: a Solana keypair (base58 of 64 bytes, or a Solana CLI
JSON array) goes into the keyring beside the EVM key and nowhere else; what is not a keypair,
or a keypair whose public half is not its secret's, is refused without echoing it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result
from solders.keypair import Keypair

from crossdeck.cli import main
from crossdeck.wallet import keystore

KEYPAIR = Keypair.from_seed(bytes(range(32)))
BASE58 = str(KEYPAIR)
ADDRESS = str(KEYPAIR.pubkey())


def run(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, args, input=input)


def test_import_base58_from_stdin_then_show(cli_env: Path) -> None:
    result = run(["wallet", "import-solana", "--stdin"], input=BASE58)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == ADDRESS
    assert BASE58 not in result.output
    stored = keystore.load_solana_key("mainnet")
    assert stored is not None and stored.get_secret_value() == BASE58
    assert keystore.load_wallet_key("mainnet") is None  # the EVM key is another entry
    shown = json.loads(run(["--json", "wallet", "show"]).stdout)
    assert shown["solanaAddress"] == ADDRESS
    assert BASE58 not in cli_env.read_text()  # encrypted at rest


def test_import_a_solana_cli_keypair_file(cli_env: Path, tmp_path: Path) -> None:
    keyfile = tmp_path / "id.json"
    keyfile.write_text(json.dumps(list(bytes(KEYPAIR))))
    result = run(["--json", "wallet", "import-solana", "--keypair-file", str(keyfile)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"profile": "mainnet", "solanaAddress": ADDRESS}


def test_what_is_not_a_keypair_is_refused_without_echo(cli_env: Path, tmp_path: Path) -> None:
    raw = bytes(KEYPAIR)
    mismatched = Keypair.from_seed(bytes(32))
    forged = bytes(raw[:32]) + bytes(mismatched.pubkey())
    from crossdeck.models.base58 import b58encode

    for text, said in (
        (b58encode(raw[:32]), "64 bytes"),
        ("0OIl", "not base58"),
        (b58encode(forged), "public half"),
        ("[1, 2, 3]", "JSON array of 64 numbers"),
    ):
        result = run(["wallet", "import-solana", "--stdin"], input=text)
        assert result.exit_code == 3, result.output
        assert said in result.output
        assert text not in result.output or len(text) < 10
    assert keystore.load_solana_key("mainnet") is None
