"""Full compaction (``compact --level-max``): every bucket rewritten into one sorted run.

Primary-key tables: all files of a bucket are merged with the merge engine into the top level
(``num-levels - 1``); retractions are dropped there, since nothing older remains for them to
delete. Append tables: the files of a bucket are rewritten into files of the target size.
The result commits as a COMPACT snapshot (DELETE of the inputs, ADD of the outputs); if another
commit removed an input first, the commit is a conflict and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
from paimon_core.commit import CommitMessage
from paimon_core.manifest import FILE_SOURCE_COMPACT
from paimon_core.merge_function import KIND, SEQ, MergeEngine, is_retract
from paimon_core.read import TableRead
from paimon_core.scan import DataSplit


@dataclass(frozen=True)
class CompactResult:
    snapshot: object
    buckets: int
    files_before: int
    files_after: int


def max_level(table) -> int:
    opts = table.schema.core_options
    levels = opts.get("num-levels")
    if levels is None:
        levels = opts.get("num-sorted-run.compaction-trigger") + 1
    return levels - 1


def _needs_rewrite(split: DataSplit, top: int, is_pk: bool, target: int) -> bool:
    if is_pk:
        return not (len(split.files) == 1 and split.files[0].level == top
                    and (split.files[0].delete_row_count == 0))
    small = [f for f in split.files if f.file_size < target * 0.7]
    return len(small) > 1


def compact_split_pk(table, split: DataSplit, top: int) -> CommitMessage:
    from paimon_core.pk_writer import KeyValueFileWriter

    reader = TableRead(table)
    parts = [reader._read_file(split, f, True) for f in split.files]
    data = pa.concat_tables(parts)
    merged = MergeEngine(table.schema.options, table.schema.trimmed_primary_keys, table.schema.field_names).merge(data)
    merged = merged.filter(pc.invert(is_retract(merged.column(KIND))))
    writer = KeyValueFileWriter(table, split.partition, split.bucket)
    try:
        after = writer.write_run(merged, level=top, file_source=FILE_SOURCE_COMPACT) if merged.num_rows else []
    except BaseException:
        writer.abort()
        raise
    return CommitMessage(split.partition, split.bucket, split.total_buckets,
                         compact_before=split.files, compact_after=tuple(after))


def compact_split_append(table, split: DataSplit) -> CommitMessage:
    from paimon_core.append_writer import RollingFileWriter

    reader = TableRead(table)
    files = sorted(split.files, key=lambda f: f.min_sequence_number)
    first_seq = files[0].min_sequence_number
    writer = RollingFileWriter(table, split.partition, split.bucket, first_seq)
    try:
        for f in files:
            writer.write(reader._read_file(split, f, False))
        after = writer.close()
    except BaseException:
        writer.abort()
        raise
    after = [a.__class__(**{**a.__dict__, "file_source": FILE_SOURCE_COMPACT}) for a in after]
    return CommitMessage(split.partition, split.bucket, split.total_buckets,
                         compact_before=tuple(files), compact_after=tuple(after))


def full_compact(table, partition_filter=None, progress=None) -> CompactResult:
    """Compact every bucket (of the partitions ``partition_filter(values)`` accepts)."""
    snap = table.snapshots.latest()
    if snap is None:
        return CompactResult(None, 0, 0, 0)
    top = max_level(table)
    is_pk = table.is_primary_key_table
    target = table.schema.core_options.target_file_size
    messages = []
    splits = [s for s in table.plan(snap) if partition_filter is None or partition_filter(s.partition)]
    try:
        for s in splits:
            if _needs_rewrite(s, top, is_pk, target):
                messages.append(compact_split_pk(table, s, top) if is_pk else compact_split_append(table, s))
            if progress:
                progress(1)
        result = table.commit(messages, kind="COMPACT") if messages else None
    except BaseException:
        table.discard(messages)
        raise
    return CompactResult(result, len(messages), sum(len(m.compact_before) for m in messages),
                         sum(len(m.compact_after) for m in messages))


__all__ = ["CompactResult", "full_compact", "max_level", "SEQ"]
