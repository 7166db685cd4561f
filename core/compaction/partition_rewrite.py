"""Rewriting whole partitions from what a snapshot holds (sort compaction, rescale).

Invariant: the new files replace the partitions' files in one OVERWRITE commit that lands only
if no APPEND or OVERWRITE followed ``snapshot`` (``CommitOptions.read_base``): rows committed
meanwhile are never replaced unseen. One partition is in memory at a time; a failure before the
commit leaves no new file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.commit import CommitOptions, FileStoreCommit
from paimon_core.metadata.live_files import expiry_checked
from paimon_core.read.table_read import TableRead
from paimon_core.write.table_write import new_writer

if TYPE_CHECKING:
    import pyarrow as pa
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.read.scan import DataSplit


@dataclass(frozen=True)
class Rewrite:
    rows: int
    files: int  # data files written
    snapshot: Snapshot | None


def rewrite_partitions(
    table: TableContext,
    target: TableContext,
    snapshot: Snapshot,
    splits: dict[tuple, list[DataSplit]],
    transform: Callable[[pa.Table], pa.Table] = lambda t: t,
    output_level: int = 0,
) -> Rewrite:
    """Read each partition's ``splits`` of ``snapshot`` through ``table``, write
    ``transform(rows)`` through ``target`` (the same table, maybe seen with other options), and
    commit the new files in place of the partitions' files. ``output_level`` (primary-key
    tables): the LSM level of the new files; each partition is written in one piece, so each of
    its buckets gets one sorted run (the rows read are merged: one per key)."""
    reader = TableRead(table)
    writer = new_writer(target)
    if output_level:
        from paimon_core.write.kv_writer import KeyValueWriter

        if not isinstance(writer, KeyValueWriter):
            raise TypeError(f"{target.identifier}: only primary-key tables' files have levels")
        writer.output_level = output_level
    rows = 0
    try:
        with expiry_checked(table, snapshot):
            for p in sorted(splits, key=str):
                data = reader.to_arrow(splits[p])
                rows += data.num_rows
                if data.num_rows:
                    writer.write(transform(data))
        messages = writer.prepare_commit()
    except BaseException:
        writer.abort()
        raise
    keys = set(splits)
    options = CommitOptions(overwrite=True, overwrite_filter=keys.__contains__, read_base=snapshot.id)
    result = FileStoreCommit(target, options).commit(messages)
    return Rewrite(rows, sum(len(m.new_files) for m in messages), result)
