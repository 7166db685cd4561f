"""Writer for primary-key tables: the LSM write path.

Rows are assigned to buckets (hash of the bucket key, docs/format.md section 8), numbered with
sequence numbers continuing from the bucket's highest, and buffered. A flush (buffer full,
or commit) merges each bucket's buffered records by key with the table's merge engine and
writes them sorted as level-0 files in the KeyValue layout::

    _KEY_<k>..., _SEQUENCE_NUMBER, _VALUE_KIND, <all table columns>

Memory stays under ``write-buffer-size``: a bigger input becomes several level-0 sorted runs.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.binary_row import serialize_row
from paimon_core.data.system_columns import KEY_PREFIX, KIND, SEQ
from paimon_core.data.types import to_arrow_type
from paimon_core.data.values import internal_values
from paimon_core.errors import PaimonError
from paimon_core.fileformat import formats
from paimon_core.merge.merge_engines import MergeEngine, is_retract, sort_by_key_and_sequence
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.manifest import FILE_SOURCE_APPEND, DataFileMeta
from paimon_core.metadata.stats import StatsCollector
from paimon_core.options.bucket_mode import DYNAMIC_BUCKET
from paimon_core.options.registry import (
    CHANGELOG_FILE_PREFIX,
    DATA_FILE_PREFIX,
    DYNAMIC_BUCKET_TARGET_ROW_NUM,
    FILE_COMPRESSION_ZSTD_LEVEL,
    WRITE_BUFFER_SIZE,
)
from paimon_core.write.bucket import assign_buckets

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.write.dynamic_bucket import DynamicBucketAssigner

FLUSH_THREADS = min(4, os.cpu_count() or 1)


def kv_arrow_schema(schema: TableSchema) -> pa.Schema:
    fields = [
        pa.field(KEY_PREFIX + k, to_arrow_type(schema.field(k).type), nullable=False)
        for k in schema.trimmed_primary_keys
    ]
    fields += [pa.field(SEQ, pa.int64(), nullable=False), pa.field(KIND, pa.int8(), nullable=False)]
    return pa.schema(fields + list(schema.arrow_schema()))


def to_kv_layout(records: pa.Table, schema: TableSchema) -> pa.Table:
    """Records (table columns + SEQ + KIND) in the file layout."""
    cols = [records.column(k) for k in schema.trimmed_primary_keys]
    cols += [records.column(SEQ), records.column(KIND)]
    cols += [records.column(n) for n in schema.field_names]
    return pa.Table.from_arrays(cols, schema=kv_arrow_schema(schema))


class KeyValueFileWriter:
    """Writes one bucket's merged, sorted records as level-0 files rolled at the target size."""

    def __init__(self, table: TableContext, partition: tuple, bucket: int):
        self.table = table
        schema = table.schema
        self.dir = table.bucket_path(partition, bucket)
        opts = schema.core_options
        self.target = opts.target_file_size
        self.options = opts.raw
        self.level = opts.get(FILE_COMPRESSION_ZSTD_LEVEL)
        self.keys = schema.trimmed_primary_keys
        self.key_types = schema.types_of(self.keys)
        self.prefix = opts.get(DATA_FILE_PREFIX)
        self.changelog_prefix = opts.get(CHANGELOG_FILE_PREFIX)
        self.written: list[str] = []

    def write_run(
        self,
        records: pa.Table,
        level: int = 0,
        file_source: int = FILE_SOURCE_APPEND,
        changelog: bool = False,
        format_level: int | None = None,
    ) -> list[DataFileMeta]:
        """``records`` sorted by key (one per key for data files; changelog files may repeat keys).
        ``format_level``: the LSM level whose format/codec the files get, if not ``level`` (Java
        writes a compaction's changelog in its output level's format)."""
        fmt_level = level if format_level is None else format_level
        schema = self.table.schema
        files = []
        start, n = 0, records.num_rows
        rows_per_file = max(1, int(n * self.target / max(records.nbytes, 1) * 3))  # ~3x compression
        while start < n:
            chunk = records.slice(start, rows_per_file)
            start += chunk.num_rows
            prefix = self.changelog_prefix if changelog else self.prefix
            fmt = formats.file_format(self.options, fmt_level, changelog)
            name = f"{prefix}{uuid.uuid4()}-0{formats.file_extension(self.options, fmt)}"
            path = self.table.io.join(self.dir, name)
            self.written.append(path)
            writer = formats.open_writer(
                fmt,
                self.table.io,
                path,
                kv_arrow_schema(schema),
                formats.file_compression(self.options, fmt_level, changelog),
                self.level,
                {f.name: f.type for f in schema.fields},
                schema.fields,
            )
            writer.write(to_kv_layout(chunk, schema))
            size = writer.close()
            key_stats = StatsCollector(self.keys, self.key_types, "full")
            key_stats.update(chunk)
            value_stats = StatsCollector(
                schema.field_names,
                [f.type for f in schema.fields],
                schema.core_options.stats_mode,
                schema.core_options.fields_with("stats-mode"),
            )
            value_stats.update(chunk)
            first = [
                internal_values(chunk.column(k).slice(0, 1), t)[0] for k, t in zip(self.keys, self.key_types)
            ]
            last = [
                internal_values(chunk.column(k).slice(chunk.num_rows - 1, 1), t)[0]
                for k, t in zip(self.keys, self.key_types)
            ]
            seq = chunk.column(SEQ)
            mm = pc.min_max(seq)
            files.append(
                DataFileMeta(
                    file_name=name,
                    file_size=size,
                    row_count=chunk.num_rows,
                    min_key=serialize_row(first, self.key_types),
                    max_key=serialize_row(last, self.key_types),
                    key_stats=key_stats.to_simple_stats(),
                    value_stats=value_stats.to_simple_stats(),
                    min_sequence_number=mm["min"].as_py(),
                    max_sequence_number=mm["max"].as_py(),
                    schema_id=schema.id,
                    level=level,
                    creation_time=dt.datetime.now().replace(
                        microsecond=dt.datetime.now().microsecond // 1000 * 1000
                    ),
                    delete_row_count=pc.sum(is_retract(chunk.column(KIND))).as_py() or 0,
                    file_source=file_source,
                )
            )
        return files

    def abort(self) -> None:
        for p in self.written:
            self.table.io.delete(p)


class _BucketBuffer:
    __slots__ = ("parts", "nbytes", "next_seq", "files", "changelog", "writer")

    def __init__(self, next_seq: int, writer: KeyValueFileWriter):
        self.parts: list[pa.Table] = []
        self.nbytes = 0
        self.next_seq = next_seq
        self.files: list[DataFileMeta] = []
        self.changelog: list[DataFileMeta] = []
        self.writer = writer


class KeyValueWriter:
    """Buffers records per (partition, bucket); flushes merged sorted runs at level 0."""

    def __init__(self, table: TableContext, restore_max_seq: Callable[[tuple, int], int] | None = None):
        self.table = table
        schema = table.schema
        self.schema = schema
        from paimon_core.options.table_rules import check_dv_options

        check_dv_options(schema.options, True)
        opts = schema.core_options
        self.num_buckets = opts.bucket
        self.assigner = None
        self.cross = None
        if schema.cross_partition_update:
            from paimon_core.write.cross_partition import CrossPartitionAssigner

            self.cross = CrossPartitionAssigner(table)  # global key index; no hash index files
        elif self.num_buckets == DYNAMIC_BUCKET:
            from paimon_core.write.dynamic_bucket import DynamicBucketAssigner

            self.assigner = DynamicBucketAssigner(
                table, table.snapshots.latest(), opts.get(DYNAMIC_BUCKET_TARGET_ROW_NUM)
            )
            from paimon_core.data.partition import PartitionCodec

            self._codec: PartitionCodec = table.partition_codec
        elif self.num_buckets <= 0:
            raise PaimonError(f"table {table.identifier}: bucket = {self.num_buckets} is not supported")
        self.partition_keys = list(schema.partition_keys)
        self.partition_types = schema.types_of(self.partition_keys)
        self.bucket_keys = schema.bucket_keys
        self.bucket_types = schema.types_of(self.bucket_keys)
        self.buffer_limit = opts.get(WRITE_BUFFER_SIZE)
        self.merge = MergeEngine.for_schema(schema)
        self.restore_max_seq = restore_max_seq or (lambda p, b: -1)
        self.buffers: dict[tuple, _BucketBuffer] = {}
        self.buffered = 0
        # the LSM level flushes write to. Above 0 (a rewrite of merged rows, ops/rescale.py) each
        # bucket must get one flush: its files are then one sorted run, as a level above 0 must be
        self.output_level = 0

    @property
    def index_base(self) -> int | None:
        """Cross-partition upsert tables: the snapshot id (0: none) this writer's global key index
        was read from, to commit its messages with ``CommitOptions(index_base=...)``; else None."""
        return self.cross.base if self.cross is not None else None

    def write(self, batch: pa.Table, kinds: pa.Array | None = None) -> None:
        """``batch`` has the table's Arrow schema; ``kinds`` the row kind bytes (default +I)."""
        n = batch.num_rows
        if n == 0:
            return
        kind_bytes = pa.array(np.zeros(n, dtype=np.int8)) if kinds is None else kinds.cast(pa.int8())
        if kinds is not None:
            self.merge.check_input(kind_bytes)
        batch = batch.append_column(KIND, kind_bytes)
        if self.cross is not None:
            batch, buckets = self.cross.assign(batch)
        elif self.assigner is None:
            buckets = assign_buckets(batch, self.bucket_keys, self.bucket_types, self.num_buckets)
        else:
            buckets = self._dynamic_buckets(batch, self.assigner)
        batch = batch.append_column("__bucket", pa.array(buckets))
        from paimon_core.write.append_writer import split_by

        group_cols = self.partition_keys + ["__bucket"]
        for key, part in split_by(batch, group_cols):
            partition = tuple(internal_values(s, t)[0] for s, t in zip(key[:-1], self.partition_types))
            bucket = key[-1][0].as_py()
            buf = self._buffer(partition, bucket)
            m = part.num_rows
            seq = pa.array(np.arange(buf.next_seq, buf.next_seq + m, dtype=np.int64))
            buf.next_seq += m
            rec = part.drop_columns(["__bucket"]).append_column(SEQ, seq)
            buf.parts.append(rec)
            buf.nbytes += rec.nbytes
            self.buffered += rec.nbytes
        if self.buffered > self.buffer_limit:
            self.flush()

    def _dynamic_buckets(self, batch: pa.Table, assigner: DynamicBucketAssigner) -> np.ndarray:
        from paimon_core.write.append_writer import split_by
        from paimon_core.write.bucket import hash_columns

        hashes = hash_columns([batch.column(k).combine_chunks() for k in self.bucket_keys], self.bucket_types)
        if not self.partition_keys:
            return assigner.assign(self._codec.to_bytes(()), hashes)
        out = np.empty(batch.num_rows, np.int32)
        rows = batch.select(self.partition_keys).append_column("__pos", pa.array(np.arange(batch.num_rows)))
        for key, part in split_by(rows, self.partition_keys):
            partition = tuple(internal_values(s, t)[0] for s, t in zip(key, self.partition_types))
            idx = part.column("__pos").to_numpy()
            out[idx] = assigner.assign(self._codec.to_bytes(partition), hashes[idx])
        return out

    def _buffer(self, partition: tuple, bucket: int) -> _BucketBuffer:
        key = (partition, bucket)
        buf = self.buffers.get(key)
        if buf is None:
            buf = _BucketBuffer(
                self.restore_max_seq(partition, bucket) + 1, KeyValueFileWriter(self.table, partition, bucket)
            )
            self.buffers[key] = buf
        return buf

    def flush(self) -> None:
        """Merge and write every buffered bucket; buckets run on a few threads (sorting, merging
        and Parquet encoding release the GIL)."""
        work = [(key, buf) for key, buf in self.buffers.items() if buf.parts]
        if len(work) > 1 and FLUSH_THREADS > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(FLUSH_THREADS) as pool:
                for f in [pool.submit(self._flush_bucket, key, buf) for key, buf in work]:
                    f.result()
        else:
            for key, buf in work:
                self._flush_bucket(key, buf)
        self.buffered = 0

    def _flush_bucket(self, key: tuple, buf) -> None:
        partition, bucket = key
        producer = self.schema.core_options.changelog_producer
        data = pa.concat_tables(buf.parts)
        buf.parts, buf.nbytes = [], 0
        if self.output_level and buf.files:
            raise PaimonError(
                f"bucket {bucket} of partition {partition} flushed twice while writing level {self.output_level}: "
                "its files would be two runs on one level"
            )
        buf.files.extend(buf.writer.write_run(self.merge.merge(data), level=self.output_level))
        if producer == "input":
            raw = sort_by_key_and_sequence(data, self.schema.trimmed_primary_keys)
            buf.changelog.extend(buf.writer.write_run(raw, changelog=True))
        # lookup changelog is not written here: like Java's writers, the compaction that moves
        # these level-0 files up produces it (compaction/bucket_compaction.py), in the COMPACT snapshot

    def prepare_commit(self) -> list[CommitMessage]:
        self.flush()
        out = []
        for (partition, bucket), buf in self.buffers.items():
            if buf.files or buf.changelog:
                out.append(
                    CommitMessage(
                        partition,
                        bucket,
                        self.num_buckets,
                        new_files=tuple(buf.files),
                        changelog_files=tuple(buf.changelog),
                    )
                )
        self.buffers = {}
        if self.assigner is not None and out:
            added, deleted = self.assigner.index_changes()
            out[0] = replace(out[0], new_index=tuple(added), deleted_index=tuple(deleted))
        return out

    def abort(self) -> None:
        for buf in self.buffers.values():
            buf.writer.abort()
        self.buffers = {}
