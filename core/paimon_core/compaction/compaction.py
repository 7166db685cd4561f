"""Compaction of a table, committed: Paimon's universal (minor) compaction, full compaction into the
top level, and the compaction writers run after each write. The per-bucket work lives in
``mergetree.bucket_compaction`` (and ``postpone_compaction`` for bucket = -2 tables); this module
plans which buckets, hands them to an engine and commits the result as one COMPACT snapshot
(DELETE of the inputs, ADD of the outputs). If another commit removed an input first, that is a
conflict and nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Protocol

from paimon_core.commit.file_store_commit import FileStoreCommit
from paimon_core.compaction.bucket_compaction import CompactResult, compact_messages
from paimon_core.errors import CorruptMetadata
from paimon_core.merge.levels import forces_level0_compaction, max_level
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.live_files import check_not_expired
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.options.registry import COMPACTION_MIN_FILE_NUM, FULL_COMPACTION_DELTA_COMMITS, WRITE_ONLY
from paimon_core.read.partition_spec import parse_partition_spec, partition_matcher
from paimon_core.read.scan import plan

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

PartitionFilter = Callable[[tuple], bool]  # partition values -> compact this partition?


class CompactionEngine(Protocol):
    """What ``compact`` needs of an engine (``engines.base.Engine`` is one, a layer above): the
    compaction of each split as commit messages, not committed."""

    def compact(
        self,
        table: TableContext,
        splits: list,
        full: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> list: ...


__all__ = [
    "CompactResult",
    "auto_compact",
    "compact",
    "compact_messages",
    "forces_level0_compaction",
    "full_compact",
    "max_level",
]


def compact(
    table: TableContext,
    full: bool = False,
    partition_filter: PartitionFilter | None = None,
    progress: Callable[[int], None] | None = None,
    buckets: Collection[tuple[tuple, int]] | None = None,
    engine: CompactionEngine | None = None,
    partition: dict | str | None = None,
) -> CompactResult:
    """Compact the buckets (of the partitions ``partition_filter(values)`` accepts, or the one
    ``partition`` names ('dt=2024-01-01' or a dict), and of the (partition, bucket) pairs in
    ``buckets`` if given) and commit once. ``engine`` (local by default) computes the new
    files; the commit happens here, then the commit's housekeeping (``maintain/after_commit.py``),
    as after a Java compaction job's commit."""
    from paimon_core.maintain.after_commit import after_commit

    result = _compact(table, full, partition_filter, progress, buckets, engine, partition)
    after_commit(table)
    return result


def _compact(
    table: TableContext,
    full: bool = False,
    partition_filter: PartitionFilter | None = None,
    progress: Callable[[int], None] | None = None,
    buckets: Collection[tuple[tuple, int]] | None = None,
    engine: CompactionEngine | None = None,
    partition: dict | str | None = None,
) -> CompactResult:
    """:func:`compact` without the housekeeping (a writer's own compaction: its caller runs it)."""
    from paimon_core.metadata.features import check_writable

    spec = parse_partition_spec(table, partition)
    if spec is not None:
        partition_filter = partition_matcher(table, spec)

    check_writable(table.schema, compaction=True)
    if table.schema.bucket_mode is BucketMode.POSTPONE:
        from paimon_core.compaction.postpone_compaction import compact_postpone

        return compact_postpone(table, full, partition_filter, progress)
    snap = table.snapshots.latest()
    if snap is None:
        return CompactResult(None, 0, 0, 0)
    planned = plan(table, snap, all_levels=True)
    splits = [
        s
        for s in planned
        if (partition_filter is None or partition_filter(s.partition))
        and (buckets is None or (s.partition, s.bucket) in buckets)
    ]
    if (
        spec is not None
        and partition_filter is not None
        and not any(partition_filter(s.partition) for s in planned)
    ):
        from paimon_core.errors import NotFound

        raise NotFound(
            f"table {table.identifier} has no partition {table.partition_codec.display(spec)} "
            "(paimon partition list shows its partitions)"
        )
    try:
        messages = (
            engine.compact(table, splits, full, progress)
            if engine is not None
            else compact_messages(table, splits, full, progress)
        )
    except CorruptMetadata as e:  # an input file went missing: if expiry removed `snap`, a lost race
        check_not_expired(table.manifests, snap, e)
        raise
    result = FileStoreCommit(table).commit(messages, kind="COMPACT") if messages else None
    return CompactResult(
        result,
        len(messages),
        sum(len(m.compact_before) for m in messages),
        sum(len(m.compact_after) for m in messages),
    )


def full_compact(
    table: TableContext,
    partition_filter: PartitionFilter | None = None,
    progress: Callable[[int], None] | None = None,
    engine: CompactionEngine | None = None,
) -> CompactResult:
    return compact(table, full=True, partition_filter=partition_filter, progress=progress, engine=engine)


def _commits_since_full_compaction(table: TableContext, limit: int) -> int:
    """Write commits (not COMPACT) after the latest full compaction of a full-compaction
    changelog table, counted back from the latest snapshot up to ``limit``. A full compaction
    is a COMPACT snapshot with a changelog (the table's other compactions write none); one
    that changed nothing leaves no mark, so the count then runs on past it."""
    sm = table.snapshots
    sid, earliest = sm.latest_id(), sm.earliest_id()
    n = 0
    while sid is not None and earliest is not None and sid >= earliest and n < limit:
        snap = sm.snapshot(sid)
        if snap.commit_kind != "COMPACT":
            n += 1
        elif snap.changelog_manifest_list is not None:
            break
        sid -= 1
    return n


def auto_compact(table: TableContext, messages: list[CommitMessage]) -> CompactResult | None:
    """After a write: compact the written buckets the way Paimon's writers do, unless write-only.
    With ``changelog-producer = full-compaction`` a full compaction runs every
    ``full-compaction.delta-commits`` write commits (default: every commit), counted from the
    last full compaction as Java's Flink sink counts checkpoints (COMPACT snapshots in between
    do not count)."""
    opts = table.schema.core_options
    if opts.get(WRITE_ONLY) or not messages or table.schema.bucket_mode is BucketMode.POSTPONE:
        return None  # postpone tables: batch writes are write-only, as Java's (PostponeUtils)
    touched = {(m.partition, m.bucket) for m in messages}
    if opts.changelog_producer == "full-compaction":
        every = opts.get(FULL_COMPACTION_DELTA_COMMITS) or 1
        if every <= 1 or _commits_since_full_compaction(table, every) >= every:
            return _compact(table, full=True, buckets=touched)
    if table.is_primary_key_table:
        return _compact(table, full=False, buckets=touched)
    if (
        table.schema.bucket_mode is BucketMode.HASH_FIXED
    ):  # Java's fixed-bucket append writers compact as they write
        return _compact(table, full=False, buckets=touched)
    return _compact(table, full=False, buckets=touched) if opts.is_set(COMPACTION_MIN_FILE_NUM) else None
