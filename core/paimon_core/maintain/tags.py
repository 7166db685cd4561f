"""Tag operations: create, list, get and delete tags (the tag store is ``metadata/tags.py``).

Invariants: a tag file is created only if absent and rewritten only by ``replace``; a tag always names a
snapshot that existed when it was created; deleting a tag deletes only files no snapshot, tag or
branch still uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.errors import InvalidInput, SnapshotNotFound, UnsupportedFeature
from paimon_core.iceberg.sync import refresh_iceberg_tags
from paimon_core.metadata.tags import TagAlreadyExists, TagInfo, TagNotFound, tag_manager, validate_tag_name

if TYPE_CHECKING:
    from paimon_core.maintain.files import FileProgress
    from paimon_core.metadata.table_context import TableContext


# ---- operations
def create_tag(
    table: TableContext,
    name: str,
    snapshot_id: int | None = None,
    *,
    as_of_ms: int | None = None,
    time_retained_ms: int | None = None,
    replace: bool = False,
    now_ms: int | None = None,
) -> TagInfo:
    """Tag snapshot ``snapshot_id``, or the newest committed at or before ``as_of_ms``, or the
    latest. ``time_retained_ms``: a time-to-live (``tag expire`` and the housekeeping after commits
    delete the tag once it passed). Refuses an existing name unless ``replace`` (Java 1.x's
    replaceTag: the tag is rewritten to the new snapshot), and a snapshot that does not exist."""
    from paimon_core.metadata.time_travel import SnapshotSpec, require_snapshot

    validate_tag_name(name)
    if snapshot_id is not None and as_of_ms is not None:
        raise InvalidInput("give a snapshot or a time to tag, not both")
    tags = tag_manager(table)
    exists = tags.exists(name)
    if exists and not replace:
        raise TagAlreadyExists(name)
    if replace and not exists:
        raise TagNotFound(name)
    if snapshot_id is None and as_of_ms is None:
        snap = table.snapshots.latest()
        if snap is None:
            raise SnapshotNotFound("the table has no snapshots to tag")
    else:
        snap = require_snapshot(table, SnapshotSpec.of(snapshot_id, None, as_of_ms))
    remote = table.env.versions()
    if remote is not None:
        if replace:
            raise UnsupportedFeature(
                f"replacing tag '{name}' of {table.identifier}: its catalog creates and deletes tags, "
                "and has no replace (delete the tag, then create it)"
            )
        remote.create_tag(table, name, snap.id, time_retained_ms)
        return TagInfo(name, snap.id, snap.time_millis, snap.total_record_count, snap)
    if replace:
        tags.replace(name, snap, time_retained_ms, now_ms)
    elif not tags.create(name, snap, time_retained_ms, now_ms):
        raise TagAlreadyExists(name)
    refresh_iceberg_tags(table)
    return TagInfo(name, snap.id, snap.time_millis, snap.total_record_count, snap)


def rename_tag(table: TableContext, old: str, new: str) -> TagInfo:
    """Rename a tag (Java 1.x's renameTag): the new tag file is written with the same content
    (time-to-live included), then the old one deleted; no data file is touched."""
    validate_tag_name(new)
    tags = tag_manager(table)
    snap = tags.snapshot(old)
    if tags.exists(new):
        raise TagAlreadyExists(new)
    if not table.io.write_if_absent(tags.path(new), snap.to_json().encode("utf-8")):
        raise TagAlreadyExists(new)
    tags.delete(old)
    refresh_iceberg_tags(table)
    return TagInfo(new, snap.id, snap.time_millis, snap.total_record_count, snap)


def list_tags(table: TableContext) -> list[TagInfo]:
    """Tags ordered by snapshot id, then name."""
    out = [
        TagInfo(n, s.id, s.time_millis, s.total_record_count, s)
        for n, s in tag_manager(table).tagged().items()
    ]
    return sorted(out, key=lambda t: (t.snapshot_id, t.name))


def get_tag(table: TableContext, name: str) -> TagInfo:
    s = tag_manager(table).snapshot(name)
    return TagInfo(name, s.id, s.time_millis, s.total_record_count, s)


@dataclass(frozen=True)
class TagDeletion:
    tag: TagInfo
    files: tuple  # PlannedFile: what only this tag kept (its snapshot has expired)
    dry_run: bool


def plan_delete_tag(table: TableContext, name: str) -> tuple[TagInfo, tuple]:
    """The tag and the files only it keeps alive: nothing while its snapshot file still exists;
    otherwise what its snapshot used that neither the earliest snapshot (files are never re-added
    once removed, so a later snapshot using it would mean the earliest does), another tag nor a
    long-lived changelog uses (streams still read those)."""
    from paimon_core.maintain.refs import RefReader, Refs
    from paimon_core.maintain.snapshot_files import FileCollector, metadata_files
    from paimon_core.metadata.changelog import changelog_manager

    info = get_tag(table, name)
    sm = table.snapshots
    earliest = sm.earliest_id()
    if earliest is None or info.snapshot_id >= earliest:
        return info, ()
    reader = RefReader(table)
    protected = Refs().update(reader.refs(sm.snapshot(earliest)))
    for n, s in tag_manager(table).tagged().items():
        if n != name:
            protected.update(reader.refs(s))
    for i in sm.list_ids():
        protected.update(reader.manifest_names(sm.snapshot(i)))
    cm = changelog_manager(table)
    for i in cm.list_ids():  # a long-lived changelog (maybe of the tag's own snapshot) keeps its files
        protected.update(reader.changelog_refs(cm.changelog(i)))
    col = FileCollector(table, protected)
    r = reader.refs(info.snapshot)
    for p, size in r.data.items():
        col.add(p, size, "data")
    for p, size in r.changelog.items():
        col.add(p, size, "changelog")
    metadata_files(reader, info.snapshot, col)
    return info, tuple(col.files)


def delete_tag(
    table: TableContext, name: str, dry_run: bool = False, progress: FileProgress | None = None
) -> TagDeletion:
    """Delete the tag file, then the files only it kept (as Java's tag deletion does). If this
    is interrupted after the tag file is gone, the files left are orphans (``remove_orphans``).
    ``progress(PlannedFile)`` is called after each deletion."""
    from paimon_core.maintain.snapshot_files import execute_plan_files

    info, files = plan_delete_tag(table, name)
    remote = table.env.versions()
    if not dry_run and remote is not None:
        remote.delete_tag(table, name)  # the catalog deletes the tag and the files only it kept
    elif not dry_run:
        tag_manager(table).delete(name)
        refresh_iceberg_tags(table)
        execute_plan_files(table, files, progress)
    return TagDeletion(info, files, dry_run)


def tag_names(table: TableContext) -> list[str]:
    """The table's tag names, sorted (no tag file is read)."""
    return tag_manager(table).names()


def tag_exists(table: TableContext, name: str) -> bool:
    return tag_manager(table).exists(name)
