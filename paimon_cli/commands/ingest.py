"""``paimon ingest``: files, folders and globs into a table, in one atomic commit."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.params import TableOpt
from paimon_cli.progress import byte_progress
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("ingest")
def ingest(
    ctx: typer.Context,
    files: Annotated[list[str], typer.Argument(
        metavar="FILES...", show_default=False,
        help="Parquet, CSV or JSON-lines files, folders or globs (quote globs).")],
    table: TableOpt = None,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace the partitions written to (the whole table if unpartitioned).")] = False,
    partition: Annotated[str | None, typer.Option(
        "--partition", "-p", metavar="K=V,...", help="With --overwrite: replace exactly this partition.")] = None,
) -> None:
    """Add the rows of files to a table in one commit (checked and cast to the table schema).

    Examples:

      paimon ingest events.parquet -t demo.events
      paimon ingest "data/*.csv" -t demo.events
      paimon ingest day.parquet -t demo.events --overwrite -p dt=2024-01-01
    """
    from paimon_core.ingest import ingest_files

    state = get_state(ctx)
    tbl = state.table(table)
    engine = state.engine()
    with byte_progress(f"ingest into {tbl.identifier}") as (on_plan, advance):
        result = ingest_files(tbl, list(files), overwrite=overwrite, partition=partition, engine=engine,
                              progress=advance, on_plan=on_plan)
    snap = result.snapshot
    sid = snap.id if snap is not None else None
    what = "overwrote" if overwrite else "ingested"
    text = (f"{what} {_count(result.rows, 'row')} in {_count(result.files, 'file')} into {tbl.identifier}:"
            f" snapshot {sid}"
            if sid is not None else f"nothing to commit for {tbl.identifier} (no rows)")
    state.out.record({"table": tbl.identifier, "snapshot": sid, "rows": result.rows, "files": result.files}, text)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
