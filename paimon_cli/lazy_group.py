"""The root group's commands, imported when they run: the one place the CLI loads command
modules.

The root lists every command of ``paimon_cli.commands.COMMANDS`` under its name from the start,
as a placeholder that carries only the name and the help line. ``get_command`` swaps a
placeholder for the real command (its module imported, its Typer app built) the first time a
command is looked up to run or to show its own help; while the root's own help or command-name
completion is drawn, the placeholders stand in, so ``paimon --help`` imports no command module.
"""

from __future__ import annotations

import importlib
from functools import cache

import typer.main
from typer.core import TyperCommand, TyperGroup

from paimon_cli.commands import COMMANDS, CommandEntry


class Placeholder(TyperCommand):
    """A root command not loaded yet: its name and help line, nothing to run."""

    def __init__(self, entry: CommandEntry) -> None:
        super().__init__(entry.name, help=entry.help)
        self.entry = entry


@cache
def _module_group(module: str) -> TyperGroup:
    """The click group of one command module's Typer app (built once per process)."""
    app = importlib.import_module(f"paimon_cli.commands.{module}").app
    return typer.main.get_group(app)


def load(entry: CommandEntry):
    """The real command ``entry`` names (a command or a group of subcommands)."""
    command = _module_group(entry.module).commands.get(entry.name)
    if command is None:  # COMMANDS disagrees with the module: a bug, named
        raise LookupError(f"paimon_cli.commands.{entry.module} has no command {entry.name!r}")
    return command


class LazyGroup(TyperGroup):
    """A TyperGroup whose commands are the placeholders of ``COMMANDS`` until looked up."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._listing = False
        for entry in COMMANDS:
            self.commands.setdefault(entry.name, Placeholder(entry))

    def get_command(self, ctx, cmd_name: str):
        command = self.commands.get(cmd_name)
        if isinstance(command, Placeholder) and not self._listing:
            command = self.commands[cmd_name] = load(command.entry)
        return command

    def format_help(self, ctx, formatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def shell_complete(self, ctx, incomplete: str):
        self._listing = True
        try:
            return super().shell_complete(ctx, incomplete)
        finally:
            self._listing = False
