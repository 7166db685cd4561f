"""Rescale: rewrite partitions of a bucketed table into another number of buckets, in one commit.

As Java's ``rescale`` procedure: the partitions' rows at the latest snapshot (merged, deletion
vectors applied) are written again with ``bucket`` buckets and replace what the partitions held
(one OVERWRITE snapshot). The table's ``bucket`` option is not changed: a partition keeps the
bucket count of its files (``_TOTAL_BUCKETS``), and a later write whose count differs is refused
at commit (``FileStoreCommit``), so a key is never hashed over two counts in one partition.

Invariants: the commit lands only if no APPEND or OVERWRITE followed the snapshot read (it would
be replaced unseen: ``CommitOptions.read_base``); every row of the partitions is read, so a
partition holding rows that reads do not show yet (in ``bucket-postpone``, or level-0 files of a
deletion-vector or first-row table) is refused: compact it first. The rows read are merged (one
per key), so for a table whose batch reads skip level 0 (deletion vectors, first-row) each new
bucket is written as one sorted run on the top level: the OVERWRITE is the only snapshot, and no
moment exists where the partitions read empty. (Java's rescale writes level 0 and its writer's
forced compaction adds a COMPACT snapshot after the OVERWRITE; a kill between the two leaves the
rows unread until a compaction.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.compaction.partition_rewrite import rewrite_partitions
from paimon_core.errors import InvalidInput
from paimon_core.maintain.after_commit import after_commit
from paimon_core.merge.levels import max_level
from paimon_core.metadata.deletion_vectors import dv_enabled
from paimon_core.metadata.live_files import expiry_checked, live_entries
from paimon_core.options.bucket_mode import POSTPONE_BUCKET, BucketMode
from paimon_core.read.count import metadata_count
from paimon_core.read.partition_spec import parse_partition_spec, partition_matcher
from paimon_core.read.scan import plan
from paimon_core.read.table_read import TableRead
from paimon_core.write.postpone import with_buckets

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class RescaleResult:
    partitions: int  # partitions rewritten (or, dry run, that would be)
    rows: int
    buckets_before: dict  # partition display -> its bucket count before
    bucket: int
    snapshot: Snapshot | None = None


def rescale(
    table: TableContext, bucket: int | None, partitions: list[dict | str] | None = None, dry_run: bool = False
) -> RescaleResult:
    """Rewrite the partitions ``partitions`` match (each 'k=v,...' or {key: value}, a prefix of
    the partition keys naming several; None: all) with
    ``bucket`` buckets (None: the table's ``bucket`` option)."""
    mode = table.schema.bucket_mode
    if mode not in (BucketMode.HASH_FIXED, BucketMode.POSTPONE):
        raise InvalidInput(
            f"table {table.identifier} has bucket {table.schema.core_options.bucket}: only tables "
            "with a fixed bucket number (or postpone buckets, -2) have a bucket count to rescale"
        )
    if bucket is None:
        if mode is BucketMode.POSTPONE:
            raise InvalidInput("rescaling a postpone-bucket table needs the resulting bucket number")
        bucket = table.schema.core_options.bucket
    if bucket <= 0:
        raise InvalidInput(f"bucket number must be positive, not {bucket}")
    snap = table.snapshots.latest()
    if snap is None:
        raise InvalidInput(f"table {table.identifier} has no snapshot: nothing to rescale")
    match = _matcher(table, partitions)
    codec = table.partition_codec
    before: dict[tuple, int] = {}
    waiting: set[tuple] = set()
    hidden: set[tuple] = set()  # level-0 files that batch reads of this table do not see
    compacted_only = table.is_primary_key_table and (
        table.schema.core_options.merge_engine.reads_compacted_only or dv_enabled(table)
    )
    for e in live_entries(table.manifests, snap):
        p = codec.from_bytes(e.partition)
        if not match(p):
            continue
        if e.bucket == POSTPONE_BUCKET:
            waiting.add(p)
            continue
        before[p] = e.total_buckets
        if compacted_only and e.file.level == 0:
            hidden.add(p)
    for held, what in ((waiting, "rows waiting in bucket-postpone"), (hidden, "uncompacted level-0 files")):
        if held:
            where = codec.display(codec.spec(sorted(held, key=str)[0])) if codec.keys else "(table)"
            raise InvalidInput(
                f"partition {where} of {table.identifier} has {what}, which reads do not show yet: "
                "compact it before rescaling"
            )
    shown = {codec.display(codec.spec(p)) if codec.keys else "(table)": n for p, n in before.items()}
    splits: dict[tuple, list] = {}
    for sp in plan(table, snap):
        if sp.partition in before:
            splits.setdefault(sp.partition, []).append(sp)
    if dry_run or not before:
        return RescaleResult(len(before), _count(table, snap, splits), shown, bucket)
    target = with_buckets(table, bucket)
    level = max_level(table) if compacted_only else 0  # level-0 rows are invisible to these reads
    done = rewrite_partitions(table, snap, splits, target=target, output_level=level)
    after_commit(table)
    return RescaleResult(len(before), done.rows, shown, bucket, done.snapshot)


def _count(table: TableContext, snap: Snapshot, splits: dict[tuple, list]) -> int:
    """The rows a rescale would rewrite: from the files' metadata where that is exact
    (``read/count.py``), else by reading them."""
    every = [s for ss in splits.values() for s in ss]
    counted = metadata_count(table, every)
    if counted is not None:
        return counted
    reader = TableRead(table)
    with expiry_checked(table, snap):
        return sum(reader.to_arrow(ss).num_rows for ss in splits.values())


def _matcher(table: TableContext, partitions: list[dict | str] | None) -> Callable[[tuple], bool]:
    if not partitions:
        return lambda p: True
    if not table.schema.partition_keys:
        raise InvalidInput(f"table {table.identifier} is not partitioned: rescale it whole")
    tests = [partition_matcher(table, parse_partition_spec(table, spec) or {}) for spec in partitions]
    return lambda p: any(t(p) for t in tests)
