"""The crossdeck command line: a thin shell over the layers.

Command modules live in `crossdeck.cli.commands`; each exposes `commands`, a list of click
commands or groups, and is discovered here so modules can be added without editing this file.
Heavy imports (web3, eth-tester, textual) stay inside command bodies so `--help` is quick.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

import click

from crossdeck import __version__
from crossdeck.cli import commands as _commands_pkg


@dataclass
class CliContext:
    """Global options, shared by every command through `click.pass_obj`."""

    profile: str | None
    json: bool
    world: Path | None


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
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
@click.version_option(__version__, prog_name="crossdeck")
@click.pass_context
def main(ctx: click.Context, profile: str | None, json_: bool, world: Path | None) -> None:
    """crossdeck: a keyboard-first terminal companion for cross-chain transfers.

    With no command, opens the app on the current profile.
    """
    ctx.obj = CliContext(profile=profile, json=json_, world=world)
    if ctx.invoked_subcommand is None:
        from crossdeck.cli.app_launch import launch_app

        launch_app(ctx.obj)


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        for command in getattr(module, "commands", []):
            main.add_command(command)


_register_commands()
