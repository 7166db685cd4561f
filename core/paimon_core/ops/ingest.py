"""Ingest: input files (or Arrow tables) into a table in one atomic commit.

All inputs are checked against the table schema before any file is written; if writing or
committing fails, the files written so far are deleted, so the table stays at its last
snapshot. ``overwrite`` replaces the partitions the input writes to (Paimon's dynamic
partition overwrite), the whole table when it is unpartitioned, or exactly the partition
given as ``partition``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
from paimon_core.data.no_rows import no_rows
from paimon_core.errors import InvalidInput, SchemaMismatch
from paimon_core.fileformat.blob import is_blob_file  # .blob files repeat their data file's rows
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.ops.after_write import AfterWrite, after_write
from paimon_core.read.partition_spec import parse_partition_spec
from paimon_core.write.cdc_formats import ROW_KIND
from paimon_core.write.conform import check_columns, conform_table
from paimon_core.write.input_files import as_change_events, find_inputs, input_schema
from paimon_core.write.table_write import write_files
from paimon_core.write.table_write import write_tables as write_table_batches

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class IngestResult:
    snapshot: Snapshot | None
    rows: int  # rows written (records in the new files): fewer than the input when rows merge by key
    files: int
    evolved: tuple = ()  # the schema changes ``evolve`` committed before the data
    input_rows: int | None = None  # rows read from the input, when the engine knows
    skipped: tuple = ()  # files in the input folders that are not Parquet, CSV or JSON
    missing: tuple = ()  # table columns no input has: written as NULL
    replaced: Replaced | None = None  # what an overwrite replaced (or, dry run, would replace)
    after: AfterWrite | None = None  # the compaction and housekeeping that followed the commit


@dataclass(frozen=True)
class Replaced:
    """The data files an overwrite removes from the table: their count, records and partitions
    (display form, ``dt=2024-01-01``)."""

    files: int
    records: int
    partitions: tuple = ()


def replaced_by(table: TableContext, snap: Snapshot) -> Replaced:
    """What the OVERWRITE snapshot ``snap`` deleted (its delta's DELETE entries)."""
    store = table.manifests
    entries = [e for m in store.read_list(snap.delta_manifest_list) for e in store.read_manifest(m.file_name)]
    return _replaced(table, [e for e in entries if e.kind == 1])


def _replaced(table: TableContext, entries) -> Replaced:
    codec = table.partition_codec
    parts = sorted({e.partition for e in entries})
    shown = (
        tuple(codec.display(codec.spec(codec.from_bytes(p))) for p in parts)
        if table.schema.partition_keys
        else ()
    )
    rows = sum(e.file.row_count for e in entries if not is_blob_file(e.file.file_name))
    return Replaced(len(entries), rows, shown)


def _missing_columns(table: TableContext, named_schemas) -> tuple:
    """Table columns that inputs with rows leave out (none when no input has a row)."""
    if not named_schemas:
        return ()
    present = set()
    for _, s in named_schemas:
        present.update(s.names)
    return tuple(n for n in table.schema.field_names if n not in present)


def _written_partitions(
    table: TableContext, messages: list[CommitMessage], overwrite: bool, spec: dict | None
):
    """An overwrite without a partition spec replaces the partitions the input wrote."""
    if overwrite and spec is None and table.schema.partition_keys:
        return {m.partition for m in messages}.__contains__
    return None


def _commit(
    table: TableContext,
    messages: list[CommitMessage],
    overwrite: bool,
    spec: dict | None,
    index_base: int | None = None,
    operation: str | None = None,
) -> tuple[Snapshot | None, AfterWrite]:
    """Commit ``messages`` (commit-or-abort: a failed commit leaves none of their files), then
    compact and keep house as the table's writers do; returns the snapshot and what followed."""
    opts = CommitOptions(
        overwrite=overwrite,
        overwrite_filter=_written_partitions(table, messages, overwrite, spec),
        overwrite_partition=spec if overwrite else None,
        index_base=index_base,
        operation=operation,
    )
    snap = FileStoreCommit(table, opts).commit(messages)
    after = after_write(table, messages if snap is not None else [], batch=True)
    return snap, after


REWRITES = 3  # how often a dynamic-bucket write is redone after a bucket assignment conflict


def _write_and_commit(
    table: TableContext, write, overwrite: bool, spec: dict | None, operation: str | None = None
):
    """``write(read)`` (the engine's write; ``read`` collects input row counts), then commit.
    A dynamic-bucket write whose new keys another writer meanwhile put in other buckets cannot
    be committed as written (``index_rebase``): its files are deleted and the write is redone
    against the new index, a few times; so is a cross-partition upsert write when another writer
    added data after it read the key index (``cross_partition_guard``). ``operation`` names the
    snapshot's operation (a delete's DELETE; none for a plain write or overwrite, as Java's
    core and Flink write them). Returns (messages, snapshot, what ran
    after it, read)."""
    from paimon_core.write.cross_partition_guard import CrossPartitionConflict, index_base, refuse
    from paimon_core.write.index_rebase import BucketAssignmentConflict

    if overwrite:
        refuse(table, "overwrite")
    for attempt in range(REWRITES + 1):
        read: list = []
        base = index_base(table)  # the writer's key index is read from this snapshot or a later one
        messages = write(read)
        try:
            snap, after = _commit(table, messages, overwrite, spec, base, operation)
            return messages, snap, after, read
        except CrossPartitionConflict:  # _commit deleted the files
            if attempt == REWRITES:
                raise CrossPartitionConflict(
                    f"{table.identifier}: other writers kept adding data while this write routed keys through "
                    f"the global key index ({REWRITES + 1} attempts); nothing was committed. Run the write again"
                ) from None
        except BucketAssignmentConflict:  # _commit deleted the files
            if attempt == REWRITES:
                raise BucketAssignmentConflict(
                    f"{table.identifier}: other writers kept adding the same new keys at the same time and put "
                    f"them in other buckets ({REWRITES + 1} attempts); nothing was committed. Run the write "
                    "again, or write those keys from one writer at a time"
                ) from None
    raise AssertionError("unreachable")


def _evolution(table: TableContext, schemas: list[pa.Schema]) -> tuple[list, TableSchema]:
    """The schema changes that make every input fit (new nullable columns, implicit widening)
    and the schema they lead to; nothing is committed here."""
    from paimon_core.metadata.schema_evolution import apply_changes, changes_for_input

    changes, candidate = [], table.schema
    for s in schemas:
        more = changes_for_input(candidate, s)
        if more:
            candidate = apply_changes(candidate, more, has_snapshot=True)
            changes += more
    return changes, candidate


def _check_inputs(
    table: TableContext, named_schemas: list[tuple[str, pa.Schema]], evolve: bool, dry_run: bool = False
):
    """Check every input against the table (evolved in memory when ``evolve``) before anything is
    written; commits the evolved schema (not on a ``dry_run``) and returns (table to write with,
    changes)."""
    from paimon_core.metadata.schema_evolution import check_shares_a_column

    changes: list = []
    target = table
    for where, s in named_schemas:  # before --evolve would add columns named after a CSV's values
        try:
            check_shares_a_column(s.names, table.schema)
        except SchemaMismatch as e:
            raise SchemaMismatch(f"{where}{e}") from None
    if evolve:
        changes, candidate = _evolution(table, [s for _, s in named_schemas])
        if changes:
            target = table.with_schema(candidate)
    for where, s in named_schemas:
        try:
            check_columns(s.names, target.schema)
            conform_table(no_rows(s), target.schema)
        except SchemaMismatch as e:
            error = SchemaMismatch(f"{where}{e}")
            if e.hint_key is not None:
                error.with_hint(e.hint_key, **e.hint_values)
            raise error from None
    if changes and not dry_run:  # before the data, so the data commit records the new schemaId
        from paimon_core.ops.alter import alter_table

        target = alter_table(table, changes)
    return target, tuple(changes)


def _without_kind(s: pa.Schema, row_kind_column: str | None, where: str) -> pa.Schema:
    if row_kind_column is None:
        return s
    if row_kind_column not in s.names:
        raise SchemaMismatch(f"{where}row kind column '{row_kind_column}' is not in the input")
    return s.remove(s.get_field_index(row_kind_column))


class WriteEngine(Protocol):
    """What ``ingest_files`` needs of an engine (``engines.base.Engine`` is one, a layer above):
    the input files written as new data files, returned as commit messages, not committed."""

    def write(
        self,
        table: TableContext,
        inputs: list,
        progress: Callable[[int], None] | None = None,
        row_kind_column: str | None = None,
        on_rows: Callable[[int], None] | None = None,
    ) -> list: ...


def ingest_files(
    table: TableContext,
    paths: list[str],
    overwrite: bool = False,
    partition: dict | str | None = None,
    engine: WriteEngine | None = None,
    progress: Callable[[int], None] | None = None,
    on_plan: Callable[[int], None] | None = None,
    row_kind_column: str | None = None,
    evolve: bool = False,
    input_format: str | None = None,
    dry_run: bool = False,
) -> IngestResult:
    """Ingest files/folders/globs. ``on_plan(total_bytes)`` is called once inputs are resolved.
    ``evolve``: input columns the table lacks are added (nullable) and narrower table types
    widened, in a new schema committed before the data. ``input_format``: a change-event format
    (``cdc_formats.CDC_FORMATS``) the JSON inputs are read in; their events are applied in file
    and line order, in-process (a Spark job would not keep that order). ``dry_run``: check the
    inputs and say what an overwrite would replace; nothing is written (an ``evolve`` neither)."""
    spec = parse_partition_spec(table, partition)
    if spec is not None and not overwrite:
        raise InvalidInput("a partition spec needs overwrite (it names the partition to replace)").with_hint(
            "partition_needs_overwrite"
        )
    found = find_inputs(paths)
    inputs = found.files
    if input_format is not None:
        inputs, row_kind_column, engine = (
            as_change_events(inputs, input_format, row_kind_column),
            ROW_KIND,
            None,
        )
    schemas = [(f, input_schema(f, table.schema)) for f in inputs]
    named = [  # a text input without a row (empty, or change events that are all DDL) has no columns
        (f"{f.path}: ", _without_kind(s, row_kind_column, f"{f.path}: "))
        for f, s in schemas
        if len(s) or f.format == "parquet"
    ]
    table, evolved = _check_inputs(table, named, evolve, dry_run)
    if on_plan:
        on_plan(sum(f.size for f in inputs))

    def write(read: list) -> list:
        if engine is None:  # in-process
            return write_files(table, inputs, progress, row_kind_column, on_rows=read.append)
        return engine.write(table, inputs, progress, row_kind_column=row_kind_column, on_rows=read.append)

    if dry_run:
        return IngestResult(
            None,
            0,
            0,
            evolved,
            skipped=found.skipped,
            missing=_missing_columns(table, named),
            replaced=_would_replace(table, inputs, spec) if overwrite else None,
        )
    messages, snap, after, read = _write_and_commit(table, write, overwrite, spec)
    return IngestResult(
        snap,
        sum(f.row_count for m in messages for f in m.new_files if not is_blob_file(f.file_name)),
        sum(len(m.new_files) for m in messages),
        evolved,
        input_rows=sum(read) if read else None,
        skipped=found.skipped,
        missing=_missing_columns(table, named),
        replaced=replaced_by(table, snap) if overwrite and snap is not None else None,
        after=after,
    )


def _would_replace(table: TableContext, inputs: list, spec: dict | None) -> Replaced:
    """The live files an overwrite of ``inputs`` would replace: the partition ``spec`` names, the
    partitions the input rows fall in (read from the input's partition columns), or all."""
    from paimon_core.metadata.live_files import live_entries
    from paimon_core.read.partition_spec import partition_matcher
    from paimon_core.write.input_files import read_batches

    latest = table.snapshots.latest()
    if latest is None:
        return Replaced(0, 0)
    entries = live_entries(table.manifests, latest)
    codec = table.partition_codec
    keys = table.schema.partition_keys
    if spec is not None:
        match = partition_matcher(table, spec)
    elif keys:
        from paimon_core.data.values import internal_values
        from paimon_core.write.conform import conform_column

        types = {f.name: f.type for f in table.schema.fields}
        wanted = set()
        for f in inputs:
            for batch in read_batches(f, table.schema):
                columns = [
                    internal_values(conform_column(batch.column(k), k, types[k]), types[k])
                    if k in batch.column_names
                    else [None] * batch.num_rows
                    for k in keys
                ]
                wanted.update(zip(*columns))
        match = wanted.__contains__
    else:
        return _replaced(table, entries)
    return _replaced(table, [e for e in entries if match(codec.from_bytes(e.partition))])


def write_tables(
    table: TableContext,
    tables: list[pa.Table],
    overwrite: bool = False,
    partition: dict | str | None = None,
    row_kind_column: str | None = None,
    evolve: bool = False,
    operation: str | None = None,
) -> IngestResult:
    spec = parse_partition_spec(table, partition)
    evolved: tuple = ()
    if evolve:
        named = [("", _without_kind(t.schema, row_kind_column, "")) for t in tables]
        table, evolved = _check_inputs(table, named, evolve)
    messages, snap, after, _ = _write_and_commit(
        table, lambda read: write_table_batches(table, tables, row_kind_column), overwrite, spec, operation
    )
    return IngestResult(
        snap,
        sum(f.row_count for m in messages for f in m.new_files if not is_blob_file(f.file_name)),
        sum(len(m.new_files) for m in messages),
        evolved,
        input_rows=sum(t.num_rows for t in tables),
        after=after,
    )
