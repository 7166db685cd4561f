"""Postpone-bucket tables (``bucket = -2``, Paimon 1.1+): where rows wait, how many buckets a
partition gets, and the writer.

Facts (Paimon's ``BucketMode.POSTPONE_BUCKET``, ``PostponeBucketFileStoreWrite``,
``PostponeUtils``, ``CoreOptions``):

* Waiting rows live in ``<partition>/bucket-postpone/``: manifest entries with ``_BUCKET`` and
  ``_TOTAL_BUCKETS`` -2, level 0, files named ``data--u-<commitUser>-s-<writeId>-w-<uuid>-<n>``,
  in Avro with no value stats, rows in arrival order with sequence numbers from 0 per writer
  (they are replayed file by file, never merged by sequence across writers).
* Batch reads see only real buckets (``onlyReadRealBuckets``); a compaction moves waiting rows
  into real buckets. The number of buckets differs per partition: the ``_TOTAL_BUCKETS`` of the
  partition's real-bucket files (which must agree), else ``ceil(rows /
  postpone.target-row-num-per-bucket)`` when that is set, else ``postpone.default-bucket-num``
  (default 1).
* ``postpone.batch-write-fixed-bucket`` (default true, Paimon 1.4+): batch writes go straight to
  real buckets with that count (as write-only writes, no compaction); false: to
  ``bucket-postpone``.
"""

from __future__ import annotations

import datetime as dt
import random
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.binary_row import serialize_row
from paimon_core.data.system_columns import KIND, SEQ
from paimon_core.data.values import internal_values
from paimon_core.errors import CorruptMetadata, UnsupportedFeature
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.manifest import FILE_SOURCE_APPEND, DataFileMeta, SimpleStats
from paimon_core.metadata.stats import StatsCollector
from paimon_core.options.bucket_mode import POSTPONE_BUCKET
from paimon_core.options.registry import (
    DATA_FILE_PREFIX,
    FILE_COMPRESSION,
    FILE_COMPRESSION_ZSTD_LEVEL,
    POSTPONE_BATCH_WRITE_FIXED_BUCKET,
    POSTPONE_DEFAULT_BUCKET_NUM,
    POSTPONE_TARGET_ROW_NUM_PER_BUCKET,
)
from paimon_core.write.sequence import sequence_restorer

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_core.metadata.manifest import ManifestEntry
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.write.kv_writer import KeyValueWriter


def check_supported(table: TableContext) -> None:
    """Changelog producers that look at bucket contents are not implemented for these tables."""
    producer = table.schema.core_options.changelog_producer
    if producer in ("lookup", "full-compaction"):
        raise UnsupportedFeature(
            f"changelog-producer = {producer} on a postpone-bucket table (bucket = -2) is not supported"
        )


def known_bucket_counts(entries: Iterable[ManifestEntry]) -> dict[bytes, int]:
    """Partition bytes -> ``_TOTAL_BUCKETS`` of its real-bucket files (they must agree)."""
    out: dict[bytes, int] = {}
    for e in entries:
        if e.bucket >= 0 and e.total_buckets > 0:
            old = out.setdefault(e.partition, e.total_buckets)
            if old != e.total_buckets:
                raise CorruptMetadata(f"a partition has files of {old} and of {e.total_buckets} buckets")
    return out


def pending_rows_by_partition(entries: Iterable[ManifestEntry]) -> dict[bytes, int]:
    out: dict[bytes, int] = {}
    for e in entries:
        if e.bucket == POSTPONE_BUCKET:
            out[e.partition] = out.get(e.partition, 0) + e.file.row_count
    return out


def new_partition_buckets(table: TableContext, pending_rows: int) -> int:
    """Buckets for a partition that has no real-bucket files yet."""
    opts = table.schema.core_options
    t = opts.get(POSTPONE_TARGET_ROW_NUM_PER_BUCKET)
    if t is not None:
        if t <= 0:
            raise UnsupportedFeature("postpone.target-row-num-per-bucket must be greater than 0")
        return max(1, -(-pending_rows // t))
    n = opts.get(POSTPONE_DEFAULT_BUCKET_NUM)
    if n <= 0:
        raise UnsupportedFeature("postpone.default-bucket-num must be greater than 0")
    return n


def with_buckets(table: TableContext, n: int) -> TableContext:
    """The table seen as a fixed-bucket table of ``n`` buckets (same files and snapshots)."""
    schema = replace(table.schema, options={**table.schema.options, "bucket": str(n)})
    return table.with_schema(schema)


def writer_prefix(file_name: str) -> str:
    """Files of one postpone writer share this prefix (``...-w-``) and replay in creation order."""
    i = file_name.rfind("-w-")
    return file_name[: i + 3] if i >= 0 else file_name


class PostponeWriter:
    """Writer of a postpone-bucket table: to real buckets (``postpone.batch-write-fixed-bucket``,
    the default) or to ``bucket-postpone``."""

    def __init__(self, table: TableContext):
        check_supported(table)
        self.table = table
        schema = table.schema
        self.schema = schema
        self.partition_keys = list(schema.partition_keys)
        self.partition_types = schema.types_of(self.partition_keys)
        self.fixed = schema.core_options.get(POSTPONE_BATCH_WRITE_FIXED_BUCKET)
        self._writers: dict[int, KeyValueWriter] = {}
        self._pending: dict[tuple, list[pa.Table]] = {}
        self._next_seq: dict[tuple, int] = {}
        self._counts: dict[bytes, int] | None = None
        self._restore = sequence_restorer(table)
        prefix = schema.core_options.get(DATA_FILE_PREFIX)
        self.prefix = f"{prefix}-u-{uuid.uuid4()}-s-{random.randrange(2**31 - 1)}-w-"
        self.written: list[str] = []

    # ---- fixed buckets
    def _bucket_count(self, partition: tuple) -> int:
        if self._counts is None:
            from paimon_core.metadata.live_files import live_entries

            self._counts = known_bucket_counts(
                live_entries(self.table.manifests, self.table.snapshots.latest())
            )
        pb = self.table.partition_codec.to_bytes(partition)
        if pb not in self._counts:
            self._counts[pb] = new_partition_buckets(self.table, 0)
        return self._counts[pb]

    def _fixed_writer(self, n: int) -> KeyValueWriter:
        if n not in self._writers:
            from paimon_core.write.kv_writer import KeyValueWriter

            self._writers[n] = KeyValueWriter(with_buckets(self.table, n), self._restore)
        return self._writers[n]

    def write(self, batch: pa.Table, kinds: pa.Array | None = None) -> None:
        n = batch.num_rows
        if n == 0:
            return
        kind_bytes = pa.array(np.zeros(n, dtype=np.int8)) if kinds is None else kinds.cast(pa.int8())
        if kinds is not None:
            from paimon_core.merge.merge_engines import MergeEngine

            MergeEngine.for_schema(self.table.schema).check_input(kind_bytes)
        batch = batch.append_column(KIND, kind_bytes)
        from paimon_core.write.append_writer import split_by

        for key, part in split_by(batch, self.partition_keys):
            partition = tuple(internal_values(s, t)[0] for s, t in zip(key, self.partition_types))
            if self.fixed:
                self._fixed_writer(self._bucket_count(partition)).write(
                    part.drop_columns([KIND]), part.column(KIND)
                )
            else:
                seq0 = self._next_seq.get(partition, 0)
                seq = pa.array(np.arange(seq0, seq0 + part.num_rows, dtype=np.int64))
                self._next_seq[partition] = seq0 + part.num_rows
                self._pending.setdefault(partition, []).append(part.append_column(SEQ, seq))

    # ---- bucket-postpone files
    def _write_pending(self, partition: tuple, records: pa.Table) -> DataFileMeta:
        from paimon_core.errors import InvalidInput
        from paimon_core.fileformat import avro as avro_format
        from paimon_core.fileformat.field_ids import with_field_ids
        from paimon_core.fileformat.formats import open_writer
        from paimon_core.fileformat.parquet import ParquetFileWriter
        from paimon_core.write.kv_writer import kv_arrow_schema, to_kv_layout

        schema = self.schema
        io = self.table.io
        d = self.table.bucket_path(partition, POSTPONE_BUCKET)
        try:
            avro_format.check_types(kv_arrow_schema(schema))
            avro = True
        except InvalidInput:
            avro = False
        name = f"{self.prefix}{uuid.uuid4()}-0.{'avro' if avro else 'parquet'}"
        path = io.join(d, name)
        self.written.append(path)
        if avro:  # as Java: Avro, no value stats
            w = open_writer("avro", io, path, kv_arrow_schema(schema), "zstd")
            w.write(to_kv_layout(records, schema))
            size = w.close()
            value_stats, stats_cols = SimpleStats(null_counts=()), ()
        else:  # a schema Avro cannot hold: the table's format, as Java falls back
            opts = schema.core_options
            w = ParquetFileWriter(
                io,
                path,
                with_field_ids(kv_arrow_schema(schema), schema.fields),
                opts.get(FILE_COMPRESSION),
                opts.get(FILE_COMPRESSION_ZSTD_LEVEL),
            )
            w.write(to_kv_layout(records, schema))
            size = w.close()
            vs = StatsCollector(
                schema.field_names,
                [f.type for f in schema.fields],
                opts.stats_mode,
                opts.fields_with("stats-mode"),
            )
            vs.update(records)
            value_stats, stats_cols = vs.to_simple_stats(), None
        keys = schema.trimmed_primary_keys
        key_types = schema.types_of(keys)
        ks = StatsCollector(keys, key_types, "full")
        ks.update(records)
        first = [internal_values(records.column(k).slice(0, 1), t)[0] for k, t in zip(keys, key_types)]
        last = [
            internal_values(records.column(k).slice(records.num_rows - 1, 1), t)[0]
            for k, t in zip(keys, key_types)
        ]
        seq = pc.min_max(records.column(SEQ))
        now = dt.datetime.now()
        from paimon_core.merge.merge_engines import is_retract

        return DataFileMeta(
            file_name=name,
            file_size=size,
            row_count=records.num_rows,
            min_key=serialize_row(first, key_types),
            max_key=serialize_row(last, key_types),
            key_stats=ks.to_simple_stats(),
            value_stats=value_stats,
            min_sequence_number=seq["min"].as_py(),
            max_sequence_number=seq["max"].as_py(),
            schema_id=schema.id,
            level=0,
            creation_time=now.replace(microsecond=now.microsecond // 1000 * 1000),
            delete_row_count=pc.sum(is_retract(records.column(KIND))).as_py() or 0,
            file_source=FILE_SOURCE_APPEND,
            value_stats_cols=stats_cols,
        )

    def prepare_commit(self) -> list[CommitMessage]:
        out = []
        for w in self._writers.values():
            out.extend(w.prepare_commit())
        self._writers = {}
        for partition, parts in self._pending.items():
            f = self._write_pending(partition, pa.concat_tables(parts))
            out.append(CommitMessage(partition, POSTPONE_BUCKET, POSTPONE_BUCKET, new_files=(f,)))
        self._pending = {}
        return out

    def abort(self) -> None:
        for w in self._writers.values():
            w.abort()
        self._writers = {}
        self._pending = {}
        for p in self.written:
            self.table.io.delete(p)
