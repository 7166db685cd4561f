"""Command groups that work on one table take it before their subcommand as well as by ``-t``:
``paimon tag shop.orders list`` is ``paimon tag list -t shop.orders``.

A leading word that is no subcommand name (and is followed by one) is the table: it moves behind
the subcommand as ``-t DB.TABLE``, which every subcommand of such a group takes. Given both ways,
the two must agree."""

from __future__ import annotations

import typer
from typer.core import TyperGroup

TABLE_FLAGS = ("-t", "--table")


def _given_table(args: list[str]) -> str | None:
    """The value of a ``-t``/``--table`` among ``args`` (before any ``--``)."""
    for i, tok in enumerate(args):
        if tok == "--":
            return None
        if tok in TABLE_FLAGS and i + 1 < len(args):
            return args[i + 1]
        if tok.startswith("--table="):
            return tok.split("=", 1)[1]
    return None


class TableFirstGroup(TyperGroup):
    """A group whose subcommands all take ``-t``; see the module docstring."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "--":
            i += 1
        if i + 1 < len(args) and args[i] not in self.commands and args[i + 1] in self.commands:
            table, sub, rest = args[i], args[i + 1], args[i + 2 :]
            other = _given_table(rest)
            if other is not None and other != table:
                raise typer.BadParameter(f"two tables given: {table} and -t {other}")
            args = [*args[:i], sub, "-t", table, *rest]
        return super().parse_args(ctx, args)


METAVAR = "[DB.TABLE] COMMAND [ARGS]..."  # the usage line of such a group
