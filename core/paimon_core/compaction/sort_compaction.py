"""Sort compaction of append tables (Java's sort compaction: ``order``, ``zorder``, ``hilbert``).

Each partition's rows at the latest snapshot are sorted (``sort_keys``) and written again as
new files, which replace the partition's files in one OVERWRITE snapshot, as Java's Spark and
Flink sort compactions commit them. Files written in that order hold narrow ranges of the sort
columns, so reads filtering on them skip files by their statistics.

Invariants: the rows are the same multiset before and after; the commit lands only if no APPEND
or OVERWRITE followed the snapshot read (``CommitOptions.read_base``); one partition is in memory
at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from paimon_core.compaction import sort_keys
from paimon_core.compaction.partition_rewrite import RewriteEngine, rewrite_partitions
from paimon_core.errors import InvalidInput
from paimon_core.maintain.after_commit import after_commit
from paimon_core.metadata.row_ids import data_evolution
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.read.partition_spec import parse_partition_spec, partition_matcher
from paimon_core.read.scan import plan

if TYPE_CHECKING:
    import pyarrow as pa

    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

STRATEGIES = {"order": sort_keys.column_order, "zorder": sort_keys.zorder, "hilbert": sort_keys.hilbert}


@dataclass(frozen=True)
class SortCompaction:
    partitions: int
    rows: int
    files_before: int
    files_after: int
    snapshot: Snapshot | None


def sorted_rows(strategy: str, columns: list[str], data: pa.Table) -> pa.Table:
    """``data`` in the ``strategy`` order of ``columns`` (a module function: engines pickle it)."""
    return data.take(STRATEGIES[strategy](data, columns))


def sort_compact(
    table: TableContext,
    strategy: str,
    columns: list[str],
    partition: dict | str | None = None,
    engine: RewriteEngine | None = None,
) -> SortCompaction:
    """Rewrite the partitions (all, or the one ``partition`` names) sorted by ``columns``,
    in this process or on ``engine`` (e.g. Spark: a task per partition, the same files)."""
    order = STRATEGIES.get(strategy)
    if order is None:
        raise InvalidInput(f"unknown sort strategy '{strategy}' (order, zorder or hilbert)")
    if table.is_primary_key_table or table.schema.bucket_mode is not BucketMode.BUCKET_UNAWARE:
        raise InvalidInput(
            f"sort compaction rewrites append tables without buckets (bucket = -1); {table.identifier} "
            "is not one (primary-key tables stay sorted by key)"
        )
    if data_evolution(table.schema):
        raise InvalidInput(
            f"{table.identifier} is a data-evolution table: its column files cannot be re-sorted"
        )
    if not columns:
        raise InvalidInput("sort compaction needs the columns to sort by")
    for c in columns:
        table.schema.field(c)  # raises for an unknown column
    snap = table.snapshots.latest()
    if snap is None:
        return SortCompaction(0, 0, 0, 0, None)
    spec = parse_partition_spec(table, partition)
    match = partition_matcher(table, spec) if spec else (lambda p: True)
    groups: dict[tuple, list] = {}
    for split in plan(table, snap):
        if match(split.partition):
            groups.setdefault(split.partition, []).append(split)
    files_before = sum(len(s.files) for ss in groups.values() for s in ss)
    if not groups:
        return SortCompaction(0, 0, 0, 0, None)
    done = rewrite_partitions(
        table, snap, groups, partial(sorted_rows, strategy, list(columns)), engine=engine
    )
    after_commit(table)
    return SortCompaction(len(groups), done.rows, files_before, done.files, done.snapshot)
