"""The crossdeck command line: a thin shell over the layers.

Command modules live in `crossdeck.cli.commands`; each exposes `commands`, a list of click
commands or groups. `COMMANDS` below names every top-level command, its module and its one-line
summary; a module is imported only when one of its commands runs or shows its own help, so
`--help` and `--version` import click and nothing else of weight.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from crossdeck import __version__
from crossdeck.cli.guard import GuardedGroup
from crossdeck.cli.lazy_group import LazyCommand
from crossdeck.cli.signer_options import chosen_signer, signer_options

_MODULE = "crossdeck.cli.commands."
COMMANDS = {
    "apikey": LazyCommand(
        _MODULE + "settings", "The profile's service API key, kept in the keyring."
    ),
    "balances": LazyCommand(
        _MODULE + "portfolio",
        "What an address holds on every chain and on the venue, in units and USD.",
    ),
    "bridge": LazyCommand(
        _MODULE + "bridge",
        "Quote a transfer, show it, ask to confirm, execute every step and track it to the end.",
    ),
    "chains": LazyCommand(
        _MODULE + "service",
        "The chains the service supports and their currencies (chain 1337 is the venue).",
    ),
    "completion": LazyCommand(
        _MODULE + "completion", "Print the completion script of bash, zsh or fish."
    ),
    "config": LazyCommand(_MODULE + "settings", "The settings file and the settings in effect."),
    "demo": LazyCommand(
        _MODULE + "sim", "Start the demo world in this process and open the app on it."
    ),
    "quote": LazyCommand(
        _MODULE + "service",
        "Ask the service for a quote and show exactly what executing it would do.",
    ),
    "requests": LazyCommand(
        _MODULE + "history", "List requests (history) from /requests/v3 (or v2), with any filter."
    ),
    "resume": LazyCommand(
        _MODULE + "execute", "Continue an interrupted run (default: the latest unfinished one)."
    ),
    "recover": LazyCommand(
        _MODULE + "recover",
        "Say what the service offers for a request that went wrong (a deposit address paid "
        "in another currency), and do it once confirmed.",
    ),
    "sim": LazyCommand(
        _MODULE + "sim",
        "The local demo world: the service, the venue and two EVM chains on loopback.",
    ),
    "status": LazyCommand(
        _MODULE + "service",
        "Show the status of a request once (see `crossdeck watch` to follow it).",
    ),
    "venue": LazyCommand(
        _MODULE + "venue",
        "The perps venue (chain 1337): the account, transfers between books, withdrawals.",
    ),
    "wallet": LazyCommand(_MODULE + "settings", "The profile's wallet key, kept in the keyring."),
    "watch": LazyCommand(
        _MODULE + "watch", "Follow requests until each is final, printing every status change."
    ),
    "webhook": LazyCommand(
        _MODULE + "webhook",
        "Receive status webhooks, verify a delivery, or sign a body for testing (spec 6).",
    ),
}


@dataclass
class CliContext:
    """Global options, shared by every command through `click.pass_obj`."""

    profile: str | None
    json: bool
    world: Path | None
    signer: dict[str, Any] = field(default_factory=dict)
    """The signer the global options chose (`config.SignerSettings`), empty for the default."""


@click.group(
    cls=GuardedGroup,
    table=COMMANDS,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--profile", envvar="CROSSDECK_PROFILE", help="Config profile: demo, mainnet or a custom one."
)
@click.option("--json", "json_", is_flag=True, help="Machine-readable output (JSON or JSON lines).")
@click.option(
    "--world",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="CROSSDECK_WORLD",
    help="Talk to the demo world described by this file (see `sim serve --world-file`).",
)
@click.option(
    "--access-token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Send the access token on this file's first line (Authorization: Bearer) instead of "
    "the API key; or put the token in CROSSDECK_ACCESS_TOKEN. Never the token itself here.",
)
@signer_options
@click.version_option(__version__, prog_name="crossdeck")
@click.pass_context
def main(
    ctx: click.Context,
    /,
    profile: str | None,
    json_: bool,
    world: Path | None,
    access_token_file: Path | None,
    **signer: Any,
) -> None:
    """crossdeck: a keyboard-first terminal companion for cross-chain transfers.

    With no command, opens the app on the current profile. Who signs, as in Foundry's cast:
    the profile's keyring key by default, or --account / --keystore (with --password-file or a
    prompt), --browser, or --from for a read-only address.
    """
    if access_token_file is not None:  # a setting every command's settings then read
        os.environ["CROSSDECK_SERVICE__ACCESS_TOKEN_FILE"] = str(access_token_file)
    ctx.obj = CliContext(profile=profile, json=json_, world=world, signer=chosen_signer(**signer))
    if ctx.invoked_subcommand is None:
        from crossdeck.cli.app_launch import launch_app

        launch_app(ctx.obj)
