"""``paimon diff``: rows with a row kind (+I/-U/+U/-D) between two snapshots."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, ForceOpt, TableArg, TableOpt, one_table
from paimon_cli.state import get_state

app = typer.Typer()


class Mode(str, Enum):
    auto = "auto"
    changelog = "changelog"
    delta = "delta"
    diff = "diff"


def resolve_point(tbl, text: str, flag: str):
    """A snapshot id, a tag name, or a time (ISO / epoch millis) -> snapshot id (0 = empty table),
    or for a tag its Snapshot (which stays readable after the snapshot itself expired)."""
    from paimon_core.errors import InvalidInput

    try:
        spec = tbl.point(text)
    except InvalidInput as e:
        raise typer.BadParameter(str(e), param_hint=flag) from None
    return tbl.diff_point(spec)


@app.command("diff")
def diff(
    ctx: typer.Context,
    start: Annotated[
        str, typer.Option("--from", metavar="A", help="Snapshot id, tag or time (exclusive; 0 = empty).")
    ],
    end: Annotated[
        str | None,
        typer.Option("--to", metavar="B", help="Snapshot id, tag or time (inclusive; default latest)."),
    ] = None,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    mode: Annotated[
        Mode, typer.Option("--mode", case_sensitive=False, help="auto | changelog | delta | diff")
    ] = Mode.auto,
    per_snapshot: Annotated[
        bool, typer.Option("--per-snapshot", help="Tag each change with its snapshot id.")
    ] = False,
    select: Annotated[
        str | None, typer.Option("--select", metavar="COLS", help="Columns, comma-separated.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write the changes to a file: .parquet, .csv, .json or .jsonl (JSON lines). With the Spark "
            "engine (--engine spark, or auto above engine.spark-threshold) the executors compute and write "
            "them, and FILE names a folder of Parquet part files.",
        ),
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Changes between snapshot A (exclusive) and B (inclusive), first column _row_kind.

    Modes: changelog (the changelog files a changelog-producer wrote), delta (rows of the data
    files APPEND snapshots added), diff (state at A against state at B, key by key; any table),
    auto (changelog when the table has a producer, else diff).

    Examples:

      paimon diff -t demo.events --from 1 --to 2
      paimon diff -t shop.customers --from 0 --mode changelog --per-snapshot -o json
      paimon diff -t shop.customers --from 2024-05-01T00:00:00 --out changes.parquet
    """
    table = one_table(name, table)
    from paimon_cli.params import split_list
    from paimon_cli.progress import byte_progress, spinner
    from paimon_core import changes_schema, diff_parts

    state = get_state(ctx)
    if out is not None:
        from paimon_cli.outfile import check_out

        check_out(out, force)  # refuse an unknown file type, a missing folder, a file there
    tbl = state.table(table, branch)
    a = resolve_point(tbl, start, "'--from'")
    b = resolve_point(tbl, end, "'--to'") if end is not None else (tbl.snapshots.latest_id() or 0)
    columns = split_list(select) or None
    if out is not None:
        from paimon_cli.outfile import export_record, out_format, text_renderer
        from paimon_core.engines import ChangesExport, ExportTarget

        with byte_progress(f"diff {tbl.identifier}") as (on_plan, advance):
            target = ExportTarget(out, out_format(out), text_renderer, on_plan, advance)
            request = ChangesExport(tbl, a, b, target, mode.value, per_snapshot, columns)
            result = state.engine().export_changes(request)
        export_record(state, result, "changes")
        return
    import itertools

    import pyarrow as pa

    from paimon_cli.convert import is_numeric

    schema = changes_schema(tbl, columns, per_snapshot)
    with spinner(f"diff {tbl.identifier}"):  # the range is checked before the first part
        parts = diff_parts(tbl, a, b, mode.value, per_snapshot, columns)
        first = next(parts, None)
    sink = state.out.sink(schema.names, [is_numeric(f.type) for f in schema])
    for part in itertools.chain([first] if first is not None else [], parts):
        for batch in part.to_batches(max_chunksize=10_000):
            sink.write_arrow(pa.Table.from_batches([batch]))
    sink.close()
