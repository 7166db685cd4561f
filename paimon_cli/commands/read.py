"""``paimon read``: rows of a snapshot (time travel), projected, filtered, printed or saved."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from paimon_cli.params import (
    BranchOpt,
    ForceOpt,
    SnapshotOpt,
    TableArg,
    TableOpt,
    one_table,
    parse_time_millis,
    split_list,
)
from paimon_cli.state import get_state
from paimon_core import no_rows

app = typer.Typer()

DISPLAY_ROWS = 1000  # -o table stops here unless --limit says otherwise


@app.command("read")
def read(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    snapshot: SnapshotOpt = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            metavar="TIME",
            help="Read the table as of a time: ISO date/datetime (UTC unless an offset is given) or epoch millis.",
        ),
    ] = None,
    tag: Annotated[
        str | None,
        typer.Option(
            "--tag", metavar="NAME", help="Read the snapshot a tag holds (also after that snapshot expired)."
        ),
    ] = None,
    select: Annotated[
        str | None, typer.Option("--select", metavar="COLS", help="Columns, comma-separated.")
    ] = None,
    where: Annotated[
        str | None,
        typer.Option(
            "--where", metavar="FILTER", help="Row filter, e.g. \"dt = '2024-01-01' AND value > 0.5\"."
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", metavar="N", min=0, help="At most N rows.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write the rows to a file instead of printing, in the format its name says: .parquet, .csv, "
            ".json or .jsonl (JSON lines). With the Spark engine (--engine spark, or auto above "
            "engine.spark-threshold) the executors write it and FILE names a folder of Parquet part files "
            "(readable as one dataset by pyarrow, pandas, DuckDB and Spark).",
        ),
    ] = None,
    count: Annotated[bool, typer.Option("--count", help="Print only the number of rows.")] = False,
    force: ForceOpt = False,
) -> None:
    """Read rows of a table, at the latest snapshot or an older one.

    Filters use =, !=, <, <=, >, >=, AND, OR, NOT, IN (...), IS NULL, BETWEEN;
    partition filters skip whole partitions.

    Examples:

      paimon read -t demo.events --limit 10
      paimon read -t demo.events --snapshot 1 --count
      paimon read -t demo.events --where "dt = '2024-01-02' AND value > 0.9"
      paimon read -t demo.events --select id,value --as-of 2024-05-01T12:00:00
      paimon read -t demo.events --tag nightly --count
      paimon read -t demo.events --out events.parquet
      paimon read -t demo.events --where "id < 100" --out sample.csv
      paimon --engine spark read -t demo.events --out events_dir
      paimon read -t 'demo.events$snapshots' --select snapshot_id,commit_kind
      paimon read -t 'demo.events$files' --where "level = 0" --out files.csv
    """
    table = one_table(name, table)
    state = get_state(ctx)
    if out is not None:
        from paimon_cli.outfile import check_out

        if count:
            raise typer.BadParameter("--count prints the number of rows; it writes no --out file")
        check_out(out, force)  # refuse an unknown file type, a missing folder, a file there
    from paimon_core import is_system_table

    name = state.table_name(table)
    if is_system_table(name):
        if any(x is not None for x in (snapshot, as_of, tag, branch)):
            raise typer.BadParameter(
                "a system table shows the latest state: --snapshot, --as-of, --tag and --branch do not "
                "apply (name a branch's system table as DB.TABLE$branch_NAME$TABLE)",
                param_hint="'--snapshot' / '--as-of' / '--tag' / '--branch'",
            )
        _read_system(state, name, split_list(select) or None, where, limit, count, out)
        return
    if sum(x is not None for x in (snapshot, as_of, tag)) > 1:
        raise typer.BadParameter(
            "give one of --snapshot, --as-of and --tag, not several",
            param_hint="'--snapshot' / '--as-of' / '--tag'",
        )
    as_of_ms = parse_time_millis(as_of) if as_of is not None else None
    from paimon_core import now_ms

    tbl = state.table(table, branch)
    columns = split_list(select) or None
    at = tbl.at(snapshot, tag, as_of_ms)  # time travel reads with the schema of that snapshot
    tbl, snap = at.table, at.snapshot
    if as_of_ms is not None and snap is not None and as_of_ms > now_ms():
        from paimon_cli.output import note

        note(f"--as-of {as_of} is in the future: reading the latest snapshot, {snap.id}")
    waiting = at.waiting_rows()
    if waiting:
        sys.stderr.write(
            f"note: {waiting} row(s) wait in bucket-postpone and are not read until "
            f"`paimon compact` assigns them to buckets\n"
        )
    if count:  # exact from the manifests where it can be (TableAt.count)
        n = at.count(where)
        n = n if limit is None else min(n, limit)
        state.out.record({"rows": n}, str(n))
        return
    predicate = tbl.parse_filter(where)
    reader = tbl.new_read(columns, predicate)
    with at.expiry_checked():  # an expire racing this read: a clear "run again"
        _read(state, tbl, at.plan(predicate), reader, predicate, limit, out)


def _read_system(state, name: str, columns, where, limit, count, out) -> None:
    """``paimon read`` of a system table (``db.t$snapshots``, ``sys.catalog_options``): Java's
    columns, ``--select``/``--where``/``--limit``/``--count``/``--out`` as for a table."""
    from paimon_cli.convert import is_numeric
    from paimon_core import open_system_table

    st = open_system_table(state.catalog, name)
    predicate = st.parse_filter(where)
    cols = st.check_columns(columns)
    batches = st.batches(cols, predicate, limit)
    if count:
        n = sum(b.num_rows for b in batches)
        state.out.record({"rows": n}, str(n))
        return
    if out is not None:
        from paimon_cli.outfile import out_format, text_renderer
        from paimon_core.engines import write_result_file as write_file

        rows = write_file(
            batches, no_rows(st.schema).select(cols).schema, out, out_format(out), text_renderer
        )
        state.out.record({"file": str(out), "rows": rows}, f"wrote {rows} rows to {out}")
        return
    schema = st.schema
    sink = state.out.sink(cols, [is_numeric(schema.field(c).type) for c in cols])
    for b in batches:
        sink.write_arrow(b)
    sink.close()


def _read(state, tbl, splits, reader, predicate, limit, out) -> None:
    if out is not None:
        from paimon_cli.outfile import export_record, out_format, text_renderer
        from paimon_cli.progress import byte_progress
        from paimon_core.engines import ExportTarget, RowsExport

        with byte_progress(f"read {tbl.identifier}") as (on_plan, advance):
            if limit is not None:  # the read stops early: the planned bytes are no total
                on_plan = lambda total: None  # noqa: E731
            target = ExportTarget(out, out_format(out), text_renderer, on_plan, advance)
            result = state.engine().export_rows(
                RowsExport(tbl, splits, target, reader.columns, predicate, limit)
            )
        export_record(state, result, "rows")
        return
    _print(state, reader, splits, limit)


def _print(state, reader, splits, limit: int | None) -> None:
    from paimon_cli.convert import is_numeric

    capped = state.out.fmt == "table" and limit is None
    fetch = DISPLAY_ROWS + 1 if capped else limit
    arrow_schema = reader.output_schema()
    numeric = [is_numeric(arrow_schema.field(c).type) for c in reader.columns]
    sink = state.out.sink(reader.columns, numeric)
    shown = 0
    for batch in reader.to_batches(splits, fetch):
        if capped and shown + batch.num_rows > DISPLAY_ROWS:
            batch = batch.slice(0, DISPLAY_ROWS - shown)
            sink.write_arrow(batch)
            sink.close()
            sys.stderr.write(
                f"note: showing the first {DISPLAY_ROWS} rows; use --limit N, -o csv, "
                "-o json or --out FILE for more\n"
            )
            return
        sink.write_arrow(batch)
        shown += batch.num_rows
    sink.close()
