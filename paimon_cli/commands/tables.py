"""Catalog commands: create-table, drop-table, databases, tables."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from paimon_cli.config import parse_kv
from paimon_cli.errors import CliError
from paimon_cli.params import TableOpt, split_list
from paimon_cli.state import get_state

if TYPE_CHECKING:
    from paimon_cli.state import CliState
    from paimon_core.metadata.schema import Schema, TableSchema

app = typer.Typer()


def _like_columns(path: Path):
    """Columns of a Parquet file, for ``--like``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from paimon_core import Schema

    if not path.exists():
        raise CliError(f"file not found: {path}")
    try:
        arrow_schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as e:
        raise CliError(f"{path}: not a readable Parquet file ({str(e).splitlines()[0]})") from None
    return Schema.from_arrow(arrow_schema)


@app.command("create-table")
def create_table(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="DB.TABLE", show_default=False, help="Table to create (or --table / the default table)."
        ),
    ] = None,
    table: TableOpt = None,
    schema: Annotated[
        str | None,
        typer.Option("--schema", metavar="COLUMNS", help='Columns, e.g. "id BIGINT NOT NULL, name STRING".'),
    ] = None,
    like: Annotated[
        Path | None,
        typer.Option("--like", metavar="FILE.parquet", help="Take the columns from a Parquet file."),
    ] = None,
    primary_key: Annotated[
        str | None,
        typer.Option("--primary-key", "-k", metavar="COLS", help="Primary key columns, comma-separated."),
    ] = None,
    partition: Annotated[
        str | None,
        typer.Option("--partition", "-p", metavar="COLS", help="Partition columns, comma-separated."),
    ] = None,
    bucket: Annotated[
        int | None,
        typer.Option(
            "--bucket",
            metavar="N",
            help="Number of buckets (-1: dynamic/unaware, the default; -2: postpone, primary-key tables).",
        ),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-O", metavar="KEY=VALUE", help="Table option; repeat for more."),
    ] = None,
    comment: Annotated[str | None, typer.Option("--comment", metavar="TEXT", help="Table comment.")] = None,
    if_not_exists: Annotated[
        bool, typer.Option("--if-not-exists", help="Do nothing if the table exists.")
    ] = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Replace an existing table in place: its rows are removed by one commit and the "
            "new schema becomes its latest; its earlier snapshots stay readable by time travel. "
            "The partition keys cannot change. Creates the table when it does not exist.",
        ),
    ] = False,
) -> None:
    """Create a table (and its database), or replace one with --replace.

    Examples:

      paimon create-table demo.events --schema "id BIGINT NOT NULL, name STRING, ts TIMESTAMP(6), dt STRING" --partition dt

      paimon create-table demo.users --schema "id BIGINT, name STRING" -k id

      paimon create-table demo.copy --like events.parquet

      paimon create-table demo.users --replace --schema "id BIGINT, name STRING, email STRING" -k id
    """
    from paimon_core import Schema

    state = get_state(ctx)
    if name and table and name != table:
        raise typer.BadParameter(f"two table names given: '{name}' and --table '{table}'")
    identifier = state.table_name(name or table, "create-table")
    if (schema is None) == (like is None):
        raise typer.BadParameter(
            "give exactly one of --schema COLUMNS or --like FILE.parquet", param_hint="'--schema' / '--like'"
        )
    if replace and if_not_exists:
        raise typer.BadParameter(
            "--replace replaces an existing table, --if-not-exists keeps it: give one of them",
            param_hint="'--replace' / '--if-not-exists'",
        )
    columns = Schema.parse_columns(schema) if schema is not None else _like_columns(like)
    options = parse_kv(option, "--option")
    if bucket is not None:
        options["bucket"] = str(bucket)
    spec = Schema(
        columns=columns,
        partition_keys=tuple(split_list(partition)),
        primary_keys=tuple(split_list(primary_key)),
        options=options,
        comment=comment,
    )
    catalog = state.catalog
    if replace and catalog.table_exists(identifier):
        _replace_table(state, identifier, spec)
        return
    existed = if_not_exists and catalog.table_exists(identifier)
    created = catalog.create_table(identifier, spec, ignore_if_exists=if_not_exists)
    if existed:
        state.out.record(
            {"table": identifier, "created": False}, f"table {identifier} already exists; left unchanged"
        )
        return
    state.out.record(
        {"table": identifier, "created": True}, f"created table {identifier} ({_shape(created.schema)})"
    )


def _shape(s: TableSchema) -> str:
    """``3 columns; partitioned by dt; primary key id``."""
    parts = [f"{len(s.fields)} column" + ("" if len(s.fields) == 1 else "s")]
    if s.partition_keys:
        parts.append("partitioned by " + ", ".join(s.partition_keys))
    if s.primary_keys:
        parts.append("primary key " + ", ".join(s.primary_keys))
    return "; ".join(parts)


def _replace_table(state: CliState, identifier: str, spec: Schema) -> None:
    """``--replace`` of an existing table (``Catalog.replace_table``)."""
    before = state.catalog.get_table(identifier).snapshots.latest()
    new = state.catalog.replace_table(identifier, spec)
    kept = (
        f"; snapshots up to {before.id} stay readable by time travel (--snapshot {before.id})"
        if before is not None
        else ""
    )
    state.out.record(
        {
            "table": identifier,
            "created": False,
            "replaced": True,
            "schema_id": new.id,
            "previous_snapshot": before.id if before is not None else None,
        },
        f"replaced table {identifier} ({_shape(new)}): schema {new.id}, no rows{kept}",
    )


@app.command("drop-table")
def drop_table(
    ctx: typer.Context,
    name: Annotated[
        str | None, typer.Argument(metavar="DB.TABLE", show_default=False, help="Table to drop.")
    ] = None,
    table: Annotated[
        str | None, typer.Option("--table", "-t", metavar="DB.TABLE", help="Same as the argument.")
    ] = None,
    if_exists: Annotated[
        bool, typer.Option("--if-exists", help="No error if the table does not exist.")
    ] = False,
) -> None:
    """Drop a table: its folder with all data and metadata is deleted.

    The table must be named explicitly (the default table is never dropped implicitly).

    Example:

      paimon drop-table demo.events --if-exists
    """
    from paimon_core.catalog import parse_identifier

    state = get_state(ctx)
    if name and table and name != table:
        raise typer.BadParameter(f"two table names given: '{name}' and --table '{table}'")
    if not (name or table):
        raise typer.BadParameter(
            "name the table to drop: paimon drop-table DB.TABLE", param_hint="'DB.TABLE'"
        )
    db, tbl = parse_identifier(name or table)
    identifier = f"{db}.{tbl}"
    existed = state.catalog.table_exists(identifier)
    state.catalog.drop_table(identifier, ignore_if_missing=if_exists)
    text = f"dropped table {identifier}" if existed else f"table {identifier} does not exist; nothing dropped"
    state.out.record({"table": identifier, "dropped": existed}, text)


@app.command("databases")
def databases(ctx: typer.Context) -> None:
    """List the databases of the warehouse.

    Example:

      paimon databases
    """
    state = get_state(ctx)
    catalog = state.catalog
    rows = [[db, len(catalog.list_tables(db))] for db in catalog.list_databases()]
    state.out.rows(["database", "tables"], rows)


@app.command("tables")
def tables(
    ctx: typer.Context,
    database: Annotated[
        str | None,
        typer.Argument(metavar="DB", show_default=False, help="Only this database (default: all)."),
    ] = None,
) -> None:
    """List tables, of one database or of all.

    Examples:

      paimon tables
      paimon tables demo
    """
    state = get_state(ctx)
    catalog = state.catalog
    dbs = [database] if database else catalog.list_databases()
    rows = [[db, name] for db in dbs for name in catalog.list_tables(db)]
    state.out.rows(["database", "table"], rows)


@app.command("create-database")
def create_database(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="DB", show_default=False, help="Database name.")],
    prop: Annotated[
        list[str] | None,
        typer.Option(
            "--property",
            "-P",
            metavar="KEY=VALUE",
            help="Database property; repeat for more (JDBC and Hive catalogs).",
        ),
    ] = None,
    comment: Annotated[
        str | None, typer.Option("--comment", metavar="TEXT", help="Database comment.")
    ] = None,
    if_not_exists: Annotated[
        bool, typer.Option("--if-not-exists", help="Do nothing if the database exists.")
    ] = False,
) -> None:
    """Create a database, with properties where the catalog stores them.

    The JDBC catalog stores properties as Java's does (paimon_database_properties); the Hive catalog takes `comment` as the description, `location` as the database location (its tables go there) and the rest as parameters. The filesystem catalog cannot store properties and refuses them.

    Examples:

      paimon create-database shop
      paimon create-database shop -P owner=data-team --comment "orders and customers"
    """
    state = get_state(ctx)
    props = parse_kv(prop, "--property")
    if comment is not None:
        props["comment"] = comment
    catalog = state.catalog
    existed = catalog.database_exists(name)
    if existed and not if_not_exists:
        raise CliError(f"database '{name}' already exists (--if-not-exists keeps it)")
    catalog.create_database(name, ignore_if_exists=True, properties=props)
    stored = catalog.database_properties(name)
    text = f"database {name} exists; nothing created" if existed else f"created database {name}"
    if stored and not existed:
        text += " (" + ", ".join(f"{k}={v}" for k, v in sorted(stored.items())) + ")"
    state.out.record({"database": name, "created": not existed, "properties": stored}, text)


@app.command("drop-database")
def drop_database(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="DB", show_default=False, help="Database name.")],
    cascade: Annotated[
        bool,
        typer.Option("--cascade", help="Drop its tables too (a database with tables is refused without)."),
    ] = False,
    if_exists: Annotated[
        bool, typer.Option("--if-exists", help="Do nothing if the database does not exist.")
    ] = False,
) -> None:
    """Drop a database; one that still has tables needs --cascade, which drops them (and their files) too.

    Examples:

      paimon drop-database scratch
      paimon drop-database scratch --cascade
    """
    state = get_state(ctx)
    catalog = state.catalog
    if not catalog.database_exists(name):
        if if_exists:
            state.out.record(
                {"database": name, "dropped": False}, f"database {name} does not exist; nothing dropped"
            )
            return
    tables = catalog.list_tables(name)  # a missing database is reported here
    catalog.drop_database(name, cascade=cascade)
    text = f"dropped database {name}" + (f" and its {len(tables)} table(s)" if tables else "")
    state.out.record({"database": name, "dropped": True, "tables_dropped": tables}, text)
