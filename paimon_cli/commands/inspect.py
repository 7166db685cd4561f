"""Inspection commands: snapshots, schema, files."""

from __future__ import annotations

import json
import re
import sys

import typer

from paimon_cli.errors import CliError
from paimon_cli.humanize import human_bytes
from paimon_cli.params import BranchOpt, SnapshotOpt, TableArg, TableOpt, iso_millis, one_table
from paimon_cli.state import get_state

app = typer.Typer()

_FILE_NAME = re.compile(
    r"^([a-z-]*?-)([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-(\d+)\.\w+$"
)


@app.command("snapshots")
def snapshots(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
) -> None:
    """List the snapshots of a table (each commit makes one).

    Example:

      paimon snapshots -t demo.events
    """
    table = one_table(name, table)
    state = get_state(ctx)
    name, manager = state.snapshot_manager(table, branch)  # no pyarrow: this command must start fast
    snaps, damaged = manager.readable()
    _list_snapshots(state, manager, snaps)
    if damaged:  # after the readable ones: exit 1 naming each damaged file and the repair
        raise CliError(_damaged_advice(name, damaged))


def _damaged_advice(name: str, damaged) -> str:
    files = ", ".join(f"{e.path} ({e.detail})" for e in damaged)
    what = f"damaged snapshot file{'s' if len(damaged) > 1 else ''}: {files}"
    previous = damaged[0].previous
    if previous is None:
        return f"{what}; no older snapshot to roll back to: restore the file(s) from a backup"
    return (
        f"{what}; run `paimon rollback -t {name} --to {previous}` to remove "
        f"{'them' if len(damaged) > 1 else 'it'} and make snapshot {previous} the latest"
    )


def _list_snapshots(state, manager, snaps) -> None:
    if state.out.fmt != "table":
        rows = [
            [
                s.id,
                s.commit_kind,
                s.operation,
                iso_millis(s.time_millis),
                s.total_record_count,
                s.delta_record_count,
                s.changelog_record_count or 0,
                s.schema_id,
            ]
            for s in snaps
        ]
        names = ["id", "kind", "operation", "time", "total_records", "delta_records", "changelog_records"]
        state.out.rows([*names, "schema_id"], rows)
        return
    rows = [
        [
            s.id,
            s.commit_kind,
            s.operation or "",
            iso_millis(s.time_millis)[:19].replace("T", " "),
            s.total_record_count,
            s.delta_record_count,
            s.schema_id,
        ]
        for s in snaps
    ]  # fits 80 columns; -o json has it all
    state.out.rows(["id", "kind", "operation", "time (UTC)", "records", "delta", "schema"], rows)
    from paimon_core.catalog import has_primary_key

    if snaps and has_primary_key(manager):
        from paimon_cli.output import note

        note(
            "records are stored records (before merging by key, deletes included); "
            "`paimon read --count` counts rows"
        )


@app.command("schema")
def schema(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
) -> None:
    """Show the schema of a table: columns, partition keys, primary keys, options.

    With -o json, prints the schema file (schema/schema-N) as one JSON line.

    Examples:

      paimon schema -t demo.events
      paimon -o json schema -t demo.events
    """
    table = one_table(name, table)
    state = get_state(ctx)
    tbl = state.table(table, branch)
    s = tbl.schema
    if state.out.fmt == "json":
        sys.stdout.write(json.dumps(json.loads(s.to_json()), ensure_ascii=False) + "\n")
        return
    if state.out.fmt == "csv":
        state.out.rows(
            ["id", "name", "type", "comment"], [[f.id, f.name, str(f.type), f.description] for f in s.fields]
        )
        return
    has_comment = any(f.description for f in s.fields)
    columns = ["id", "name", "type"] + (["comment"] if has_comment else [])
    rows = [[f.id, f.name, str(f.type)] + ([f.description] if has_comment else []) for f in s.fields]
    state.out.rows(columns, rows, title=f"{tbl.identifier} (schema {s.id})")
    sys.stdout.write(f"partition keys: {', '.join(s.partition_keys) or '-'}\n")
    sys.stdout.write(f"primary keys: {', '.join(s.primary_keys) or '-'}\n")
    if s.comment:
        sys.stdout.write(f"comment: {s.comment}\n")
    state.out.rows(["option", "value"], sorted(s.options.items()))


@app.command("files")
def files(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    snapshot: SnapshotOpt = None,
) -> None:
    """List the live data files of a snapshot (default: the latest).

    Example:

      paimon files -t demo.events --snapshot 1
    """
    table = one_table(name, table)
    state = get_state(ctx)
    tbl = state.table(table, branch)
    snap = tbl.resolve_snapshot(snapshot)
    codec = tbl.partition_codec
    full = state.out.fmt != "table"
    rows = []
    for split in tbl.plan(snap):
        part = codec.display(codec.spec(split.partition)) if codec.keys else ""
        for f in split.files:
            if full:
                rows.append(
                    [
                        part,
                        split.bucket,
                        f.level,
                        f.file_name,
                        f.row_count,
                        f.file_size,
                        f.min_sequence_number,
                        f.max_sequence_number,
                    ]
                )
            else:  # fits 80 columns: a short file name, a readable size; -o json has everything
                rows.append(
                    [
                        part,
                        split.bucket,
                        f.level,
                        short_file_name(f.file_name),
                        f.row_count,
                        human_bytes(f.file_size),
                    ]
                )
    if full:
        state.out.rows(["partition", "bucket", "level", "file", "rows", "size", "min_seq", "max_seq"], rows)
    else:
        state.out.rows(["partition", "bucket", "level", "file", "rows", "size"], rows)


def short_file_name(name: str) -> str:
    """``data-f65850d7-ea95-4631-8a31-0227d0cce2ef-0.parquet`` -> ``data-f65850d7…-0``: the
    writer's uuid cut to 8 hex digits (unique in practice), the file counter kept."""
    m = _FILE_NAME.match(name)
    return f"{m.group(1)}{m.group(2)}…-{m.group(3)}" if m else name
