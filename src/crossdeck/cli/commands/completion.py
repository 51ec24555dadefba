"""`crossdeck completion bash|zsh|fish`: print the shell's completion script.

The script is click's own (the `_CROSSDECK_COMPLETE` mechanism), produced here in process by the
shell's `click.shell_completion` class rather than by re-running the program with the variable
set. Installing it is one line in the shell's startup file (see the README).
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

PROG_NAME = "crossdeck"
# click derives this name from the program's; the scripts call `crossdeck` with it set
COMPLETE_VAR = "_CROSSDECK_COMPLETE"
SHELLS = ("bash", "zsh", "fish")


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Add `eval "$(crossdeck completion bash)"` to ~/.bashrc (zsh: the same with zsh in
    ~/.zshrc; fish: `crossdeck completion fish | source` in ~/.config/fish/config.fish)."""
    shell_class = get_completion_class(shell)
    if shell_class is None:  # click ships all three; a future click without one says so here
        raise click.UsageError(f"click has no completion for {shell}")
    root = ctx.find_root().command
    script = shell_class(root, {}, PROG_NAME, COMPLETE_VAR).source()
    click.echo(script)


commands = [completion]
