"""Compaction of primary-key buckets with deletion vectors (Paimon's lookup compaction).

Readers of these tables skip level 0 and read the files above it unmerged, minus their deleted
rows, so the writer keeps this invariant: above level 0, each key has at most one live row.
A compaction into a level > 0 therefore looks up the keys it writes in the bucket's other
files above level 0 (all older than its inputs), merges their live rows in (so partial-update
and aggregation see the previous value) and marks them deleted. Retractions are dropped at any
non-zero output level, as Java does with deletion vectors. The bucket's index then changes in
the same commit: vectors of rewritten files go, new positions are added, and the bucket's old
index files are replaced by one new file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.system_columns import KIND, ROW_POS
from paimon_core.merge.changelog import rows_with_keys
from paimon_core.merge.merge_engines import MergeEngine, is_retract
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.deletion_vectors import DeletionVectorReader, write_bucket_index
from paimon_core.metadata.manifest import FILE_SOURCE_COMPACT
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.read.scan import DataSplit
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.table_context import TableContext


def bucket_vectors(table: TableContext, split: DataSplit) -> dict[str, np.ndarray]:
    """Deleted positions per data file of a split (files that have a vector)."""
    reader = DeletionVectorReader(table)
    return {name: reader.positions(df) for name, df in split.deletion_files}


def index_changes(
    table: TableContext, split: DataSplit, vectors: dict[str, np.ndarray], written: list
) -> tuple[tuple, tuple]:
    """The bucket's index replaced by one file holding ``vectors`` (of files still live)."""
    added, deleted, path = write_bucket_index(
        table, split.partition_bytes, split.bucket, vectors, list(split.dv_index)
    )
    if path:
        written.append(path)
    return added, deleted


def _needs_old_values(table: TableContext) -> bool:
    opts = table.schema.core_options
    return opts.merge_engine is not MergeEngineKind.DEDUPLICATE or bool(opts.sequence_fields)


def compact_pk_files_dv(
    table: TableContext, split: DataSplit, files: Sequence[DataFileMeta], output_level: int, drop_delete: bool
) -> CommitMessage:
    from paimon_core.write.kv_writer import KeyValueFileWriter

    keys = table.schema.trimmed_primary_keys
    chosen = {f.file_name for f in files}
    others = [f for f in split.files if f.file_name not in chosen and f.level > 0]
    reader = TableRead(table)
    data = pa.concat_tables([reader.read_file(split, f, True) for f in files])
    vectors = {k: v for k, v in bucket_vectors(table, split).items() if k not in chosen}
    changed = any(name in chosen for name, _ in split.deletion_files)
    if output_level > 0 and others and data.num_rows:
        key_reader = TableRead(table, keys)
        old_parts = []
        for f in others:
            hit = rows_with_keys(key_reader.read_file(split, f, False, with_position=True), data, keys)
            if not hit.num_rows:
                continue
            pos = hit.column(ROW_POS).to_numpy()
            vectors[f.file_name] = np.union1d(vectors.get(f.file_name, np.empty(0, np.int64)), pos)
            changed = True
            if _needs_old_values(table):
                full = reader.read_file(split, f, True, with_position=True)
                old_parts.append(
                    full.filter(pc.is_in(full.column(ROW_POS), pa.array(pos))).drop_columns([ROW_POS])
                )
        if old_parts:  # older rows first: the merge orders by sequence number anyway
            data = pa.concat_tables(old_parts + [data])
    engine = MergeEngine(table.schema.options, keys, table.schema.field_names)
    merged = engine.merge(data)
    if drop_delete:
        merged = merged.filter(pc.invert(is_retract(merged.column(KIND))))
    writer = KeyValueFileWriter(table, split.partition, split.bucket)
    written: list = []
    try:
        after = (
            writer.write_run(merged, level=output_level, file_source=FILE_SOURCE_COMPACT)
            if merged.num_rows
            else []
        )
        added, deleted = index_changes(table, split, vectors, written) if changed else ((), ())
    except BaseException:
        writer.abort()
        for p in written:
            table.io.delete(p)
        raise
    return CommitMessage(
        split.partition,
        split.bucket,
        split.total_buckets,
        compact_before=tuple(files),
        compact_after=tuple(after),
        new_index=added,
        deleted_index=deleted,
    )
