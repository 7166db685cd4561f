"""``paimon alter-table``: schema evolution, one change per call, each a new schema-(N+1).

``paimon alter-table [DB.TABLE] SUBCOMMAND ...``: the table may come first, or as ``-t`` before
or after the subcommand, or from the default table.
"""

from __future__ import annotations

from typing import Annotated

import typer
from typer.core import TyperGroup

from paimon_cli.errors import CliError
from paimon_cli.params import BranchOpt, TableOpt
from paimon_cli.state import get_state

TABLE_KEY = "paimon.alter.table"
BRANCH_KEY = "paimon.alter.branch"
DRY_RUN_KEY = "paimon.alter.dry_run"


class AlterGroup(TyperGroup):
    """Takes an optional DB.TABLE before the subcommand (a word that is no subcommand name)."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "--":
            i += 2 if args[i] in ("-t", "--table", "-b", "--branch") else 1
        if i < len(args) and args[i] not in self.commands and args[i] != "--" and i + 1 < len(args):
            ctx.meta[TABLE_KEY] = args[i]
            args = args[:i] + args[i + 1 :]
        return super().parse_args(ctx, args)


alter = typer.Typer(
    cls=AlterGroup,
    no_args_is_help=True,
    subcommand_metavar="[DB.TABLE] COMMAND [ARGS]...",
    help="""Change a table's schema: columns, options, comment.

Each change writes a new schema version (schema-N+1); files written before keep their data and are read by field id: renamed columns keep their values, dropped ones vanish, added ones read as null, retyped ones are cast. Partition and primary-key columns cannot be changed.

Examples:

  paimon alter-table demo.events add-column country STRING --after name
  paimon alter-table demo.events rename-column value amount
  paimon alter-table demo.events alter-column amount DECIMAL(12, 2)
  paimon alter-table demo.events set-option snapshot.num-retained.min=20
""",
)
app = typer.Typer()
app.add_typer(alter, name="alter-table")


@alter.callback()
def alter_table(
    ctx: typer.Context,
    table: TableOpt = None,
    branch: BranchOpt = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Check the change and show the resulting columns without writing anything."
        ),
    ] = False,
) -> None:
    if table:
        if ctx.meta.get(TABLE_KEY) and ctx.meta[TABLE_KEY] != table:
            raise typer.BadParameter(f"two table names given: '{ctx.meta[TABLE_KEY]}' and --table '{table}'")
        ctx.meta[TABLE_KEY] = table
    ctx.meta[DRY_RUN_KEY] = dry_run
    ctx.meta[BRANCH_KEY] = branch


_PAST = {
    "add": "added",
    "drop": "dropped",
    "rename": "renamed",
    "change": "changed",
    "set": "set",
    "remove": "removed",
}


def _apply(ctx: typer.Context, table: str | None, changes: list, text: str) -> None:
    """``text`` says what the change does, from a verb (``add column x INT``): "would add ..."
    on a dry run, "added ..." once written."""
    state = get_state(ctx)
    given = ctx.meta.get(TABLE_KEY)
    if table and given and table != given:
        raise typer.BadParameter(f"two table names given: '{given}' and --table '{table}'")
    tbl = state.table(table or given, ctx.meta.get(BRANCH_KEY))
    if ctx.meta.get(DRY_RUN_KEY):
        from paimon_core.ops.alter import preview_changes

        new = preview_changes(tbl, changes)
        cols = ", ".join(f"{f.name} {f.type}" for f in new.fields)
        state.out.record(
            {"table": tbl.identifier, "schema_id": new.id, "written": False, "columns": cols},
            f"would {text} on {tbl.identifier} (schema {new.id}, not written): {cols}",
        )
        return
    verb, _, rest = text.partition(" ")
    done = f"{_PAST[verb]} {rest}"
    from paimon_core.ops.alter import alter_table as do_alter

    new = do_alter(tbl, changes).schema
    state.out.record(
        {"table": tbl.identifier, "schema_id": new.id, "written": True},
        f"{done} on {tbl.identifier}: schema {new.id}",
    )


def _type(text: str):
    from paimon_core import parse_type

    return parse_type(text)


@alter.command("add-column")
def add_column(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="New column.")],
    type_: Annotated[
        str, typer.Argument(metavar="TYPE", help="Its type, e.g. STRING, BIGINT, DECIMAL(10, 2).")
    ],
    first: Annotated[bool, typer.Option("--first", help="Make it the first column.")] = False,
    after: Annotated[str | None, typer.Option("--after", metavar="COL", help="Put it after COL.")] = None,
    comment: Annotated[str | None, typer.Option("--comment", metavar="TEXT", help="Column comment.")] = None,
    table: TableOpt = None,
) -> None:
    """Add a nullable column (existing rows read it as null); it goes last unless --first/--after.

    Example:

      paimon alter-table demo.events add-column country STRING --after name --comment "ISO code"
    """
    from paimon_core import AddColumn

    if first and after:
        raise typer.BadParameter("give --first or --after COL, not both", param_hint="'--first' / '--after'")
    t = _type(type_)
    _apply(ctx, table, [AddColumn(name, t, comment, first, after)], f"add column {name} {t}")


@alter.command("drop-column")
def drop_column(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Column to drop.")],
    table: TableOpt = None,
) -> None:
    """Drop a column: it vanishes from reads (old files keep the bytes; its id is never reused).

    Example:

      paimon alter-table demo.events drop-column debug_info
    """
    from paimon_core import DropColumn

    _apply(ctx, table, [DropColumn(name)], f"drop column {name}")


@alter.command("rename-column")
def rename_column(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(metavar="OLD", help="Column to rename.")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="Its new name.")],
    table: TableOpt = None,
) -> None:
    """Rename a column; its data stays (the field id is kept).

    Example:

      paimon alter-table demo.events rename-column value amount
    """
    from paimon_core import RenameColumn

    _apply(ctx, table, [RenameColumn(old, new)], f"rename column {old} to {new}")


@alter.command("alter-column")
def alter_column(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Column to retype.")],
    type_: Annotated[str, typer.Argument(metavar="TYPE", help="Its new type.")],
    table: TableOpt = None,
) -> None:
    """Change a column's type. Widening (INT -> BIGINT, FLOAT -> DOUBLE, ...) always works; other
    casts Paimon allows (BIGINT -> INT, STRING -> INT, DOUBLE -> DECIMAL, ...) unless the table sets
    disable-explicit-type-casting=true. Old values are cast when read. The column stays NOT NULL
    (or nullable) unless TYPE ends in NOT NULL or NULL.

    Example:

      paimon alter-table demo.events alter-column id BIGINT
      paimon alter-table demo.events alter-column note "STRING NULL"
    """
    import re

    from paimon_core import UpdateColumnType

    t = _type(type_)
    keep = re.search(r"\bNULL\s*$", type_, re.IGNORECASE) is None  # no NULL / NOT NULL spelled
    _apply(ctx, table, [UpdateColumnType(name, t, keep_nullability=keep)], f"change column {name} to {t}")


@alter.command("set-option")
def set_option(
    ctx: typer.Context,
    items: Annotated[list[str], typer.Argument(metavar="KEY=VALUE...", help="Options to set.")],
    table: TableOpt = None,
) -> None:
    """Set table options. Options that decide how stored rows merge or where they go (bucket,
    bucket-key, merge-engine, sequence.field, partial-update.*, ...) change only while the table
    has no snapshot.

    Example:

      paimon alter-table demo.events set-option snapshot.num-retained.min=20 write-only=true
    """
    from paimon_cli.config import parse_kv
    from paimon_core import SetOption

    kv = parse_kv(items, "option")
    if not kv:
        raise CliError("give at least one KEY=VALUE")
    _apply(
        ctx,
        table,
        [SetOption(k, v) for k, v in kv.items()],
        "set " + ", ".join(f"{k}={v}" for k, v in kv.items()),
    )


@alter.command("remove-option")
def remove_option(
    ctx: typer.Context,
    keys: Annotated[list[str], typer.Argument(metavar="KEY...", help="Options to remove.")],
    table: TableOpt = None,
) -> None:
    """Remove table options (they fall back to their defaults).

    Example:

      paimon alter-table demo.events remove-option write-only
    """
    from paimon_core import RemoveOption

    _apply(ctx, table, [RemoveOption(k) for k in keys], "remove " + ", ".join(keys))


@alter.command("comment")
def comment(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="New table comment ('' removes it).")],
    table: TableOpt = None,
) -> None:
    """Set the table comment.

    Example:

      paimon alter-table demo.events comment "click events, one row per click"
    """
    from paimon_core import UpdateComment

    _apply(ctx, table, [UpdateComment(text or None)], "set the comment" if text else "remove the comment")
