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


def test_the_command_table_names_every_command_of_every_module() -> None:
    """`COMMANDS` is the only list of top-level commands; a module's command missing from it
    would never be reachable, and an entry pointing at the wrong module would fail on use."""
    import importlib
    import pkgutil

    from crossdeck.cli import COMMANDS
    from crossdeck.cli import commands as package

    exported = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for command in getattr(module, "commands", []):
            exported[command.name] = module.__name__
    assert exported == {name: entry.module for name, entry in COMMANDS.items()}


def test_a_loaded_command_lists_and_shows_the_tables_summary() -> None:
    from crossdeck.cli import COMMANDS

    for name, entry in COMMANDS.items():
        command = main.commands[name]
        assert command.get_short_help_str(limit=1000) == entry.summary
        assert (command.help or "").startswith(entry.summary)


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_no_command_module(flag) -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from crossdeck.cli import main\n"
        f"assert CliRunner().invoke(main, [{flag!r}]).exit_code == 0\n"
        "heavy = ('pydantic', 'httpx', 'eth_account', 'asyncio')\n"
        # crossdeck puts stand-ins for httpx's own CLI and pydantic's plugin loader in
        # sys.modules (no file, nothing imported): they are not httpx or pydantic
        "stand_in = {'httpx._main', 'pydantic.plugin._loader'}\n"
        "print(sorted(m for m in sys.modules if m.startswith('crossdeck.cli.commands.') "
        "or (m.split('.')[0] in heavy and m not in stand_in)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
