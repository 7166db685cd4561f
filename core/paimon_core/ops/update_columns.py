"""Column updates of data-evolution tables (the CLI's ``ingest --update-columns``), written as Java's
data-evolution MERGE INTO writes them.

Input rows name a row by ``_ROW_ID`` and hold new values of some columns. For every row group of
the latest snapshot (a file, or the files sharing its row-id range) that an input row touches,
one new file is written holding only those columns (``_WRITE_COLS``) for every row of the group,
in row-id order: the updated rows' new values, the others' current ones; it has the group's
first row id and row count, so readers merge it with the group and take these columns from it
(its sequence numbers, the new snapshot's id, are the newest). Nothing else is rewritten.

Invariants: every ``_ROW_ID`` of the input is unique and names a live row, else nothing is
written (InvalidInput naming the first bad one); partition columns are not updated (a row would
move); the commit goes through ``FileStoreCommit.commit`` (commit-or-abort).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
from paimon_core.data.system_columns import ROW_ID
from paimon_core.data.types import to_arrow_type
from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.fileformat import formats
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.features import blob_columns
from paimon_core.metadata.manifest import FILE_SOURCE_APPEND, DataFileMeta
from paimon_core.metadata.row_ids import data_evolution
from paimon_core.metadata.stats import StatsCollector
from paimon_core.options.registry import DATA_FILE_PREFIX, FILE_COMPRESSION_ZSTD_LEVEL
from paimon_core.read.row_tracking import row_groups
from paimon_core.read.scan import plan
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class UpdateResult:
    snapshot: Snapshot | None
    rows: int  # input rows applied
    files: int  # column files written


def _check(table: TableContext, updates: pa.Table, columns: list[str]) -> None:
    if not data_evolution(table.schema) or table.schema.primary_keys:
        raise UnsupportedFeature(
            f"table {table.identifier}: column updates need an append table with "
            "data-evolution.enabled = true"
        )
    if not columns:
        raise InvalidInput("a column update names no column")
    for c in columns:
        table.schema.field(c)  # InvalidInput for an unknown column
        if c in table.schema.partition_keys:
            raise InvalidInput(f"column update: '{c}' is a partition key, which cannot be updated")
        if c in blob_columns(table.schema):
            raise UnsupportedFeature(
                f"table {table.identifier}: column update of BLOB column '{c}' (new .blob files "
                "over existing rows) is not supported"
            )
        if c not in updates.column_names:
            raise InvalidInput(f"column update: the input has no column '{c}'")
    if ROW_ID not in updates.column_names:
        raise InvalidInput("column update: the input needs a _ROW_ID column naming the rows to update")
    ids = updates.column(ROW_ID)
    if ids.null_count:
        raise InvalidInput("column update: _ROW_ID is NULL in some input rows")
    if pc.count_distinct(ids).as_py() != updates.num_rows:
        raise InvalidInput("column update: some _ROW_ID appears in more than one input row")


def update_columns(table: TableContext, updates: pa.Table, columns: list[str]) -> UpdateResult:
    """Set ``columns`` of the rows whose ``_ROW_ID`` the rows of ``updates`` hold (see the module).
    A compaction or overwrite that rewrote those rows after they were read fails the commit
    (``CommitConflict``, nothing committed: ``metadata/row_id_conflicts.py``)."""
    messages, rows = column_update_messages(table, updates, columns)
    commit = FileStoreCommit(table, CommitOptions(operation="MERGE"))  # as Java's MERGE INTO of columns
    snapshot = commit.commit(messages) if messages else None
    return UpdateResult(snapshot, rows, len(messages))


def column_update_messages(
    table: TableContext, updates: pa.Table, columns: list[str]
) -> tuple[list[CommitMessage], int]:
    """The column files of :func:`update_columns`, written from the latest snapshot, not
    committed (the messages, the input rows); on failure nothing is left."""
    _check(table, updates, columns)
    columns = [n for n in table.schema.field_names if n in columns]  # schema order
    types = {c: table.schema.field(c).type for c in columns}
    ids = updates.column(ROW_ID).cast(pa.int64()).to_numpy(zero_copy_only=False)
    new = {c: updates.column(c).cast(to_arrow_type(types[c])).combine_chunks() for c in columns}
    order = np.argsort(ids)
    ids = ids[order]
    snap = table.snapshots.latest()
    reader = TableRead(table, columns)
    messages, used = [], np.zeros(len(ids), dtype=bool)
    try:
        for split in plan(table, snap):
            for group in row_groups(list(split.files)):
                first = group[0].first_row_id
                if first is None:
                    continue
                lo, hi = np.searchsorted(ids, [first, first + group[0].row_count])
                if lo == hi:
                    continue
                used[lo:hi] = True
                current = reader.read_group(split, group, ())
                n = current.num_rows
                take = np.arange(n)
                take[ids[lo:hi] - first] = n + np.arange(hi - lo)
                picked = pa.array(order[lo:hi])
                data = pa.table(
                    {
                        c: pa.concat_arrays([current.column(c).combine_chunks(), new[c].take(picked)]).take(
                            pa.array(take)
                        )
                        for c in columns
                    }
                )
                f = _write_column_file(table, split.partition, split.bucket, data, columns, first)
                messages.append(
                    CommitMessage(split.partition, split.bucket, split.total_buckets, new_files=(f,))
                )
        if not used.all():
            raise InvalidInput(f"column update: no live row has _ROW_ID {int(ids[np.argmin(used)])}")
    except BaseException:
        from paimon_core.commit.file_store_commit import discard_files

        discard_files(table, messages)  # nothing was committed: the files written so far go
        raise
    return messages, len(ids)


def _write_column_file(
    table: TableContext, partition: tuple, bucket: int, data: pa.Table, columns: list[str], first: int
) -> DataFileMeta:
    opts = table.schema.core_options
    fmt = formats.file_format(opts.raw, 0)
    name = f"{opts.get(DATA_FILE_PREFIX)}{uuid.uuid4()}-0{formats.file_extension(opts.raw, fmt)}"
    path = table.io.join(table.bucket_path(partition, bucket), name)
    types = [table.schema.field(c).type for c in columns]
    writer = formats.open_writer(
        fmt,
        table.io,
        path,
        pa.schema([pa.field(c, to_arrow_type(t), nullable=t.nullable) for c, t in zip(columns, types)]),
        formats.file_compression(opts.raw, 0),
        opts.get(FILE_COMPRESSION_ZSTD_LEVEL),
        dict(zip(columns, types)),
        table.schema.fields,
    )
    writer.write(data)
    size = writer.close()
    stats = StatsCollector(columns, types, opts.stats_mode, opts.fields_with("stats-mode"))
    stats.update(data)
    now = dt.datetime.now()
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=data.num_rows,
        value_stats=stats.to_simple_stats(),
        schema_id=table.schema.id,
        creation_time=now.replace(microsecond=now.microsecond // 1000 * 1000),
        delete_row_count=0,
        file_source=FILE_SOURCE_APPEND,
        value_stats_cols=tuple(columns),
        first_row_id=first,
        write_cols=tuple(columns),
    )


def update_columns_from_files(table: TableContext, patterns: list[str], columns: list[str]) -> UpdateResult:
    """``update_columns`` with the rows of input files (Parquet, CSV, JSON lines)."""
    from paimon_core.write.input_files import read_batches, resolve_inputs

    parts = [b for f in resolve_inputs(patterns) for b in read_batches(f, table.schema)]
    if not parts:
        raise InvalidInput("column update: the input has no rows")
    try:
        updates = pa.concat_tables(parts, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise InvalidInput(f"column update: the input files do not agree: {str(e).splitlines()[0]}") from None
    return update_columns(table, updates, columns)
