"""The state at A against the state at B, key by key, one group of buckets at a time.

A key (for an append table: a whole row) lives in one bucket of one partition, the same at A and
at B, so the changes of the table are the changes of each (partition, bucket) read on both sides
alone; peak memory is that of the largest bucket, not of the table. Where a key can move, the
group is wider: a partition whose bucket count differs between A and B (a rescale), every bucket
of a partition of a postpone-bucket table (buckets assigned at compaction), the whole table when
a key can change partitions (cross-partition update).

Invariant: the changes are those of ``changes(state_at_A, state_at_B)`` over the whole table, row
for row; they come group by group (a group whose files and deletion vectors are the same at A
and at B has no changes and is not read) (partition, then bucket order), each group sorted as
``changes`` sorts (by key, -U before its +U; an append table's removed rows before its added).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.data.no_rows import no_rows
from paimon_core.data.system_columns import KIND
from paimon_core.merge.changelog import changes
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.read.scan import DataSplit, plan
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


def _splits(table: TableContext, point) -> list[DataSplit]:
    """The splits of the state at a snapshot id (0 = the empty table) or a Snapshot object."""
    if point == 0:
        return []
    snap = point if isinstance(point, Snapshot) else table.snapshots.snapshot(point)
    return plan(table, snap)


def groups(table: TableContext, old: list[DataSplit], new: list[DataSplit]) -> list[tuple[list, list]]:
    """(old splits, new splits) of each group whose keys stay inside it, in a stable order."""
    mode = table.schema.bucket_mode
    if mode is BucketMode.KEY_DYNAMIC:
        return [(old, new)]
    counts: dict[bytes, set] = {}
    for side, splits in ((0, old), (1, new)):
        for s in splits:
            counts.setdefault(s.partition_bytes, set()).add((side, s.total_buckets))
    rescaled = {p for p, seen in counts.items() if len({n for _, n in seen}) > 1}

    def key(s: DataSplit) -> tuple:
        whole = mode is BucketMode.POSTPONE or s.partition_bytes in rescaled
        return (s.partition_bytes, -1 if whole else s.bucket)

    grouped: dict[tuple, tuple[list, list]] = {}
    for side, splits in ((0, old), (1, new)):
        for s in splits:
            grouped.setdefault(key(s), ([], []))[side].append(s)
    return [grouped[k] for k in sorted(grouped)]


def _contents(splits: list[DataSplit]) -> list[tuple]:
    """What decides a group's rows: each split's bucket, file names, deletion vectors and schema
    branch (a data file never changes once written)."""
    return sorted(
        (
            (s.bucket, tuple(sorted(f.file_name for f in s.files)), s.deletion_files, s.schema_branch)
            for s in splits
        ),
        key=lambda c: (c[0], c[1]),
    )


def state_changes(table: TableContext, start, end, columns: list[str]) -> Iterator[pa.Table]:
    """The changes from the state at ``start`` to the state at ``end`` (snapshot ids, 0 = empty,
    or Snapshot objects), a group of buckets at a time: each table has the columns ``columns``
    plus ``_VALUE_KIND`` (the table's columns are all compared, selected or not)."""
    keys = list(table.schema.primary_keys)
    whole = table.schema.field_names
    reader = TableRead(table, whole)
    empty = no_rows(table.schema.arrow_schema()).select(whole)
    for old_splits, new_splits in groups(table, _splits(table, start), _splits(table, end)):
        if _contents(old_splits) == _contents(new_splits):
            continue  # the same files and deletion vectors hold the same rows
        old = reader.to_arrow(old_splits) if old_splits else empty
        new = reader.to_arrow(new_splits) if new_splits else empty
        log = changes(old, new, keys, drop_unchanged=True)
        del old, new
        if log.num_rows:
            yield log.select([*columns, KIND])
