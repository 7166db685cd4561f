"""``paimon sql``: Spark SQL over the warehouse's tables (no Java connector: each table the query
names becomes a temporary view read by Spark tasks with ``paimon_core``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from paimon_cli.state import get_state

app = typer.Typer()

DISPLAY_ROWS = 1000  # -o table stops here unless --limit says otherwise


def spark_engine(state):
    """``sql`` always runs on Spark: the configured master / Connect remote (default local[*]),
    whatever --engine says."""
    from paimon_core.engines import get_engine

    s = state.settings.spark
    return get_engine("spark", master=s.master, remote=s.remote, conf=dict(s.conf))


@app.command(
    "sql", epilog="Spark starts locally (local[*]) unless --spark-master or --spark-remote says otherwise."
)
def sql(
    ctx: typer.Context,
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY", show_default=False, help="A Spark SQL query naming tables as DB.TABLE."
        ),
    ],
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", metavar="N", min=0, help="At most N rows.")
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write the result as a folder of Parquet part files (written by the executors) instead of printing.",
        ),
    ] = None,
) -> None:
    """Run a Spark SQL query over tables of the warehouse.

    Tables are named DB.TABLE (parts may be `backquoted`); other names (aliases,
    Spark's views and functions) are left to Spark. Time travel: Spark SQL's own
    clauses, or one backquoted identifier with a $-suffix:

      db.t VERSION AS OF 42          or `db.t$snapshot=42`   snapshot 42
      db.t VERSION AS OF 'nightly'   or `db.t$tag=nightly`   a tag's snapshot
      db.t TIMESTAMP AS OF '2024-05-01 12:00:00'  or `db.t$as_of=2024-05-01`
                                     (UTC unless an offset is given)

    Changes (like `paimon diff`, _row_kind first): `db.t$diff=A..B` for (A, B],
    A and B snapshot ids or tags; add ,mode=changelog|delta|diff and/or
    ,per_snapshot, e.g. `db.t$diff=0..5,mode=delta,per_snapshot`.

    Examples:

      paimon sql "SELECT dt, count(*) AS n FROM demo.events GROUP BY dt"
      paimon sql "SELECT * FROM demo.events VERSION AS OF 1 WHERE id < 5"
      paimon sql 'SELECT _row_kind, count(*) FROM `demo.t$diff=1..3` GROUP BY 1'
      paimon sql "SELECT * FROM demo.events" --out events_dir
    """
    from paimon_core.engines import sql_errors

    from paimon_cli.progress import spinner

    state = get_state(ctx)
    engine = spark_engine(state)
    with sql_errors():
        with spinner("starting Spark..."):
            engine.start()
        _run(state, engine, query, limit, out)


def _run(state, engine, query: str, limit: int | None, out: str | None) -> None:
    df = engine.sql(state.catalog, query)
    if limit is not None:
        df = df.limit(limit)
    if out is not None:
        from paimon_cli.progress import spinner

        with spinner(f"writing {out}"):
            result = engine.export_dataframe(df, out)
        state.out.record(
            {"folder": result.path, "rows": result.rows},
            f"wrote {result.rows} rows to {result.path}/ (Parquet part files)",
        )
        return
    capped = state.out.fmt == "table" and limit is None
    if capped:
        df = df.limit(DISPLAY_ROWS + 1)
    result = df.toArrow()
    from paimon_cli.convert import arrow_rows, is_numeric

    sink = state.out.sink(result.column_names, [is_numeric(f.type) for f in result.schema])
    if capped and result.num_rows > DISPLAY_ROWS:
        sink.write(arrow_rows(result.slice(0, DISPLAY_ROWS)))
        sink.close()
        sys.stderr.write(
            f"note: showing the first {DISPLAY_ROWS} rows; use --limit N, -o csv, -o json or --out DIR "
            "for more\n"
        )
        return
    sink.write(arrow_rows(result))
    sink.close()
