"""Tags: ``tag/tag-<name>`` files holding a copy of a snapshot's JSON (same layout as the
snapshot file), so a tag keeps its snapshot readable after the snapshot file has expired.

Invariants: a tag file is created only if absent and never rewritten; a tag always names a
snapshot that existed when it was created; expire and rollback never delete a file a tag uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import AlreadyExists, CorruptMetadata, InvalidInput, NotFound, SnapshotNotFound
from paimon_core.metadata.snapshot import Snapshot

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.maintain.files import FileProgress
    from paimon_core.storage.file_io import FileIO
    from paimon_core.table import FileStoreTable

TAG_PREFIX = paths.TAG_PREFIX
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")
# Fields Java may add to a tag file; they are not part of the snapshot.
TAG_FIELDS = ("tagCreateTime", "tagTimeRetained")


class TagNotFound(NotFound):
    def __init__(self, name: str):
        super().__init__(f"tag '{name}' does not exist")
        self.name = name


class TagAlreadyExists(AlreadyExists):
    def __init__(self, name: str):
        super().__init__(f"tag '{name}' already exists")
        self.name = name


@dataclass(frozen=True)
class TagInfo:
    name: str
    snapshot_id: int
    time_millis: int  # commit time of the tagged snapshot
    record_count: int  # totalRecordCount of the tagged snapshot
    snapshot: Snapshot


def validate_tag_name(name: str) -> str:
    if not name or not _NAME.match(name) or name in (".", ".."):
        raise InvalidInput(f"bad tag name '{name}': use letters, digits, '-', '_' and '.'")
    if name.isdigit():
        # Paimon 1.x refuses numeric tag names: `scan.version` would read them as snapshot ids
        raise InvalidInput(f"bad tag name '{name}': a tag name cannot be only digits")
    return name


class TagManager:
    """Reads and writes ``<table>/tag/tag-<name>``."""

    def __init__(self, io: FileIO, table_path: str):
        self.io = io
        self.table_path = table_path
        self.dir = io.join(table_path, paths.TAG_DIR)

    def path(self, name: str) -> str:
        return paths.tag_file(self.table_path, name)

    def exists(self, name: str) -> bool:
        return self.io.exists(self.path(name))

    def names(self) -> list[str]:
        return sorted(
            n[len(TAG_PREFIX) :]
            for n in self.io.list_names(self.dir)
            if n.startswith(TAG_PREFIX) and len(n) > len(TAG_PREFIX)
        )

    def snapshot(self, name: str) -> Snapshot:
        path = self.path(name)
        try:
            text = self.io.read_text(path)
        except FileNotFoundError:
            raise TagNotFound(name) from None
        try:
            return Snapshot.from_json(text)
        except (ValueError, TypeError, KeyError) as e:
            raise CorruptMetadata(f"tag file {path} is unreadable: {e}") from None

    def tagged(self) -> dict[str, Snapshot]:
        """Every tag and its snapshot (a tag removed concurrently is skipped)."""
        out = {}
        for n in self.names():
            try:
                out[n] = self.snapshot(n)
            except TagNotFound:
                continue
        return out

    def create(self, name: str, snapshot: Snapshot) -> bool:
        """Create the tag file only if absent; True if this call created it."""
        return self.io.write_if_absent(self.path(name), snapshot.to_json().encode("utf-8"))

    def delete(self, name: str) -> None:
        self.io.delete(self.path(name))


def tag_manager(table: FileStoreTable) -> TagManager:
    return TagManager(table.io, table.path)


def snapshot_from_tag(snapshot: Snapshot) -> Snapshot:
    """The plain snapshot a tag holds (Java's tag-only fields dropped)."""
    if not any(k in snapshot.extra for k in TAG_FIELDS):
        return snapshot
    from dataclasses import replace

    return replace(snapshot, extra={k: v for k, v in snapshot.extra.items() if k not in TAG_FIELDS})


# ---- operations
def create_tag(table: FileStoreTable, name: str, snapshot_id: int | None = None) -> TagInfo:
    """Tag snapshot ``snapshot_id`` (the latest by default). Refuses an existing name and a
    snapshot that does not exist."""
    validate_tag_name(name)
    tags = tag_manager(table)
    if tags.exists(name):
        raise TagAlreadyExists(name)
    if snapshot_id is None:
        snap = table.snapshots.latest()
        if snap is None:
            raise SnapshotNotFound("the table has no snapshots to tag")
    else:
        snap = table.snapshots.snapshot(snapshot_id)
    if not tags.create(name, snap):
        raise TagAlreadyExists(name)
    return TagInfo(name, snap.id, snap.time_millis, snap.total_record_count, snap)


def list_tags(table: FileStoreTable) -> list[TagInfo]:
    """Tags ordered by snapshot id, then name."""
    out = [
        TagInfo(n, s.id, s.time_millis, s.total_record_count, s)
        for n, s in tag_manager(table).tagged().items()
    ]
    return sorted(out, key=lambda t: (t.snapshot_id, t.name))


def get_tag(table: FileStoreTable, name: str) -> TagInfo:
    s = tag_manager(table).snapshot(name)
    return TagInfo(name, s.id, s.time_millis, s.total_record_count, s)


@dataclass(frozen=True)
class TagDeletion:
    tag: TagInfo
    files: tuple  # PlannedFile: what only this tag kept (its snapshot has expired)
    dry_run: bool


def plan_delete_tag(table: FileStoreTable, name: str) -> tuple[TagInfo, tuple]:
    """The tag and the files only it keeps alive: nothing while its snapshot file still exists;
    otherwise what its snapshot used that neither the earliest snapshot (files are never re-added
    once removed, so a later snapshot using it would mean the earliest does) nor another tag uses."""
    from paimon_core.maintain.refs import RefReader, Refs
    from paimon_core.maintain.snapshot_files import FileCollector, metadata_files

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
    col = FileCollector(table, protected)
    r = reader.refs(info.snapshot)
    for p, size in r.data.items():
        col.add(p, size, "data")
    for p, size in r.changelog.items():
        col.add(p, size, "changelog")
    metadata_files(reader, info.snapshot, col)
    return info, tuple(col.files)


def delete_tag(
    table: FileStoreTable, name: str, dry_run: bool = False, progress: FileProgress | None = None
) -> TagDeletion:
    """Delete the tag file, then the files only it kept (as Java's tag deletion does). If this
    is interrupted after the tag file is gone, the files left are orphans (``remove_orphans``).
    ``progress(PlannedFile)`` is called after each deletion."""
    from paimon_core.maintain.snapshot_files import execute_plan_files

    info, files = plan_delete_tag(table, name)
    if not dry_run:
        tag_manager(table).delete(name)
        execute_plan_files(table, files, progress)
    return TagDeletion(info, files, dry_run)


__all__ = [
    "TagAlreadyExists",
    "TagDeletion",
    "TagInfo",
    "TagManager",
    "TagNotFound",
    "create_tag",
    "delete_tag",
    "get_tag",
    "list_tags",
    "plan_delete_tag",
    "snapshot_from_tag",
    "tag_manager",
    "validate_tag_name",
]
