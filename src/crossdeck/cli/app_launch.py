"""Opening the Textual app from the command line, kept apart so only this path imports tui."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from crossdeck.cli import CliContext


def launch_app(obj: CliContext) -> None:
    try:
        from crossdeck.tui.app import run_app
    except ImportError:
        raise click.ClickException(
            "the app is not built yet; see `crossdeck --help` for the commands"
        ) from None
    run_app(obj.profile, obj.world, obj.signer)
