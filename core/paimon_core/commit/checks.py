"""Conflict checks of a commit attempt: on each attempt, against the latest snapshot it builds
on, before the attempt writes its manifests. Each raises CommitConflict ("nothing was
committed") when committing would lose or duplicate rows that another commit changed meanwhile;
``FileStoreCommit`` (``commit.py``) then removes what the attempt wrote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import CommitConflict
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.manifest_reader import EntryFilter
from paimon_core.metadata.row_id_conflicts import mixed_ranges, stale_row_update

if TYPE_CHECKING:
    from paimon_core.metadata.manifest import ManifestEntry
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


def check_deletes(table: TableContext, latest: Snapshot | None, deletes: list[ManifestEntry]) -> None:
    """The files this commit replaces are all still live in ``latest`` (no other commit removed one)."""
    if not deletes:
        return
    live = {e.identifier for e in live_entries(table.manifests, latest)}
    gone = [d.file.file_name for d in deletes if d.identifier not in live]
    if gone:
        raise CommitConflict(
            f"file deletion conflict: {len(gone)} file(s) to replace were already removed by another "
            f"commit (e.g. {gone[0]}); nothing was committed"
        )


def check_index_base(table: TableContext, base: int | None, latest: Snapshot | None, messages) -> None:
    """New data files of a cross-partition upsert table need a write that routed its keys
    through the global key index of a snapshot no data commit has followed."""
    if not table.schema.cross_partition_update or not any(m.new_files for m in messages):
        return
    from paimon_core.write import cross_partition_guard

    if base is None:
        cross_partition_guard.refuse(  # raises: this is a cross-partition upsert table
            table,
            "a commit of new data files without CommitOptions.index_base",
            "commit a table writer's messages with CommitOptions(index_base=writer.index_base)",
        )
        return
    cross_partition_guard.check_base(table, base, latest)


def check_read_base(table: TableContext, base: int | None, latest: Snapshot | None) -> None:
    """A write that read the table at snapshot ``base`` and replaces what it read: no APPEND or
    OVERWRITE (or an expired snapshot, which may have been one) followed ``base``."""
    if base is None or latest is None or latest.id <= base:
        return
    for sid in range(base + 1, latest.id + 1):
        snap = table.snapshots.snapshot(sid) if table.snapshots.exists(sid) else None
        if snap is None or snap.commit_kind in ("APPEND", "OVERWRITE"):
            raise CommitConflict(
                f"table {table.identifier}: snapshot {sid} ({snap.commit_kind if snap else 'expired'}) "
                f"changed data after "
                f"snapshot {base}, which this write read and replaces; nothing was committed. Run it again"
            )


def check_row_ids(
    table: TableContext, live: list, adds: list, deletes: list, kind: str, next_row_id: int
) -> None:
    """Data-evolution tables: column files and compactions that raced over the same row ids
    are refused (``metadata/row_id_conflicts.py``)."""
    if kind == "COMPACT":
        gone = {d.identifier for d in deletes}
        pair = mixed_ranges([e for e in live if e.identifier not in gone] + adds)
        if pair is not None:
            a, b = pair
            raise CommitConflict(
                f"table {table.identifier}: this compaction would leave {a.file_name} (row ids from "
                f"{a.first_row_id}, {a.row_count} rows) beside {b.file_name} (from {b.first_row_id}, "
                f"{b.row_count} rows): a column update committed while it ran; nothing was committed. "
                "Run the compaction again"
            )
        return
    stale = stale_row_update(live, adds, deletes, next_row_id)
    if stale is not None:
        raise CommitConflict(
            f"table {table.identifier}: {stale.file_name} updates row ids {stale.first_row_id}.."
            f"{(stale.first_row_id or 0) + stale.row_count - 1}, but no live file holds exactly those rows "
            "any more (a concurrent compaction or overwrite rewrote them); nothing was committed. "
            "Run the update again"
        )


def check_bucket_counts(table: TableContext, latest: Snapshot | None, adds: list[ManifestEntry]) -> None:
    """Outside an overwrite, files keep their partition's bucket count (``_TOTAL_BUCKETS``):
    a key hashed over another count would land in another bucket than its stored rows."""
    counts = {e.partition: e.total_buckets for e in adds if e.bucket >= 0 and e.total_buckets > 0}
    if not counts or latest is None:
        return
    # decoded only for the written partitions: served from the manifest cache the writer's
    # sequence_restorer filled (a dict look-up per partition), decoded cold otherwise (a
    # Spark driver, whose executors restored): see docs/architecture.md
    written = EntryFilter(counts.__contains__, tuple(counts))
    for e in live_entries(table.manifests, latest, decode_filter=written):
        if e.bucket >= 0 and e.total_buckets > 0 and e.total_buckets != counts[e.partition]:
            codec = table.partition_codec
            where = f"partition {codec.display(codec.spec(codec.from_bytes(e.partition)))}"
            where = where if table.schema.partition_keys else "the table"
            raise CommitConflict(
                f"table {table.identifier}: {where} holds files of {e.total_buckets} buckets, this "
                f"write has {counts[e.partition]}; nothing was committed. Rescale it to "
                f"{counts[e.partition]} buckets first (an overwrite), or write it with {e.total_buckets}"
            )
