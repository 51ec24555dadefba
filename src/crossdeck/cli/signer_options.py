"""The global signer options, named and meant as in Foundry's cast.

    --account NAME        the keystore ~/.foundry/keystores/NAME      (env ETH_KEYSTORE_ACCOUNT)
    --keystore PATH       a keystore file anywhere                     (env ETH_KEYSTORE)
    --password-file FILE  the keystore's password (else a hidden prompt)
    --browser             the browser wallet, through a page on 127.0.0.1
    --browser-port PORT   that page's port (default: a free one)
    --browser-disable-open  print the page's URL only, do not open it
    --from ADDRESS        alone: read-only, nothing can be signed      (env ETH_FROM)
                          with a signer: the address it must sign as

They make the `signer` section of the settings for this run (`config.SignerSettings`); with
none, the profile's own section (the keyring key by default) stands. cast's `--password`,
which puts the password on the command line (in `ps` and shell history), is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from crossdeck.cli.option_types import ADDRESS, PORT

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = [
    click.option(
        "--account",
        metavar="NAME",
        envvar="ETH_KEYSTORE_ACCOUNT",
        help="Sign with the keystore ~/.foundry/keystores/NAME (as cast's --account).",
    ),
    click.option(
        "--keystore",
        type=click.Path(path_type=Path),
        envvar="ETH_KEYSTORE",
        help="Sign with this V3 keystore file (as cast's --keystore).",
    ),
    click.option(
        "--password-file",
        type=click.Path(path_type=Path),
        help="The keystore's password: this file's first line (else a hidden prompt).",
    ),
    click.option(
        "--browser",
        is_flag=True,
        help="Sign in your browser wallet, through a page crossdeck serves on 127.0.0.1.",
    ),
    click.option("--browser-port", type=PORT, help="The browser page's port (default: free)."),
    click.option(
        "--browser-disable-open",
        is_flag=True,
        help="Print the browser page's URL instead of opening it.",
    ),
    click.option(
        "--from",
        "from_",
        type=ADDRESS,
        envvar="ETH_FROM",
        metavar="ADDRESS",
        help="Alone: read-only for this address (nothing is signed). With a signer: the "
        "address it must be.",
    ),
]


def signer_options(func: F) -> F:
    for option in reversed(_OPTIONS):
        func = option(func)
    return func


def chosen_signer(
    account: str | None,
    keystore: Path | None,
    password_file: Path | None,
    browser: bool,
    browser_port: int | None,
    browser_disable_open: bool,
    from_: str | None,
) -> dict[str, Any]:
    """The `signer` settings section these options make; {} when none was given."""
    if account and keystore:
        raise click.UsageError("--account and --keystore name two keystores: give one")
    keyed = bool(account or keystore)
    if browser and keyed:
        raise click.UsageError("--browser and a keystore are two signers: give one")
    if password_file is not None and not keyed:
        raise click.UsageError("--password-file goes with --account or --keystore")
    if (browser_port is not None or browser_disable_open) and not browser:
        raise click.UsageError("--browser-port and --browser-disable-open go with --browser")
    if keyed:
        return {
            "kind": "keystore",
            "account": account,
            "keystore": keystore,
            "password_file": password_file,
            "address": from_,
        }
    if browser:
        return {
            "kind": "browser",
            "browser_open": not browser_disable_open,
            "browser_port": browser_port or 0,
            "address": from_,
        }
    if from_:
        return {"kind": "read-only", "address": from_}
    return {}
