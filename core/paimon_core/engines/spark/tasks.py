"""The code Spark tasks run on executors: read input pieces, write buckets, compact splits, read
splits. Everything here takes and yields Arrow record batches (``mapInArrow``) and is pickled
by reference, so executors import it from the ``paimon_core`` zip the driver ships.

Invariant: every data file a task writes is named with the job's prefix (``data-file.prefix``
set to ``data-<job>-`` in the table the task rebuilds), so the driver can find and delete the
files of failed or killed attempts, which never reach a commit.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.storage.file_io import FileIO
    from paimon_core.table import FileStoreTable

BUCKET = "__paimon_bucket"
ORDER = "__paimon_order"
KIND_COL = "__paimon_kind"
MSG = "msg"
ATTEMPT = "retried"
PIECE_SHIFT = 40  # __order = piece index << 40 | row within piece: the input order, globally


@dataclass(frozen=True)
class TableSpec:
    """What an executor needs to rebuild the table: storage, path, name and schema JSON."""

    io: FileIO  # picklable: scheme, root, storage options
    path: str
    identifier: str
    schema_json: str
    file_prefix: str | None = None  # overrides data-file.prefix for this job's files
    branch: str = "main"  # the branch whose snapshots and schemas the table sees

    @staticmethod
    def of(table: TableContext, file_prefix: str | None = None) -> TableSpec:
        return TableSpec(
            table.io, table.path, table.identifier, table.schema.to_json(), file_prefix, table.branch
        )

    def table(self) -> FileStoreTable:
        from paimon_core.metadata.schema import TableSchema
        from paimon_core.table import FileStoreTable

        obj = json.loads(self.schema_json)
        if self.file_prefix:
            obj.setdefault("options", {})["data-file.prefix"] = self.file_prefix
        schema = TableSchema.from_json(json.dumps(obj))
        return FileStoreTable(self.io, self.path, self.identifier, schema, self.branch)


@dataclass(frozen=True)
class Piece:
    """A slice of one input file: a run of Parquet row groups, or a whole CSV/JSON file."""

    index: int
    path: str
    format: str
    size: int
    row_groups: tuple[int, ...] | None = None
    rows: int | None = None  # row count (Parquet metadata); None for CSV/JSON
    offset: int | None = (
        None  # rows of all earlier pieces (the piece's global row offset), if all are counted
    )


def _retried() -> bool:
    """True if this task is not the first attempt (its earlier attempts may have left files)."""
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
    except Exception:  # noqa: BLE001 - no task context: assume the worst
        return True
    if ctx is None:
        return True
    return ctx.attemptNumber() > 0


def _fault(fault: str | None, point: str) -> None:
    """Test hook: ``crash:<point>`` kills the Python worker; ``raise:<point>`` raises."""
    if not fault:
        return
    kind, _, where = fault.partition(":")
    if where != point:
        return
    if kind == "crash":
        import os

        os._exit(17)
    raise RuntimeError(f"injected failure at {point}")


def _messages_batch(messages) -> pa.RecordBatch:
    blobs = pa.array([pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL) for m in messages], pa.binary())
    flags = pa.array([_retried()] * len(messages), pa.bool_())
    return pa.RecordBatch.from_arrays([blobs, flags], names=[MSG, ATTEMPT])


def carried_as_nanos(t: pa.DataType) -> bool:
    """A nanosecond timestamp column, which crosses a Spark shuffle as int64 nanoseconds."""
    return pa.types.is_timestamp(t) and t.unit == "ns"


def to_spark_arrow(table: pa.Table, target: pa.Schema) -> pa.Table:
    """Cast a table to the Arrow schema Spark expects (microsecond timestamps, plain strings)."""
    if table.schema.equals(target):
        return table
    return pa.Table.from_arrays([table.column(i).cast(f.type) for i, f in enumerate(target)], schema=target)


# ---- ingest: read pieces -> rows with bucket and order


def read_piece(piece: Piece, schema, row_kind_column: str | None):
    """Yield (conformed table, kinds or None, first row offset) for the piece."""
    from paimon_core.errors import InvalidInput
    from paimon_core.write.conform import conform_table, split_row_kinds
    from paimon_core.write.input_files import BATCH_ROWS, InputFile, read_batches

    if piece.format == "parquet" and piece.row_groups is not None:
        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(piece.path)
            batches = (
                pa.Table.from_batches([b])
                for b in pf.iter_batches(batch_size=BATCH_ROWS, row_groups=list(piece.row_groups))
            )
        except (pa.ArrowInvalid, OSError) as e:
            raise InvalidInput(f"{piece.path}: cannot read as PARQUET: {str(e).splitlines()[0]}") from None
    else:
        batches = read_batches(InputFile(piece.path, piece.format, piece.size), schema)
    offset = 0
    for batch in batches:
        data, kinds = split_row_kinds(batch, row_kind_column)
        yield conform_table(data, schema), kinds, offset
        offset += batch.num_rows


def ingest_read_task(
    spec: TableSpec,
    pieces: list,
    row_kind_column: str | None,
    bucket_mode: str,
    target: pa.Schema,
    fault: str | None,
    batches,
):
    """Stage 1 of a shuffled ingest: input rows + bucket + input order (+ row kind)."""
    from paimon_core.write.bucket import assign_buckets

    table = spec.table()
    schema = table.schema
    n = schema.core_options.bucket
    for ids in batches:
        for pid in ids.column(0).to_pylist():
            piece = pieces[pid]
            for data, kinds, offset in read_piece(piece, schema, row_kind_column):
                m = data.num_rows
                if bucket_mode == "fixed":
                    buckets = assign_buckets(data, schema.bucket_keys, schema.types_of(schema.bucket_keys), n)
                else:
                    buckets = np.zeros(m, np.int32)
                order = (np.int64(piece.index) << np.int64(PIECE_SHIFT)) + np.arange(
                    offset, offset + m, dtype=np.int64
                )
                out = data.append_column(BUCKET, pa.array(buckets, pa.int32()))
                out = out.append_column(ORDER, pa.array(order, pa.int64()))
                if row_kind_column is not None:
                    out = out.append_column(KIND_COL, kinds if kinds is not None else pa.nulls(m, pa.int8()))
                yield from to_spark_arrow(out, target).to_batches()
            _fault(fault, "read")


def _new_writer(table: FileStoreTable, max_seq: dict, offset: int = 0):
    """The core writer; a bucket's sequence numbers start at its restored maximum + 1 + offset."""
    codec = table.partition_codec

    def restore(partition: tuple, bucket: int) -> int:
        return max_seq.get((codec.to_bytes(partition), bucket), -1) + offset

    if table.is_primary_key_table:
        from paimon_core.write.kv_writer import KeyValueWriter

        return KeyValueWriter(table, restore)
    from paimon_core.write.append_writer import AppendWriter

    return AppendWriter(table, restore)


def ingest_write_task(spec: TableSpec, max_seq: dict, fault: str | None, batches):
    """Stage 2: the rows of whole (partition, bucket) groups, in input order -> CommitMessages."""
    from paimon_core.write.conform import conform_table

    table = spec.table()
    writer = _new_writer(table, max_seq)
    try:
        for rb in batches:
            t = pa.Table.from_batches([rb])
            kinds = t.column(KIND_COL) if KIND_COL in t.column_names else None
            t = t.drop_columns([c for c in (BUCKET, ORDER, KIND_COL) if c in t.column_names])
            for f in table.schema.arrow_schema():
                if carried_as_nanos(f.type) and pa.types.is_integer(t.schema.field(f.name).type):
                    t = t.set_column(t.column_names.index(f.name), f.name, t.column(f.name).cast(f.type))
            writer.write(
                conform_table(t, table.schema), kinds.combine_chunks() if kinds is not None else None
            )
        _fault(fault, "write")
        messages = writer.prepare_commit()
        _fault(fault, "commit")
    except BaseException:
        writer.abort()
        raise
    yield _messages_batch(messages)


def ingest_direct_task(
    spec: TableSpec, pieces: list, max_seq: dict, row_kind_column: str | None, fault: str | None, batches
):
    """The no-shuffle ingest: each task reads its pieces and runs the core writer over each one
    (the writer assigns buckets and splits by partition and bucket), writing level-0 files for
    every bucket the piece touches. With a known global row offset a piece's sequence numbers in
    a bucket start at (the bucket's restored maximum) + 1 + offset: the writer's per-bucket
    counter advances only by the rows it writes to that bucket (at most the piece's row count),
    so the ranges of different pieces never collide and follow input order. Several pieces
    writing one bucket just make several sorted runs, which readers and compaction merge."""
    table = spec.table()
    writers, messages = [], []
    try:
        for ids in batches:
            for pid in ids.column(0).to_pylist():
                piece = pieces[pid]
                writer = _new_writer(table, max_seq, piece.offset or 0)
                writers.append(writer)
                for data, kinds, _ in read_piece(piece, table.schema, row_kind_column):
                    writer.write(data, kinds)
                _fault(fault, "read")
        _fault(fault, "write")
        for writer in writers:
            messages.extend(writer.prepare_commit())
        _fault(fault, "commit")
    except BaseException:
        for writer in writers:
            writer.abort()
        table.discard(messages)
        raise
    yield _messages_batch(messages)


# ---- compaction and reads: one split per task


def compact_task(spec: TableSpec, splits: list, full: bool, fault: str | None, batches):
    """Compact the task's splits with the core's planner and rewriters; messages out."""
    from paimon_core.compaction.bucket_compaction import compact_messages

    table = spec.table()
    out = []
    try:
        for ids in batches:
            for sid in ids.column(0).to_pylist():
                out.extend(compact_messages(table, [splits[sid]], full))
                _fault(fault, "compact")
    except BaseException:
        table.discard(out)
        raise
    yield _messages_batch(out)


def rewrite_task(spec: TableSpec, snapshot, groups: list, transform, fault: str | None, batches):
    """Rewrite the task's partitions (each a list of splits) with ``write_partitions``."""
    from paimon_core.compaction.partition_rewrite import write_partitions

    table = spec.table()
    out = []
    try:
        for ids in batches:
            for gid in ids.column(0).to_pylist():
                splits = groups[gid]
                out.extend(
                    write_partitions(table, table, snapshot, {splits[0].partition: splits}, transform)[0]
                )
                _fault(fault, "rewrite")
    except BaseException:
        table.discard(out)
        raise
    yield _messages_batch(out)


def read_task(spec: TableSpec, splits: list, columns, predicate, target: pa.Schema, batches):
    table = spec.table()
    reader = table.new_read(columns, predicate)
    for ids in batches:
        for sid in ids.column(0).to_pylist():
            t = reader.read_split(splits[sid])
            if t.num_rows:
                yield from to_spark_arrow(t, target).to_batches()
