"""`--help` works for the whole command tree, including commands added later, and stays light:
it must not import web3, textual or the sim."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from crossdeck.cli import main


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        paths.append(path)
        if isinstance(command, click.Group):
            paths += _command_paths(command, path)
    return paths


ALL_PATHS = _command_paths(main)


def test_the_tree_has_the_settings_commands() -> None:
    for path in [("config", "show"), ("wallet", "import"), ("apikey", "set")]:
        assert path in ALL_PATHS


def test_top_level_help() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ")
    for name in main.commands:
        assert name in result.output


@pytest.mark.parametrize("path", ALL_PATHS, ids=" ".join)
def test_every_command_has_working_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ")
    assert " ".join(path) in result.output.splitlines()[0]


def test_help_does_not_import_heavy_packages() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from crossdeck.cli import main\n"
        "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
        "heavy = ('web3', 'textual', 'eth_tester', 'aiohttp', 'crossdeck.sim')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or "
        "m.startswith('crossdeck.sim')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
