"""``paimon ingest``: files, folders and globs into a table, in one atomic commit."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.humanize import after_commit_summary, count_of
from paimon_cli.output import with_conversion_notes
from paimon_cli.params import BranchOpt, TableOpt
from paimon_cli.progress import byte_progress
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("ingest")
@with_conversion_notes
def ingest(
    ctx: typer.Context,
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FILE...",
            show_default=False,
            help="Parquet, CSV or JSON-lines files, folders or globs (quote globs); - reads stdin continuously.",
        ),
    ] = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite", help="Replace the partitions written to (the whole table if unpartitioned)."
        ),
    ] = False,
    partition: Annotated[
        str | None,
        typer.Option(
            "--partition", "-p", metavar="K=V,...", help="With --overwrite: replace exactly this partition."
        ),
    ] = None,
    row_kind_column: Annotated[
        str | None,
        typer.Option(
            "--row-kind-column",
            metavar="COL",
            help="Input column with the row kind of each row: +I, -U, +U or -D (CDC input; primary-key tables).",
        ),
    ] = None,
    create: Annotated[
        bool,
        typer.Option(
            "--create",
            help="With a change-event --format: create the table from the first file's events when it does not exist.",
        ),
    ] = False,
    primary_key: Annotated[
        str | None,
        typer.Option(
            "--primary-key",
            "-k",
            metavar="COLS",
            help="With --create: the primary key, where the events name none.",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Check the input against the table and, with --overwrite, say what it would replace; write nothing.",
        ),
    ] = False,
    evolve: Annotated[
        bool,
        typer.Option(
            "--evolve",
            help="Add input columns the table lacks (nullable) and widen narrower column types first.",
        ),
    ] = False,
    watch: Annotated[
        str | None,
        typer.Option(
            "--watch",
            metavar="DIR",
            help="Keep ingesting new files of DIR as they appear, in name order, each exactly once.",
        ),
    ] = None,
    pattern: Annotated[
        str, typer.Option("--pattern", metavar="GLOB", help="With --watch: file names to take.")
    ] = "*.parquet",
    commit_interval: Annotated[
        str | None,
        typer.Option(
            "--commit-interval",
            metavar="DURATION",
            help="Streaming: commit at most this often (stdin default 5s; --watch default: one commit per file).",
        ),
    ] = None,
    commit_rows: Annotated[
        int | None,
        typer.Option("--commit-rows", metavar="N", min=1, help="Stdin: also commit once N rows are pending."),
    ] = None,
    input_format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FMT",
            help="Stdin: json (JSON lines) | csv (with a header) | auto; stdin, --watch and JSON files: "
            "change events in debezium-json | canal-json | maxwell-json | ogg-json.",
        ),
    ] = "auto",
    poll: Annotated[
        str, typer.Option("--poll", metavar="DURATION", help="With --watch: wait between looks.")
    ] = "1s",
    update_columns: Annotated[
        str | None,
        typer.Option(
            "--update-columns",
            metavar="COL,...",
            help="Data-evolution tables: set these columns of the rows the input's _ROW_ID names "
            "(writes files of these columns only, as Java's MERGE INTO).",
        ),
    ] = None,
    commit_user: Annotated[
        str | None,
        typer.Option(
            "--commit-user",
            metavar="ID",
            help="Streaming: the commit user recorded in snapshots (--watch default: derived from table, DIR and pattern).",
        ),
    ] = None,
) -> None:
    """Add the rows of files to a table in one commit (checked and cast to the table schema).

    Examples:

      paimon ingest events.parquet -t demo.events
      paimon ingest demo.events events.parquet       # the table first: the same
      paimon ingest "data/*.csv" -t demo.events
      paimon ingest day.parquet -t demo.events --overwrite -p dt=2024-01-01
      paimon ingest cdc.parquet -t shop.customers --row-kind-column op
      paimon ingest more_columns.parquet -t demo.events --evolve
      paimon ingest fixes.csv -t demo.docs --update-columns title,score   # rows by _ROW_ID
      paimon ingest --watch landing/ --pattern "*.parquet" -t demo.events
      producer | paimon ingest - -t demo.events --commit-interval 5s
      kafka-console-consumer ... | paimon ingest - -t shop.orders --format debezium-json
    """
    from paimon_core.ops.ingest import ingest_files

    state = get_state(ctx)
    table, files = _table_first(state, table, list(files or []), watch is not None)
    if watch is not None or files == ["-"]:
        from paimon_cli.commands.ingest_stream import run_streaming

        if files and watch is not None:
            raise typer.BadParameter("--watch takes no FILES")
        if overwrite or partition or evolve or dry_run:
            raise typer.BadParameter(
                "--overwrite, --partition, --evolve and --dry-run are not supported when streaming"
            )
        run_streaming(
            state,
            state.table(table, branch),
            watch,
            pattern,
            commit_interval,
            commit_rows,
            input_format,
            poll,
            commit_user,
            row_kind_column,
        )
        return
    if not files:
        raise typer.BadParameter("give FILES, - (stdin) or --watch DIR")
    if "-" in files:
        raise typer.BadParameter("- (stdin) cannot be mixed with files")
    if create:
        _create_from_events(state, table, files, input_format, primary_key)
    elif primary_key is not None:
        raise typer.BadParameter("--primary-key goes with --create")
    tbl = state.table(table, branch)
    if update_columns is not None:
        if overwrite or partition or evolve or row_kind_column:
            raise typer.BadParameter(
                "--update-columns takes no --overwrite, --partition, --evolve or --row-kind-column"
            )
        _update(state, tbl, files, update_columns)
        return
    engine = state.engine()
    with byte_progress(f"ingest into {tbl.identifier}") as (on_plan, advance):
        result = ingest_files(
            tbl,
            files,
            overwrite=overwrite,
            partition=partition,
            engine=engine,
            progress=advance,
            on_plan=on_plan,
            row_kind_column=row_kind_column,
            evolve=evolve,
            input_format=None if input_format in ("auto", "json", "csv") else input_format,
            dry_run=dry_run,
        )
    from paimon_cli.output import note

    if result.skipped:
        shown = ", ".join(result.skipped[:5]) + (
            f" and {len(result.skipped) - 5} more" if len(result.skipped) > 5 else ""
        )
        note(
            f"skipped {count_of(len(result.skipped), 'file')} that {'is' if len(result.skipped) == 1 else 'are'} "
            f"not Parquet, CSV or JSON (by extension): {shown}"
        )
    if result.missing:
        note(
            f"{'column' if len(result.missing) == 1 else 'columns'} {', '.join(result.missing)} "
            f"{'is' if len(result.missing) == 1 else 'are'} not in the input: written as NULL"
        )
    if dry_run:
        _report_dry_run(state, tbl.identifier, result, overwrite)
        return
    snap = result.snapshot
    sid = snap.id if snap is not None else None
    what = "overwrote" if overwrite else "ingested"
    rows = count_of(result.rows, "row")
    if result.input_rows is not None and result.input_rows > result.rows:
        rows += f" ({count_of(result.input_rows, 'input row')}; rows with the same key were merged)"
    elif result.input_rows is not None and result.input_rows < result.rows:  # cross-partition moves
        rows += f" ({count_of(result.input_rows, 'input row')}; with deletes of keys that moved partition)"
    text = (
        f"{what} {rows} in {count_of(result.files, 'file')} into {tbl.identifier}: snapshot {sid}"
        if sid is not None
        else f"nothing to commit for {tbl.identifier} (no rows)"
    )
    if result.replaced is not None and sid is not None:
        text += f" (replaced {_replaced(result.replaced)})"
    text += after_commit_summary(result.after)
    if result.evolved:
        note(f"evolved the schema of {tbl.identifier}: " + "; ".join(_describe(c) for c in result.evolved))
    record = {
        "table": tbl.identifier,
        "snapshot": sid,
        "rows": result.rows,
        "input_rows": result.input_rows,
        "files": result.files,
    }
    if result.replaced is not None:
        record["replaced"] = _replaced_record(result.replaced)
    state.out.record(record, text)


def _replaced(r) -> str:
    where = f" in {', '.join(r.partitions)}" if r.partitions else ""
    return f"{count_of(r.files, 'file')} of {count_of(r.records, 'record')}{where}"


def _replaced_record(r) -> dict:
    return {"files": r.files, "records": r.records, "partitions": list(r.partitions)}


def _report_dry_run(state, identifier: str, result, overwrite: bool) -> None:
    changes = "; ".join(_describe(c) for c in result.evolved)
    text = f"dry run: the input fits {identifier}" + (f" once evolved ({changes})" if changes else "")
    if overwrite and result.replaced is not None:
        text += f"; the overwrite would replace {_replaced(result.replaced)}"
    record = {"table": identifier, "dry_run": True, "evolve": [_describe(c) for c in result.evolved]}
    if result.replaced is not None:
        record["replaced"] = _replaced_record(result.replaced)
    state.out.record(record, text + "; nothing was written")


def _create_from_events(
    state, table: str | None, files: list[str], fmt: str, primary_key: str | None
) -> None:
    """Create the table from the first input file's change events, unless it exists."""
    from paimon_cli.output import note
    from paimon_cli.params import split_list
    from paimon_core.ops.cdc_schema import CDC_FORMATS, schema_from_events

    if fmt not in CDC_FORMATS:
        raise typer.BadParameter(f"--create goes with a change-event --format ({', '.join(CDC_FORMATS)})")
    identifier = state.table_name(table)
    if state.catalog.table_exists(identifier):
        return
    made = schema_from_events(files, fmt, split_list(primary_key) if primary_key else None)
    state.catalog.create_table(identifier, made.schema)
    keys = ", ".join(made.schema.primary_keys)
    note(f"created {identifier} from the events of {made.source}: {made.columns}; primary key {keys}")


def _describe(change) -> str:
    from paimon_core import AddColumn

    if isinstance(change, AddColumn):
        return f"added column {change.name} {change.type}"
    return f"widened column {change.name} to {change.type}"


def _update(state, tbl, files: list[str], columns: str) -> None:
    from paimon_core.ops.update_columns import update_columns_from_files

    names = [c.strip() for c in columns.split(",") if c.strip()]
    result = update_columns_from_files(tbl, files, names)
    sid = result.snapshot.id if result.snapshot is not None else None
    text = (
        f"updated {', '.join(names)} of {count_of(result.rows, 'row')} in "
        f"{count_of(result.files, 'column file')} of {tbl.identifier}: snapshot {sid}"
    )
    record = {"table": tbl.identifier, "snapshot": sid, "rows": result.rows, "files": result.files}
    state.out.record(record, text)


def _table_first(state, table: str | None, files: list[str], watching: bool) -> tuple[str | None, list[str]]:
    """``paimon ingest DB.TABLE FILE...`` is ``paimon ingest FILE... -t DB.TABLE``: without -t, a
    first argument that is no file or folder and names an existing table is the table (a table
    that --create makes is named by -t)."""
    import os
    import re

    if table is not None or len(files) < (1 if watching else 2):
        return table, files
    first = files[0]
    if not re.fullmatch(r"[\w-]+\.[\w-]+", first) or os.path.exists(first):
        return table, files
    if state.catalog.table_exists(first):
        return first, files[1:]
    return table, files
