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
from paimon_core.commit import CommitOptions, FileStoreCommit
from paimon_core.errors import InvalidInput, SchemaMismatch
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.snapshot import Snapshot
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
) -> Snapshot | None:
    """Commit ``messages`` (commit-or-abort: a failed commit leaves none of their files), then
    compact as the table's writers do."""
    opts = CommitOptions(
        overwrite=overwrite,
        overwrite_filter=_written_partitions(table, messages, overwrite, spec),
        overwrite_partition=spec if overwrite else None,
        index_base=index_base,
    )
    snap = FileStoreCommit(table, opts).commit(messages)
    if snap is not None:
        _compact_after_write(table, messages)
    return snap


REWRITES = 3  # how often a dynamic-bucket write is redone after a bucket assignment conflict


def _write_and_commit(table: TableContext, write, overwrite: bool, spec: dict | None):
    """``write(read)`` (the engine's write; ``read`` collects input row counts), then commit.
    A dynamic-bucket write whose new keys another writer meanwhile put in other buckets cannot
    be committed as written (``index_rebase``): its files are deleted and the write is redone
    against the new index, a few times; so is a cross-partition upsert write when another writer
    added data after it read the key index (``cross_partition_guard``). Returns (messages,
    snapshot, read)."""
    from paimon_core.write.cross_partition_guard import CrossPartitionConflict, index_base, refuse
    from paimon_core.write.index_rebase import BucketAssignmentConflict

    if overwrite:
        refuse(table, "overwrite")
    for attempt in range(REWRITES + 1):
        read: list = []
        base = index_base(table)  # the writer's key index is read from this snapshot or a later one
        messages = write(read)
        try:
            return messages, _commit(table, messages, overwrite, spec, base), read
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


def _compact_after_write(table: TableContext, messages: list[CommitMessage]) -> None:
    """Paimon's writers compact the buckets they wrote when a bucket has too many sorted runs
    (``num-sorted-run.compaction-trigger``), then expire snapshots per the table options (both
    off with ``write-only``); the data is committed already, so a compaction that loses a race
    to another writer is simply left for the next write."""
    from paimon_core.compaction.compaction import auto_compact
    from paimon_core.errors import CommitConflict

    try:
        auto_compact(table, messages)
    except CommitConflict:
        pass
    from paimon_core.maintain.expire import expire_after_commit

    expire_after_commit(table)  # per the table's snapshot.* options, as Paimon's writers do


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


def _check_inputs(table: TableContext, named_schemas: list[tuple[str, pa.Schema]], evolve: bool):
    """Check every input against the table (evolved in memory when ``evolve``) before anything is
    written; commits the evolved schema and returns (table to write with, changes)."""
    changes: list = []
    target = table
    if evolve:
        changes, candidate = _evolution(table, [s for _, s in named_schemas])
        if changes:
            target = table.with_schema(candidate)
    for where, s in named_schemas:
        try:
            check_columns(s.names, target.schema)
            conform_table(s.empty_table(), target.schema)
        except SchemaMismatch as e:
            error = SchemaMismatch(f"{where}{e}")
            if e.hint_key is not None:
                error.with_hint(e.hint_key, **e.hint_values)
            raise error from None
    if changes:  # before the data, so the data commit records the new schemaId
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
) -> IngestResult:
    """Ingest files/folders/globs. ``on_plan(total_bytes)`` is called once inputs are resolved.
    ``evolve``: input columns the table lacks are added (nullable) and narrower table types
    widened, in a new schema committed before the data. ``input_format``: a change-event format
    (``cdc_formats.CDC_FORMATS``) the JSON inputs are read in; their events are applied in file
    and line order, in-process (a Spark job would not keep that order)."""
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
    named = [
        (f"{f.path}: ", _without_kind(input_schema(f, table.schema), row_kind_column, f"{f.path}: "))
        for f in inputs
    ]
    table, evolved = _check_inputs(table, named, evolve)
    if on_plan:
        on_plan(sum(f.size for f in inputs))

    def write(read: list) -> list:
        if engine is None:  # in-process
            return write_files(table, inputs, progress, row_kind_column, on_rows=read.append)
        return engine.write(table, inputs, progress, row_kind_column=row_kind_column, on_rows=read.append)

    messages, snap, read = _write_and_commit(table, write, overwrite, spec)
    return IngestResult(
        snap,
        sum(f.row_count for m in messages for f in m.new_files),
        sum(len(m.new_files) for m in messages),
        evolved,
        input_rows=sum(read) if read else None,
        skipped=found.skipped,
    )


def write_tables(
    table: TableContext,
    tables: list[pa.Table],
    overwrite: bool = False,
    partition: dict | str | None = None,
    row_kind_column: str | None = None,
    evolve: bool = False,
) -> IngestResult:
    spec = parse_partition_spec(table, partition)
    evolved: tuple = ()
    if evolve:
        named = [("", _without_kind(t.schema, row_kind_column, "")) for t in tables]
        table, evolved = _check_inputs(table, named, evolve)
    messages, snap, _ = _write_and_commit(
        table, lambda read: write_table_batches(table, tables, row_kind_column), overwrite, spec
    )
    return IngestResult(
        snap,
        sum(f.row_count for m in messages for f in m.new_files),
        sum(len(m.new_files) for m in messages),
        evolved,
        input_rows=sum(t.num_rows for t in tables),
    )
