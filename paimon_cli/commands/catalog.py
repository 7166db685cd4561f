"""``paimon catalog info`` (the catalog in use) and ``paimon rename-table``."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.state import get_state

app = typer.Typer()
catalog_app = typer.Typer(no_args_is_help=True, help="The catalog in use (filesystem, jdbc, hive or rest).")
app.add_typer(catalog_app, name="catalog")


@catalog_app.command("info")
def info(ctx: typer.Context) -> None:
    """Show the catalog in use: type, warehouse, metastore uri (password hidden), lock.

    The catalog is opened, so an unreachable metastore is reported here.

    Examples:

      paimon catalog info
      paimon --catalog jdbc --catalog-option uri=sqlite:///tmp/paimon.db catalog info
    """
    state = get_state(ctx)
    data = state.catalog.info()
    data["databases"] = len(state.catalog.list_databases())
    text = "\n".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in data.items())
    state.out.record(data, text)


@app.command("rename-table")
def rename_table(
    ctx: typer.Context,
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="DB.TABLE DB.NEW", show_default=False, help="The table, then its new name."),
    ] = None,
    table: Annotated[
        str | None, typer.Option("--table", "-t", metavar="DB.TABLE", help="The table (then only DB.NEW).")
    ] = None,
) -> None:
    """Rename a table: its registration and its folder on storage.

    Examples:

      paimon rename-table demo.events demo.events_old
      paimon rename-table -t demo.events demo.events_old
    """
    from paimon_core.catalog import parse_identifier

    given = [*([table] if table else []), *(names or [])]
    if len(given) != 2:
        raise typer.BadParameter(
            "give the table and its new name: rename-table DB.TABLE DB.NEW (or -t DB.TABLE DB.NEW)"
        )
    name, new_name = given
    state = get_state(ctx)
    old = ".".join(parse_identifier(name))
    new = ".".join(parse_identifier(new_name))
    state.catalog.rename_table(old, new)
    state.out.record({"table": old, "renamed_to": new}, f"renamed table {old} to {new}")
