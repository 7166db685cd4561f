"""The live-file set of a snapshot: its manifest entries with every DELETE applied.

The live set = entries of the snapshot's base list, then its delta list, in order; a DELETE
cancels the earlier ADD with the same identifier (docs/format.md section 5.4). Commit, scan,
compaction and maintenance all see a snapshot's files through ``live_entries``. A metadata file
that goes missing while a snapshot is read is told apart here: expired by another process (a lost
race, ``SnapshotExpired``) or damage.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata.manifest import ADD, DELETE, ManifestEntry, ManifestFileMeta, ManifestStore
from paimon_core.metadata.snapshot import Snapshot, SnapshotExpired
from paimon_core.metadata.tags import TagManager

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from paimon_core.metadata.manifest_reader import EntryFilter
    from paimon_core.metadata.table_context import TableContext


def merge_entries(entries: Iterable[ManifestEntry]) -> list[ManifestEntry]:
    """Apply ADD/DELETE in order; what remains are the live ADD entries (a repeated ADD
    counts once, at its first place, holding the last one's fields)."""
    entries = entries if isinstance(entries, list) else list(entries)
    if all(e.kind == ADD for e in entries) and len({e.file.file_name for e in entries}) == len(entries):
        return list(entries)  # no DELETE, no file twice (a name is part of the identifier): all live
    live: dict[tuple, ManifestEntry] = {}
    for e in entries:
        key = e.identifier
        if e.kind == ADD:
            live[key] = e
        elif e.kind == DELETE:
            live.pop(key, None)
    return list(live.values())


def data_manifests(store: ManifestStore, snapshot: Snapshot) -> list[ManifestFileMeta]:
    base, delta = store.read_lists([snapshot.base_manifest_list, snapshot.delta_manifest_list])
    return base + delta


def live_entries(
    store: ManifestStore,
    snapshot: Snapshot | None,
    manifest_filter: Callable[[ManifestFileMeta], bool] | None = None,
    entry_filter: Callable[[ManifestEntry], bool] | None = None,
    decode_filter: EntryFilter | None = None,
) -> list[ManifestEntry]:
    """The live entries of ``snapshot``. ``manifest_filter`` skips whole manifests (by their
    partition statistics), ``decode_filter`` skips entries by partition and bucket while they
    are decoded, ``entry_filter`` drops built entries. A filter may only drop entries whose
    ADD and DELETE both go (by partition or bucket, never by a file's own fields), or a
    DELETE would be lost and its ADD stay live."""
    if snapshot is None:
        return []
    entries = []
    try:
        metas = [m for m in data_manifests(store, snapshot) if manifest_filter is None or manifest_filter(m)]
        # read in parallel, folded in list order
        names, sizes = [m.file_name for m in metas], [m.file_size for m in metas]
        for part in store.read_manifests(names, decode_filter, sizes):
            if entry_filter is None:
                entries.extend(part)
            else:
                entries.extend(e for e in part if entry_filter(e))
    except CorruptMetadata as e:
        check_not_expired(store, snapshot, e)
        raise
    return merge_entries(entries)


def check_not_expired(
    store: ManifestStore, snapshot: Snapshot, error: Exception, snapshot_root: str | None = None
) -> None:
    """After a metadata file of ``snapshot`` turned out missing: raise SnapshotExpired if another
    process expired the snapshot while we read it (a lost race, not damage). Expiry deletes the
    snapshot file last, so while a newer snapshot exists, wait a moment for it to go."""
    table_path = snapshot_root or paths.table_of_manifest_dir(store.dir)  # a branch's own directory

    def path(i: int) -> str:
        return paths.snapshot_file(table_path, i)

    deadline = time.monotonic() + 2.0
    while store.io.exists(path(snapshot.id)):
        if not store.io.exists(path(snapshot.id + 1)) or time.monotonic() > deadline:
            return  # the latest snapshot is never expired: the file is really missing
        time.sleep(0.05)
    if _tagged(store.io, table_path, snapshot.id):
        return  # a tag's snapshot, long expired: its files stay while the tag does, so damage
    raise SnapshotExpired(
        f"snapshot {snapshot.id} was expired by another process while it was being read ({error}); run again"
    ) from None


def _tagged(io, table_path: str, snapshot_id: int) -> bool:
    """Whether a tag holds snapshot ``snapshot_id`` (read only on an error path)."""
    try:
        return any(s.id == snapshot_id for s in TagManager(io, table_path).tagged().values())
    except (OSError, CorruptMetadata):
        return False


@contextmanager
def expiry_checked(table: TableContext, snapshot: Snapshot | None) -> Iterator[None]:
    """Around reading ``snapshot``'s files: a file that went missing because another process
    expired the snapshot meanwhile raises SnapshotExpired (a lost race: run again), not an
    error that calls the table damaged."""
    try:
        yield
    except (CorruptMetadata, FileNotFoundError) as e:
        if snapshot is not None:
            check_not_expired(table.manifests, snapshot, e, table.branch_path)
        raise
