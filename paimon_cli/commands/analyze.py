"""``paimon analyze``: compute a table's statistics and commit them (Java's ANALYZE TABLE)."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.errors import CliError
from paimon_cli.params import BranchOpt, TableArg, TableOpt, one_table, split_list
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("analyze")
def analyze(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            metavar="COLS",
            help="Comma-separated columns to compute column statistics of (default: every column "
            "of a type ANALYZE supports: numbers, booleans, strings, binaries, DATE, TIMESTAMP).",
        ),
    ] = None,
) -> None:
    """Compute a table's statistics and commit them as one ANALYZE snapshot.

    Row count and size after merging, and per column NULLs, distinct values, min/max and
    lengths, written as Java Paimon writes them (Spark's ANALYZE TABLE, Flink's analyze):
    `read -t 'db.t$statistics'` shows them and Java's planner reads them.

    Examples:

      paimon analyze -t demo.events
      paimon analyze -t demo.events --columns id,amount
    """
    table = one_table(name, table)
    from paimon_core.ops.analyze import AnalyzeError
    from paimon_core.ops.analyze import analyze as run_analyze

    state = get_state(ctx)
    tbl = state.table(table, branch)
    try:
        done = run_analyze(tbl, split_list(columns) or None if columns is not None else None)
    except AnalyzeError as e:
        raise CliError(str(e)) from None
    if done is None:
        state.out.record({"snapshot": None}, f"{tbl.identifier} has no snapshot: nothing to analyze")
        return
    s = done.statistics
    state.out.record(
        {
            "snapshot": done.snapshot.id,
            "analyzed_snapshot": s.snapshot_id,
            "statistics": done.snapshot.statistics,
            "merged_records": s.merged_record_count,
            "merged_size": s.merged_record_size,
            "columns": list(s.col_stats),
        },
        f"analyzed snapshot {s.snapshot_id} of {tbl.identifier}: {s.merged_record_count} rows, "
        f"{len(s.col_stats)} column(s); committed snapshot {done.snapshot.id} (ANALYZE)",
    )
