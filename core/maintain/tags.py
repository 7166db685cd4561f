"""Tags: ``tag/tag-<name>`` files holding a copy of a snapshot's JSON (same layout as the
snapshot file), so a tag keeps its snapshot readable after the snapshot file has expired.

Invariants: a tag file is created only if absent and never rewritten; a tag always names a
snapshot that existed when it was created; expire and rollback never delete a file a tag uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paimon_core.errors import AlreadyExists, CorruptMetadata, InvalidInput, NotFound, SnapshotNotFound
from paimon_core.snapshot import Snapshot

TAG_PREFIX = "tag-"
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

    def __init__(self, io, table_path: str):
        self.io = io
        self.dir = io.join(table_path, "tag")

    def path(self, name: str) -> str:
        return self.io.join(self.dir, TAG_PREFIX + name)

    def exists(self, name: str) -> bool:
        return self.io.exists(self.path(name))

    def names(self) -> list[str]:
        return sorted(n[len(TAG_PREFIX):] for n in self.io.list_names(self.dir)
                      if n.startswith(TAG_PREFIX) and len(n) > len(TAG_PREFIX))

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


def tag_manager(table) -> TagManager:
    return TagManager(table.io, table.path)


def snapshot_from_tag(snapshot: Snapshot) -> Snapshot:
    """The plain snapshot a tag holds (Java's tag-only fields dropped)."""
    if not any(k in snapshot.extra for k in TAG_FIELDS):
        return snapshot
    from dataclasses import replace

    return replace(snapshot, extra={k: v for k, v in snapshot.extra.items() if k not in TAG_FIELDS})


# ---- operations
def create_tag(table, name: str, snapshot_id: int | None = None) -> TagInfo:
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


def list_tags(table) -> list[TagInfo]:
    """Tags ordered by snapshot id, then name."""
    out = [TagInfo(n, s.id, s.time_millis, s.total_record_count, s) for n, s in tag_manager(table).tagged().items()]
    return sorted(out, key=lambda t: (t.snapshot_id, t.name))


def get_tag(table, name: str) -> TagInfo:
    s = tag_manager(table).snapshot(name)
    return TagInfo(name, s.id, s.time_millis, s.total_record_count, s)


def delete_tag(table, name: str) -> TagInfo:
    """Delete the tag file. Files only the tag kept (its snapshot has expired) become
    unreferenced; ``remove_orphans`` deletes them (Java cleans them here; we keep tag deletion
    a single metadata operation so it cannot race with a concurrent expire)."""
    info = get_tag(table, name)
    tag_manager(table).delete(name)
    return info


__all__ = ["TagAlreadyExists", "TagInfo", "TagManager", "TagNotFound", "create_tag", "delete_tag", "get_tag",
           "list_tags", "snapshot_from_tag", "tag_manager", "validate_tag_name"]
