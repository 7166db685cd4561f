"""Compaction of a postpone-bucket table: waiting rows into real buckets, in one COMPACT snapshot.

As Java's postpone compaction (``PostponeBucketCompactSplitSource`` and
``PostponeBucketCompactOperator``): per partition, the ``bucket-postpone`` files are replayed
file by file (each writer's files in creation order, each file in sequence order) through a
fixed-bucket writer of the partition's bucket count, which gives the records new sequence
numbers after the bucket's highest and merges them with the merge engine; then every bucket
written is compacted as its writer would (universal strategy, or into the top level with
``full``). The snapshot deletes the postpone files and replaces the buckets' files; reads
before and after differ only by the rows that were waiting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.commit.file_store_commit import FileStoreCommit, discard_files
from paimon_core.data.system_columns import KIND, SEQ
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.live_files import check_not_expired, live_entries
from paimon_core.read.scan import DataSplit, plan
from paimon_core.write.postpone import (
    POSTPONE_BUCKET,
    check_supported,
    known_bucket_counts,
    new_partition_buckets,
    pending_rows_by_partition,
    with_buckets,
    writer_prefix,
)
from paimon_core.write.sequence import sequence_restorer

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from paimon_core.compaction.bucket_compaction import CompactResult
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.table_context import TableContext


def replay_order(files: Iterable[DataFileMeta]) -> list:
    """Each writer's files by creation time (then sequence); writers by their first file."""
    groups: dict[str, list] = {}
    for f in files:
        groups.setdefault(writer_prefix(f.file_name), []).append(f)

    def created(f):
        t = f.creation_time
        return t.timestamp() if hasattr(t, "timestamp") else (t or 0)

    ordered = [sorted(g, key=lambda f: (created(f), f.min_sequence_number)) for g in groups.values()]
    ordered.sort(key=lambda g: created(g[0]))
    return [f for g in ordered for f in g]


def _assign(view, partition: tuple, pbytes: bytes, n: int, files) -> list[CommitMessage]:
    """Replay the postpone ``files`` of one partition into ``n`` real buckets (level-0 files)."""
    from paimon_core.read.table_read import TableRead
    from paimon_core.write.kv_writer import KeyValueWriter

    split = DataSplit(partition, pbytes, POSTPONE_BUCKET, POSTPONE_BUCKET, tuple(files))
    reader = TableRead(view)
    writer = KeyValueWriter(view, sequence_restorer(view))
    try:
        for f in replay_order(files):
            data = reader.read_file(split, f, True)
            data = data.sort_by([(SEQ, "ascending")])
            writer.write(data.select(view.schema.field_names), data.column(KIND))
        return writer.prepare_commit()
    except BaseException:
        writer.abort()
        raise


def _compact_bucket(view, existing: DataSplit | None, message: CommitMessage, full: bool) -> CommitMessage:
    """One bucket after the replay: its live files plus the new level-0 files, compacted as a
    writer would; the new files a compaction consumed are deleted, never committed. Changelog
    files of the replay (``changelog-producer = input``) are committed with the result."""
    from paimon_core.compaction.bucket_compaction import compact_pk_files, plan_bucket

    new = list(message.new_files)
    old = list(existing.files) if existing is not None else []
    pbytes = view.partition_codec.to_bytes(message.partition)
    split = DataSplit(message.partition, pbytes, message.bucket, message.total_buckets, tuple(old + new))
    planned = plan_bucket(view, split, full)
    if planned is None:
        return CommitMessage(
            message.partition,
            message.bucket,
            message.total_buckets,
            compact_after=tuple(new),
            changelog_files=message.changelog_files,
        )
    files, level, drop = planned
    done = compact_pk_files(view, split, files, level, drop)
    consumed = {f.file_name for f in done.compact_before}
    d = view.bucket_path(message.partition, message.bucket)
    for f in new:
        if f.file_name in consumed:
            view.io.delete(view.io.join(d, f.file_name))
    return CommitMessage(
        message.partition,
        message.bucket,
        message.total_buckets,
        compact_before=tuple(f for f in done.compact_before if f.file_name not in {x.file_name for x in new}),
        compact_after=tuple(done.compact_after) + tuple(f for f in new if f.file_name not in consumed),
        changelog_files=message.changelog_files + done.changelog_files,
    )


def compact_postpone(
    table: TableContext,
    full: bool = False,
    partition_filter: Callable[[tuple], bool] | None = None,
    progress: Callable[[int], None] | None = None,
) -> CompactResult:
    """Move every waiting row of the table (of the partitions ``partition_filter`` accepts) into
    real buckets and compact the buckets written; one COMPACT snapshot. With ``full``, every
    other real bucket is fully compacted in the same snapshot."""
    from paimon_core.compaction.bucket_compaction import CompactResult, compact_messages

    check_supported(table)
    snap = table.snapshots.latest()
    if snap is None:
        return CompactResult(None, 0, 0, 0)
    codec = table.partition_codec
    messages: list[CommitMessage] = []
    try:
        entries = live_entries(table.manifests, snap)
        counts = known_bucket_counts(entries)
        waiting = pending_rows_by_partition(entries)
        pending: dict[bytes, list] = {}
        for e in entries:
            if e.bucket == POSTPONE_BUCKET:
                pending.setdefault(e.partition, []).append(e.file)
        splits = {(s.partition_bytes, s.bucket): s for s in plan(table, snap, all_levels=True)}
        touched = set()
        for pbytes, files in pending.items():
            partition = codec.from_bytes(pbytes)
            if partition_filter is not None and not partition_filter(partition):
                continue
            n = counts.get(pbytes) or new_partition_buckets(table, waiting.get(pbytes, 0))
            view = with_buckets(table, n)
            messages.append(
                CommitMessage(partition, POSTPONE_BUCKET, POSTPONE_BUCKET, compact_before=tuple(files))
            )
            for m in _assign(view, partition, pbytes, n, files):
                touched.add((pbytes, m.bucket))
                messages.append(_compact_bucket(view, splits.get((pbytes, m.bucket)), m, full))
            if progress:
                progress(1)
        if full:  # the other real buckets, as `compact --level-max` does for any table
            rest = [
                s
                for s in splits.values()
                if (s.partition_bytes, s.bucket) not in touched
                and (partition_filter is None or partition_filter(s.partition))
            ]
            for s in rest:
                messages.extend(compact_messages(with_buckets(table, s.total_buckets), [s], True))
    except CorruptMetadata as e:
        discard_files(table, messages)
        check_not_expired(table.manifests, snap, e)
        raise
    except BaseException:
        discard_files(table, messages)
        raise
    if not messages:
        return CompactResult(None, 0, 0, 0)
    result = FileStoreCommit(table).commit(messages, kind="COMPACT")
    return CompactResult(
        result,
        len({(m.partition, m.bucket) for m in messages}),
        sum(len(m.compact_before) for m in messages),
        sum(len(m.compact_after) for m in messages),
    )
