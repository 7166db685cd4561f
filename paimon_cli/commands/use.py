"""``paimon use``: remember a default table (and warehouse) in ./paimon.toml."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from paimon_cli.config import LOCAL_CONFIG, set_top_level_keys
from paimon_cli.params import one_table
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("use")
def use(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="DB.TABLE", show_default=False, help="Table that commands use when --table is not given."
        ),
    ] = None,
    table: Annotated[
        str | None, typer.Option("--table", "-t", metavar="DB.TABLE", help="The table (or the argument).")
    ] = None,
) -> None:
    """Set the default table in ./paimon.toml (other keys are kept).

    The table must exist. A --warehouse given on the same command line is saved too.

    Examples:

      paimon use demo.events
      paimon -w s3://bucket/warehouse use demo.events
    """
    from paimon_core.catalog import parse_identifier

    name = one_table(name, table)
    if not name:
        raise typer.BadParameter("name the table: paimon use DB.TABLE (or -t DB.TABLE)")
    state = get_state(ctx)
    db, tbl = parse_identifier(name)
    state.catalog.get_table(f"{db}.{tbl}")  # refuse a table that does not exist (a typo)
    values = {"table": f"{db}.{tbl}"}
    if state.flags.warehouse:
        values["warehouse"] = state.flags.warehouse
    path = Path.cwd() / LOCAL_CONFIG
    set_top_level_keys(path, values)
    saved = ", ".join(f"{k} = {v}" for k, v in values.items())
    state.out.record({"config": str(path), **values}, f"{LOCAL_CONFIG}: {saved}")
