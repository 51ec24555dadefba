"""A click group that imports a command's module only when that command is run or asked about.

`crossdeck --help` and `--version` then cost what click costs: the listing comes from a table of
one-line summaries (the only place they are written), not from the command objects. Loading a
command gives it its summary as `short_help` and as the first paragraph of its `--help` page, so
the command's own docstring holds only the details below it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem


@dataclass(frozen=True)
class LazyCommand:
    """Where a top-level command lives and what it does, in one line."""

    module: str
    summary: str


class LazyCommands(MutableMapping[str, click.Command]):
    """`Group.commands` that imports a command's module on first access to that command.

    Names and summaries come from the table; `add_command` still works (it stores a loaded
    command), so click's own code and tests that walk `group.commands` see a plain mapping.
    """

    def __init__(self, table: Mapping[str, LazyCommand]) -> None:
        self._table = table
        self._loaded: dict[str, click.Command] = {}

    def summary(self, name: str) -> str:
        if name in self._loaded:
            return self._loaded[name].get_short_help_str(limit=1000)
        return self._table[name].summary

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            entry = self._table[name]  # KeyError for an unknown name, as a dict would
            self._loaded[name] = _load(name, entry)
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError(f"commands cannot be removed ({name})")

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._table, *self._loaded]))

    def __len__(self) -> int:
        return len(self._table.keys() | self._loaded.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._table or name in self._loaded


def _load(name: str, entry: LazyCommand) -> click.Command:
    module = importlib.import_module(entry.module)
    listed: list[click.Command] = getattr(module, "commands", [])
    found = [command for command in listed if command.name == name]
    if len(found) != 1:
        raise LookupError(f"{entry.module} has no command {name!r} in its `commands` list")
    command = found[0]
    command.short_help = entry.summary
    details = inspect.cleandoc(command.help or "")
    command.help = f"{entry.summary}\n\n{details}" if details else entry.summary
    return command


class LazyGroup(click.Group):
    """A group whose top-level commands are a `LazyCommands` table."""

    commands: LazyCommands

    def __init__(self, *args: Any, table: Mapping[str, LazyCommand], **kwargs: Any) -> None:
        # everything but `table` is click.Group's own arguments, passed through as given
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(table)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The listing from the table: no command module is imported to print it."""
        rows = [(name, self.commands.summary(name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Command names and summaries from the table, so a TAB imports no command module
        (~0.2 s each otherwise); options as click completes them. No table command is hidden."""
        from click.shell_completion import CompletionItem

        items = [
            CompletionItem(name, help=self.commands.summary(name))
            for name in self.list_commands(ctx)
            if name.startswith(incomplete)
        ]
        return items + click.Command.shell_complete(self, ctx, incomplete)
