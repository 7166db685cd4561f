"""Guards of cross-partition upsert tables (write/cross_partition.py routes their records).

* A write that read its key index from snapshot S may commit only while no snapshot after S
  added or replaced data (``check_base``, called by the commit): another writer may have placed
  the same new key in another partition. The ingest then redoes its write on the new snapshot.
* Paths that do not route records through the key index refuse the table by name (``refuse``),
  and so does the commit of new data files that name no index snapshot: never a key in two
  partitions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import UnsupportedFeature
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import IGNORE_DELETE
from paimon_core.write.index_rebase import BucketAssignmentConflict

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


class CrossPartitionConflict(BucketAssignmentConflict):
    """Another writer changed the data of a cross-partition table after this write read its key
    index; nothing was committed, and the write must be redone on the new snapshot."""


def refuse(table: TableContext, what: str, instead: str = "a batch ingest routes keys through it") -> None:
    """Refuse ``what`` on a cross-partition upsert table (a path that does not keep the global
    key index and could leave a key in two partitions), or on a table whose key leaves out a
    partition key in a bucket mode other than fixed or dynamic; ``instead`` says what does."""
    schema = table.schema
    if schema.cross_partition_update or (
        schema.key_leaves_out_partition and schema.bucket_mode is not BucketMode.HASH_FIXED
    ):
        raise UnsupportedFeature(
            f"{what} is not supported on cross-partition upsert table {table.identifier} (primary key "
            f"{', '.join(table.schema.primary_keys)} without partition key(s) "
            f"{', '.join(p for p in table.schema.partition_keys if p not in table.schema.primary_keys)}): "
            f"it does not keep the global key index; {instead}"
        )


def check_writable(table: TableContext) -> None:
    """For a table whose key leaves out a partition key: fixed buckets are plain (a key unique
    within its partition, as Java 1.x writes them); otherwise refuse options under which the
    routing of write/cross_partition.py would still leave a key in two partitions."""
    opts = table.schema.core_options
    if table.schema.bucket_mode is BucketMode.HASH_FIXED:
        return
    if table.schema.bucket_mode is not BucketMode.KEY_DYNAMIC:
        refuse(table, f"writing with bucket = {opts.bucket}", "Java keeps such tables at bucket = -1 or N")
    if opts.sequence_fields:
        raise UnsupportedFeature(
            f"table {table.identifier}: sequence.field cannot be used on a cross-partition upsert table (as in "
            "Java 0.9); nothing was written"
        )
    if opts.merge_engine is MergeEngineKind.DEDUPLICATE and opts.get(IGNORE_DELETE):
        raise UnsupportedFeature(
            f"table {table.identifier}: a cross-partition upsert table with ignore-delete cannot move a key "
            "to another partition (the delete in the old partition would be ignored); nothing was written"
        )


def index_base(table: TableContext) -> int | None:
    """For a cross-partition table, the latest snapshot id (0: none), read before its writer
    reads the key index (so that snapshot or a later one); None for other tables."""
    if not table.schema.cross_partition_update:
        return None
    latest = table.snapshots.latest()
    return latest.id if latest is not None else 0


def check_base(table: TableContext, base: int, latest: Snapshot | None) -> None:
    """Raise ``CrossPartitionConflict`` when a snapshot after ``base`` (the snapshot a write's
    key index was read from; 0 for an empty table) added or replaced data."""
    if latest is None or latest.id <= base:
        return
    from paimon_core.errors import SnapshotNotFound

    for sid in range(base + 1, latest.id + 1):
        try:
            kind = (latest if sid == latest.id else table.snapshots.snapshot(sid)).commit_kind
        except SnapshotNotFound:
            kind = None  # expired meanwhile: what it did is unknown
        if kind != "COMPACT":
            raise CrossPartitionConflict(
                f"{table.identifier}: another writer changed the cross-partition table (snapshot {sid}) "
                "while this write routed keys; nothing was committed"
            )
