"""`crossdeck config|wallet|apikey`: where settings come from, and the secrets in the keyring.

Secrets are read from a hidden prompt, stdin (`--stdin`) or an encrypted JSON keystore file,
never from an option value (shell history, process list). Output shows addresses, never keys.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from crossdeck.base.errors import InputError
from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import prompts
from crossdeck.cli.support import handles_errors, print_json
from crossdeck.models.addresses import Family

if TYPE_CHECKING:
    from crossdeck.base.secret import Secret
    from crossdeck.cli import CliContext
    from crossdeck.config import Settings

YES_HELP = "Do not ask for confirmation."
STDIN_HELP = "Read the secret from the first line of stdin instead of a hidden prompt."


def _settings(obj: CliContext) -> Settings:
    from crossdeck.config import load_settings

    return load_settings(obj.profile, obj.world, obj.signer)


def _abort(message: str) -> NoReturn:
    click.echo(f"{message}; nothing changed", err=True)
    sys.exit(int(ExitCode.ABORTED))


def _confirm(question: str, yes: bool) -> None:
    if yes:
        return
    if not prompts.confirm(question, instead="--yes"):
        _abort("declined")


def _read_secret(prompt: str, from_stdin: bool) -> str:
    if from_stdin:
        value = prompts.read_line(prompt)
    else:
        value = prompts.hidden(prompt, instead="--stdin").strip()
    if not value:
        raise InputError(f"no {prompt.lower()} was given")
    return value


def _backend_line() -> str:
    from crossdeck.wallet import keystore
    from crossdeck.wallet.errors import KeyringError

    try:
        return keystore.backend_description()
    except KeyringError as exc:
        return f"unavailable: {exc}"


def _world_note(settings: Settings) -> None:
    if settings.world is not None:
        click.echo(
            f"note: profile {settings.profile!r} runs on the world file {settings.world.file}, "
            "whose demo wallet and API key take precedence over the keyring",
            err=True,
        )


# --- config ---------------------------------------------------------------------------------


@click.group("config")
def config() -> None:
    pass  # a group: its summary is in crossdeck.cli.COMMANDS


@config.command("path")
@click.pass_obj
@handles_errors
def config_path(obj: CliContext) -> None:
    """Print the config file in use (CROSSDECK_CONFIG or the user config dir)."""
    from crossdeck.config import config_file_path

    path = config_file_path()
    if obj.json:
        print_json({"path": str(path), "exists": path.exists()})
    else:
        click.echo(str(path))


def _toml_ready(value: Any) -> Any:
    # TOML has no null and wants string keys.
    if isinstance(value, dict):
        return {str(k): _toml_ready(v) for k, v in value.items() if v is not None}
    return value


@config.command("show")
@click.option("--json", "json_", is_flag=True, help="Print JSON instead of TOML.")
@click.pass_obj
@handles_errors
def config_show(obj: CliContext, json_: bool) -> None:
    """Show the settings of the profile, secrets redacted (<set> or <unset>)."""
    import tomli_w

    from crossdeck.config import config_file_path, redacted_dump

    settings = _settings(obj)
    data = redacted_dump(settings)
    remembered = _remembered_theme(settings)
    meta = {
        "config_file": str(config_file_path()),
        "keyring": _backend_line(),
        "remembered_theme": remembered,
    }
    if obj.json or json_:
        print_json({**data, **meta})
        return
    click.echo(f"# profile {settings.profile}; config file {meta['config_file']}")
    click.echo(f"# keyring: {meta['keyring']}")
    click.echo(f"# {_remembered_theme_line(remembered)}")
    click.echo(tomli_w.dumps(_toml_ready(data)).rstrip())


def _remembered_theme(settings: Settings) -> dict[str, Any]:
    """The theme last picked in the app: app state beside the data, not a setting."""
    from crossdeck.tui.ui_state import load_ui_state, state_path

    path = state_path(settings.data_dir)
    state = load_ui_state(path)
    return {
        "theme": state.theme,
        "in_effect": state.theme_for(settings.theme) is not None,
        "file": str(path),
    }


def _remembered_theme_line(remembered: dict[str, Any]) -> str:
    line = "theme remembered by the app (not from the config file): "
    if remembered["theme"] is None:
        return line + "none, the config's theme is used"
    line += f"{remembered['theme']}, kept in {remembered['file']}; "
    if remembered["in_effect"]:
        return line + "the app starts with it instead of the config's theme"
    return line + "not used, the config's theme changed since it was picked"


# --- wallet ---------------------------------------------------------------------------------


@click.group("wallet")
def wallet() -> None:
    pass  # a group: its summary is in crossdeck.cli.COMMANDS


def _store_key(obj: CliContext, key: Secret, yes: bool, family: Family = Family.EVM) -> None:
    """Store the profile's key of `family` (the EVM key, a Solana keypair, a Bitcoin WIF),
    asking before it replaces one, and print the address it signs for."""
    from crossdeck.wallet import keystore

    settings = _settings(obj)
    _world_note(settings)
    # what the wallet is called, the JSON field of its address, and its keyring entries
    kind, field, load, store = {
        Family.EVM: ("wallet", "address", keystore.load_wallet_address, keystore.store_wallet_key),
        Family.SOLANA: ("Solana wallet", "solanaAddress", keystore.load_solana_address,
                        keystore.store_solana_key),
        Family.BITCOIN: ("Bitcoin wallet", "bitcoinAddress", keystore.load_bitcoin_address,
                         keystore.store_bitcoin_key),
    }[family]  # fmt: skip
    existing = load(settings.profile)
    if existing is not None:
        _confirm(
            f"Profile {settings.profile!r} already has {kind} {existing}. Replace it? "
            "Without a backup of its key, its funds are lost.",
            yes,
        )
    address = store(settings.profile, key)
    if obj.json:
        print_json({"profile": settings.profile, field: address})
    else:
        click.echo(address)
        click.echo(f"stored in {keystore.backend_description()}", err=True)


@wallet.command("new")
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
@click.pass_obj
@handles_errors
def wallet_new(obj: CliContext, yes: bool) -> None:
    """Create a new random key, store it, and print only its address."""
    from crossdeck.wallet.signer import new_private_key

    _store_key(obj, new_private_key(), yes)


def _key_from_keystore(path: Path, password_env: str | None) -> Secret:
    from eth_account import Account

    from crossdeck.base.secret import Secret
    from crossdeck.config import load_json
    from crossdeck.wallet.errors import InvalidKeyError

    try:
        keyfile = load_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON, nested too deep
        raise InvalidKeyError(f"cannot read keystore {path}: {exc}") from None
    if password_env:
        password = os.environ.get(password_env)
        if not password:
            raise InputError(f"environment variable {password_env} is not set or empty")
    else:
        password = prompts.hidden(f"Password of {path.name}", instead="--password-env")
    try:
        return Secret("0x" + bytes(Account.decrypt(keyfile, password)).hex())
    except (ValueError, KeyError, TypeError, AttributeError):  # a JSON file, not a keystore
        raise InvalidKeyError(
            f"cannot decrypt keystore {path}: wrong password or not a keystore file"
        ) from None


@wallet.command("import")
@click.option("--stdin", "from_stdin", is_flag=True, help=STDIN_HELP)
@click.option(
    "--keystore",
    "keystore_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Import from an encrypted JSON keystore (geth/eth-account format).",
)
@click.option(
    "--password-env",
    metavar="VAR",
    help="With --keystore: read its password from this environment variable.",
)
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
@click.pass_obj
@handles_errors
def wallet_import(
    obj: CliContext,
    from_stdin: bool,
    keystore_file: Path | None,
    password_env: str | None,
    yes: bool,
) -> None:
    """Store an existing private key (hex, from a hidden prompt or stdin, or a keystore)."""
    from crossdeck.base.secret import Secret
    from crossdeck.wallet.signer import normalise_private_key

    if keystore_file is not None and from_stdin:
        raise InputError("use either --keystore or --stdin, not both")
    if password_env and keystore_file is None:
        raise InputError("--password-env only goes with --keystore")
    if keystore_file is not None:
        key = _key_from_keystore(keystore_file, password_env)
    else:
        key = Secret(_read_secret("Private key (hex)", from_stdin))
    _store_key(obj, normalise_private_key(key), yes)


@wallet.command("import-solana")
@click.option("--stdin", "from_stdin", is_flag=True, help=STDIN_HELP)
@click.option(
    "--keypair-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Import from a Solana CLI keypair file (a JSON array of 64 numbers).",
)
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
@click.pass_obj
@handles_errors
def wallet_import_solana(
    obj: CliContext, from_stdin: bool, keypair_file: Path | None, yes: bool
) -> None:
    """Store a Solana key beside the EVM key: the base58 of its 64-byte keypair (hidden
    prompt or stdin) or a Solana CLI keypair file. It is kept only in the keyring."""
    from crossdeck.wallet.solana import read_keypair

    if keypair_file is not None and from_stdin:
        raise InputError("use either --keypair-file or --stdin, not both")
    if keypair_file is not None:
        try:
            text = keypair_file.read_text(encoding="utf-8")
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read keypair file {keypair_file}: {exc}") from None
    else:
        text = _read_secret("Solana keypair (base58 of 64 bytes, or a JSON array)", from_stdin)
    _store_key(obj, read_keypair(text), yes, Family.SOLANA)


@wallet.command("import-bitcoin")
@click.option("--stdin", "from_stdin", is_flag=True, help=STDIN_HELP)
@click.option(
    "--mnemonic",
    is_flag=True,
    help="Read the BIP-39 words of a seed you hold instead of a WIF key (hidden prompt or "
    "stdin); the key is the one at --path.",
)
@click.option(
    "--path",
    default="m/84'/0'/0'/0/0",
    show_default=True,
    help="With --mnemonic: the BIP-32 path of the key (BIP-84: native SegWit).",
)
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
@click.pass_obj
@handles_errors
def wallet_import_bitcoin(
    obj: CliContext, from_stdin: bool, mnemonic: bool, path: str, yes: bool
) -> None:
    """Store a Bitcoin key (native SegWit, bc1q…) beside the EVM key: a WIF private key, or
    the key at a BIP-84 path of a BIP-39 seed (--mnemonic). It is kept only in the keyring and
    never printed; only its address is."""
    from crossdeck.base.secret import Secret
    from crossdeck.wallet.bitcoin import address_of, key_from_mnemonic

    if mnemonic:
        words = Secret(_read_secret("BIP-39 words of the seed", from_stdin))
        key = key_from_mnemonic(words, path)
    else:
        key = Secret(_read_secret("Bitcoin private key (WIF)", from_stdin))
    address_of(key)  # a key that is not one is refused before anything is stored
    _store_key(obj, key, yes, Family.BITCOIN)


@wallet.command("show")
@click.pass_obj
@handles_errors
def wallet_show(obj: CliContext) -> None:
    """Print the wallet address (no key is read) and the keyring backend."""
    from crossdeck.credentials import (
        resolve_bitcoin_address,
        resolve_solana_address,
        resolve_wallet_address,
    )

    settings = _settings(obj)
    address = resolve_wallet_address(settings)
    solana = resolve_solana_address(settings)
    bitcoin = resolve_bitcoin_address(settings)
    source = "world file" if settings.world is not None else "keyring"
    backend = _backend_line()
    if obj.json:
        print_json(
            {"profile": settings.profile, "address": address, "solanaAddress": solana,
             "bitcoinAddress": bitcoin, "source": source, "keyring": backend}
        )  # fmt: skip
        return
    if address is None:
        click.echo(f"no wallet stored for profile {settings.profile!r}")
        click.echo("create one with `crossdeck wallet new` or `crossdeck wallet import`")
    else:
        click.echo(address)
        click.echo(f"profile: {settings.profile}  source: {source}")
    if solana is not None:
        click.echo(f"solana: {solana}")
    if bitcoin is not None:
        click.echo(f"bitcoin: {bitcoin}")
    click.echo(f"keyring: {backend}")


@wallet.command("remove")
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
@click.pass_obj
@handles_errors
def wallet_remove(obj: CliContext, yes: bool) -> None:
    """Delete the profile's wallet key from the keyring."""
    from crossdeck.wallet import keystore

    settings = _settings(obj)
    address = keystore.load_wallet_address(settings.profile)
    if address is None and keystore.load_wallet_key(settings.profile) is None:
        raise InputError(f"profile {settings.profile!r} has no wallet key in the keyring")
    _confirm(
        f"Remove wallet {address or '(unknown address)'} of profile {settings.profile!r} "
        "from the keyring? Without a backup of its key, its funds are lost.",
        yes,
    )
    keystore.remove_wallet_key(settings.profile)
    if obj.json:
        print_json({"profile": settings.profile, "removed": address})
    else:
        click.echo(f"removed wallet {address} of profile {settings.profile}")


# --- apikey ---------------------------------------------------------------------------------


@click.group("apikey")
def apikey() -> None:
    pass  # a group: its summary is in crossdeck.cli.COMMANDS


@apikey.command("set")
@click.option("--stdin", "from_stdin", is_flag=True, help=STDIN_HELP)
@click.pass_obj
@handles_errors
def apikey_set(obj: CliContext, from_stdin: bool) -> None:
    """Store the service API key (hidden prompt, or --stdin)."""
    from crossdeck.wallet import keystore

    settings = _settings(obj)
    _world_note(settings)
    keystore.store_api_key(settings.profile, _read_secret("API key", from_stdin))
    if obj.json:
        print_json({"profile": settings.profile, "api_key": "<set>"})
    else:
        click.echo(f"API key stored for profile {settings.profile}")


@apikey.command("remove")
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
@click.pass_obj
@handles_errors
def apikey_remove(obj: CliContext, yes: bool) -> None:
    """Delete the profile's API key from the keyring."""
    from crossdeck.wallet import keystore

    settings = _settings(obj)
    if keystore.load_api_key(settings.profile) is None:
        raise InputError(f"profile {settings.profile!r} has no API key in the keyring")
    _confirm(f"Remove the API key of profile {settings.profile!r} from the keyring?", yes)
    keystore.remove_api_key(settings.profile)
    if obj.json:
        print_json({"profile": settings.profile, "api_key": "<unset>"})
    else:
        click.echo(f"API key removed for profile {settings.profile}")


commands = [config, wallet, apikey]
