"""Rewriting whole partitions from what a snapshot holds (sort compaction, rescale).

Invariant: the new files replace the partitions' files in one OVERWRITE commit that lands only
if no APPEND or OVERWRITE followed ``snapshot`` (``CommitOptions.read_base``): rows committed
meanwhile are never replaced unseen. One partition is in memory at a time (per process: an
engine may rewrite several partitions at once, one per task); a failure before the commit
leaves no new file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
from paimon_core.metadata.live_files import expiry_checked
from paimon_core.read.table_read import TableRead
from paimon_core.write.table_write import new_writer

if TYPE_CHECKING:
    import pyarrow as pa

    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.read.scan import DataSplit

Transform = Callable[["pa.Table"], "pa.Table"]


def unchanged(data: pa.Table) -> pa.Table:
    return data


class RewriteEngine(Protocol):
    """What a rewrite needs of an engine (``engines.base.Engine`` is one, a layer above): the
    messages of ``write_partitions(table, table, snapshot, splits, transform)``, not committed,
    the same files' contents and order as that function's in this process."""

    def rewrite(
        self, table: TableContext, snapshot: Snapshot, splits: dict[tuple, list], transform: Transform
    ) -> list: ...


@dataclass(frozen=True)
class Rewrite:
    rows: int
    files: int  # data files written
    snapshot: Snapshot | None


def write_partitions(
    table: TableContext,
    target: TableContext,
    snapshot: Snapshot,
    splits: dict[tuple, list[DataSplit]],
    transform: Transform = unchanged,
    output_level: int = 0,
) -> tuple[list[CommitMessage], int]:
    """Read each partition's ``splits`` of ``snapshot`` through ``table`` and write
    ``transform(rows)`` through ``target`` (the same table, maybe seen with other options):
    the messages (not committed) and the rows read. ``output_level`` (primary-key tables): the
    LSM level of the new files; each partition is written in one piece, so each of its buckets
    gets one sorted run (the rows read are merged: one per key). On failure nothing is left."""
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
        return writer.prepare_commit(), rows
    except BaseException:
        writer.abort()
        raise


def rewrite_partitions(
    table: TableContext,
    snapshot: Snapshot,
    splits: dict[tuple, list[DataSplit]],
    transform: Transform = unchanged,
    *,
    target: TableContext | None = None,
    output_level: int = 0,
    engine: RewriteEngine | None = None,
) -> Rewrite:
    """``write_partitions`` through ``target`` (default ``table``), in this process or on
    ``engine`` (which writes through ``table`` at level 0; ``transform`` must then pickle), then
    commit the new files in place of the partitions' files."""
    target = table if target is None else target
    if engine is None:
        messages, rows = write_partitions(table, target, snapshot, splits, transform, output_level)
    else:
        if target is not table or output_level:
            raise TypeError("an engine rewrites a table through itself, at level 0")
        messages = engine.rewrite(table, snapshot, splits, transform)
        rows = sum(f.row_count for m in messages for f in m.new_files)  # append files: rows read
    keys = set(splits)
    options = CommitOptions(overwrite=True, overwrite_filter=keys.__contains__, read_base=snapshot.id)
    result = FileStoreCommit(target, options).commit(messages)
    return Rewrite(rows, sum(len(m.new_files) for m in messages), result)
