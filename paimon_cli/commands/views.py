"""``paimon view create|list|show|alter|drop|rename``: views kept by the catalog (JDBC: its database;
Hive: the metastore; REST: the server; filesystem: the JDBC database of the catalog option
``catalog-objects.jdbc-uri``)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from paimon_cli.config import parse_kv
from paimon_cli.errors import CliError
from paimon_cli.state import get_state

app = typer.Typer()
view_app = typer.Typer(
    no_args_is_help=True,
    help="Create, list, show, alter, drop and rename views (a query with columns, kept by the catalog).",
)
app.add_typer(view_app, name="view")

ViewArg = Annotated[str, typer.Argument(metavar="DB.VIEW", show_default=False, help="The view.")]


def _ident(name: str) -> str:
    from paimon_core.catalog import parse_identifier

    return ".".join(parse_identifier(name))


def _derived_columns(state, query: str):
    """The columns of ``query`` as DuckDB types them (its tables read at no rows)."""
    from paimon_core import Schema
    from paimon_core.engines import duckdb_engine, local_sql_errors
    from paimon_core.errors import SqlError

    engine = duckdb_engine(state.catalog)
    wrapped = f"SELECT * FROM ({query.strip().rstrip(';')}) AS paimon_view LIMIT 0"
    try:
        with local_sql_errors(engine, wrapped):
            arrow = engine.query(wrapped).schema
    except SqlError as e:
        raise CliError(
            f'cannot derive the view\'s columns from its query ({e}); give them with --schema "name TYPE, ..."'
        ) from None
    return Schema.from_arrow(arrow)


@view_app.command("create")
def create(
    ctx: typer.Context,
    name: ViewArg,
    query: Annotated[
        str, typer.Option("--query", "-q", metavar="SQL", help="The view's query (its default dialect).")
    ],
    schema: Annotated[
        str | None,
        typer.Option(
            "--schema",
            metavar="COLUMNS",
            help='The view\'s columns, e.g. "id BIGINT, name STRING" (default: derived from the query by DuckDB).',
        ),
    ] = None,
    comment: Annotated[str | None, typer.Option("--comment", metavar="TEXT", help="View comment.")] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-O", metavar="KEY=VALUE", help="View option; repeat for more."),
    ] = None,
    dialect: Annotated[
        list[str] | None,
        typer.Option(
            "--dialect", metavar="NAME=SQL", help="The query in another dialect (spark, flink...); repeat."
        ),
    ] = None,
    if_not_exists: Annotated[
        bool, typer.Option("--if-not-exists", help="Do nothing if the view (or a table of its name) exists.")
    ] = False,
) -> None:
    """Create a view: a query with its columns, kept by the catalog.

    Examples:

      paimon view create demo.recent --query "SELECT id, name FROM demo.events WHERE id > 10"

      paimon view create demo.v --query "SELECT 1 AS x" --schema "x INT" --dialect spark="SELECT 1 AS x"
    """
    from paimon_core import Schema
    from paimon_core.catalog import View, fields_from_columns

    state = get_state(ctx)
    ident = _ident(name)
    columns = Schema.parse_columns(schema) if schema is not None else _derived_columns(state, query)
    view = View(
        fields=fields_from_columns(columns),
        query=query,
        dialects=parse_kv(dialect, "--dialect"),
        comment=comment,
        options=parse_kv(option, "--option"),
    )
    created = state.catalog.create_view(ident, view, ignore_if_exists=if_not_exists)
    text = (
        f"created view {ident} ({len(view.fields)} column{'' if len(view.fields) == 1 else 's'})"
        if created
        else f"view {ident} already exists; left unchanged"
    )
    state.out.record({"view": ident, "created": created}, text)


@view_app.command("list")
def list_views(
    ctx: typer.Context,
    database: Annotated[
        str | None,
        typer.Argument(metavar="DB", show_default=False, help="Only this database (default: all)."),
    ] = None,
) -> None:
    """List views, of one database or of all.

    Examples:

      paimon view list
      paimon view list demo
    """
    state = get_state(ctx)
    catalog = state.catalog
    dbs = [database] if database else catalog.list_databases()
    state.out.rows(["database", "view"], [[db, v] for db in dbs for v in catalog.list_views(db)])


@view_app.command("show")
def show(ctx: typer.Context, name: ViewArg) -> None:
    """Show a view: its columns, query, dialects, comment and options.

    With -o json, prints the view's schema as Paimon stores it (ViewSchema) as one JSON line.

    Example:

      paimon view show demo.recent
    """
    state = get_state(ctx)
    ident = _ident(name)
    view = state.catalog.get_view(ident)
    if state.out.fmt == "json":
        sys.stdout.write(json.dumps({"view": ident, **view.to_json()}, ensure_ascii=False) + "\n")
        return
    if state.out.fmt == "csv":
        state.out.rows(
            ["id", "name", "type", "comment"],
            [[f.id, f.name, str(f.type), f.description] for f in view.fields],
        )
        return
    state.out.rows(
        ["name", "type", "comment"],
        [[f.name, str(f.type), f.description or ""] for f in view.fields],
        title=ident,
    )
    sys.stdout.write(f"query: {view.query}\n")
    for d, q in sorted(view.dialects.items()):
        sys.stdout.write(f"dialect {d}: {q}\n")
    if view.comment:
        sys.stdout.write(f"comment: {view.comment}\n")
    if view.options:
        state.out.rows(["option", "value"], sorted(view.options.items()))


@view_app.command("alter")
def alter(
    ctx: typer.Context,
    name: ViewArg,
    set_option: Annotated[
        list[str] | None,
        typer.Option("--set-option", metavar="KEY=VALUE", help="Set a view option; repeat for more."),
    ] = None,
    remove_option: Annotated[
        list[str] | None,
        typer.Option("--remove-option", metavar="KEY", help="Remove a view option; repeat."),
    ] = None,
    comment: Annotated[
        str | None, typer.Option("--comment", metavar="TEXT", help="New view comment ('' removes it).")
    ] = None,
    add_dialect: Annotated[
        list[str] | None,
        typer.Option("--add-dialect", metavar="NAME=SQL", help="Add the query in a dialect; repeat."),
    ] = None,
    update_dialect: Annotated[
        list[str] | None,
        typer.Option("--update-dialect", metavar="NAME=SQL", help="Replace a dialect's query; repeat."),
    ] = None,
    drop_dialect: Annotated[
        list[str] | None,
        typer.Option("--drop-dialect", metavar="NAME", help="Drop a dialect; repeat."),
    ] = None,
) -> None:
    """Change a view's options, comment or dialects, all changes at once or none.

    Adding a dialect the view has, or updating or dropping one it lacks, is an error and changes nothing. The query and columns stay as they are (drop and create the view to change them).

    Examples:

      paimon view alter demo.recent --set-option owner=team --comment "recent events"

      paimon view alter demo.v --update-dialect spark="SELECT 2 AS x" --remove-option owner
    """
    from paimon_cli.object_changes import build_changes, names
    from paimon_core.catalog import ViewChange

    entries = [
        *(("add", "--add-dialect", d, q) for d, q in parse_kv(add_dialect, "--add-dialect").items()),
        *(
            ("update", "--update-dialect", d, q)
            for d, q in parse_kv(update_dialect, "--update-dialect").items()
        ),
        *(("drop", "--drop-dialect", d, None) for d in names(drop_dialect, "--drop-dialect")),
    ]
    changes, done = build_changes(
        ViewChange, "dialect", set_option, remove_option, comment, entries,
        "--set-option, --remove-option, --comment, --add-dialect, --update-dialect or --drop-dialect",
    )  # fmt: skip
    state = get_state(ctx)
    ident = _ident(name)
    state.catalog.alter_view(ident, changes)
    state.out.record(
        {"view": ident, "changes": [c.to_json() for c in changes]},
        f"altered view {ident}: {'; '.join(done)}",
    )


@view_app.command("drop")
def drop(
    ctx: typer.Context,
    name: ViewArg,
    if_exists: Annotated[
        bool, typer.Option("--if-exists", help="No error if the view does not exist.")
    ] = False,
) -> None:
    """Drop a view (its tables are not touched).

    Example:

      paimon view drop demo.recent --if-exists
    """
    state = get_state(ctx)
    ident = _ident(name)
    dropped = state.catalog.drop_view(ident, ignore_if_missing=if_exists)
    text = f"dropped view {ident}" if dropped else f"view {ident} does not exist; nothing dropped"
    state.out.record({"view": ident, "dropped": dropped}, text)


@view_app.command("rename")
def rename(
    ctx: typer.Context,
    name: ViewArg,
    new_name: Annotated[str, typer.Argument(metavar="DB.NEW", show_default=False, help="Its new name.")],
) -> None:
    """Rename a view.

    Example:

      paimon view rename demo.recent demo.latest
    """
    state = get_state(ctx)
    old, new = _ident(name), _ident(new_name)
    state.catalog.rename_view(old, new)
    state.out.record({"view": old, "renamed_to": new}, f"renamed view {old} to {new}")
