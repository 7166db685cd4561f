"""The tag store: ``tag/tag-<name>`` files holding a copy of a snapshot's JSON (same layout as the
snapshot file), so a tag keeps its snapshot readable after the snapshot file has expired.

Invariants: a tag file is created only if absent and never rewritten; a tag always names a
snapshot that existed when it was created; expire and rollback never delete a file a tag uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import AlreadyExists, CorruptMetadata, InvalidInput, NotFound
from paimon_core.metadata.snapshot import Snapshot

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.storage.file_io import FileIO

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


def tag_manager(table: TableContext) -> TagManager:
    """The tags of the table's branch (``tag/`` under its ``branch_path``)."""
    return TagManager(table.io, table.branch_path)


def branch_tag_manager(io: FileIO, branch_path: str) -> TagManager:
    """The tags of a branch, whose directory (``<table>/branch/branch-NAME``, or the table's own
    for the main branch) holds ``tag/tag-<name>`` as a table does."""
    return TagManager(io, branch_path)


def snapshot_from_tag(snapshot: Snapshot) -> Snapshot:
    """The plain snapshot a tag holds (Java's tag-only fields dropped)."""
    if not any(k in snapshot.extra for k in TAG_FIELDS):
        return snapshot
    from dataclasses import replace

    return replace(snapshot, extra={k: v for k, v in snapshot.extra.items() if k not in TAG_FIELDS})
