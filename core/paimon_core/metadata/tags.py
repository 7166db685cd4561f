"""The tag store: ``tag/tag-<name>`` files holding a copy of a snapshot's JSON (same layout as the
snapshot file), so a tag keeps its snapshot readable after the snapshot file has expired.

Invariants: a tag file is created only if absent and rewritten only by an explicit replace
(``tag create --replace``); a tag always names a snapshot that existed when it was created; expire
and rollback never delete a file a tag uses.

A tag with a time-to-live carries Java's two extra fields: ``tagCreateTime`` (a local date-time, as
Jackson writes ``LocalDateTime``: ``[y, M, d, h, m, s, nanos]``) and ``tagTimeRetained`` (seconds,
as Jackson writes a ``Duration``). Java writes neither without a time-to-live (older readers cannot
read them), and neither do we.
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

    @property
    def created_millis(self) -> int | None:
        """When the tag was made, if its file records it (``tag_times``)."""
        return tag_times(self.snapshot)[0]

    @property
    def time_retained_ms(self) -> int | None:
        """How long the tag is kept, if its file records it (``tag_times``)."""
        return tag_times(self.snapshot)[1]


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

    def create(
        self, name: str, snapshot: Snapshot, time_retained_ms: int | None = None, now_ms: int | None = None
    ) -> bool:
        """Create the tag file only if absent; True if this call created it. With
        ``time_retained_ms`` the tag records its creation time (``now_ms``) and time-to-live."""
        return self.io.write_if_absent(self.path(name), tag_json(snapshot, time_retained_ms, now_ms))

    def replace(
        self, name: str, snapshot: Snapshot, time_retained_ms: int | None = None, now_ms: int | None = None
    ) -> None:
        """Rewrite an existing tag to name ``snapshot`` (Java 1.x's replaceTag)."""
        self.io.write_bytes(self.path(name), tag_json(snapshot, time_retained_ms, now_ms))

    def ttl(self, name: str) -> tuple[int, int] | None:
        """(creation epoch millis, time-to-live millis) of a tag that has both, else None."""
        return tag_ttl(self.snapshot(name))

    def delete(self, name: str) -> None:
        self.io.delete(self.path(name))


def _local_fields(ms: int) -> list[int]:
    from datetime import datetime

    d = datetime.fromtimestamp(ms / 1000)
    out = [d.year, d.month, d.day, d.hour, d.minute]
    if d.second or d.microsecond:
        out.append(d.second)
    if d.microsecond:
        out.append(d.microsecond * 1000)
    return out


def tag_json(snapshot: Snapshot, time_retained_ms: int | None = None, now_ms: int | None = None) -> bytes:
    """The tag file of ``snapshot``: its JSON, plus Java's TTL fields when ``time_retained_ms``."""
    from dataclasses import replace

    from paimon_core.clock import now_ms as clock_ms

    plain = snapshot_from_tag(snapshot)
    if time_retained_ms is None:
        return plain.to_json().encode("utf-8")
    created = clock_ms() if now_ms is None else now_ms
    extra = dict(plain.extra)
    extra["tagCreateTime"] = _local_fields(created)
    extra["tagTimeRetained"] = time_retained_ms / 1000
    return replace(plain, extra=extra).to_json().encode("utf-8")


def _parse_create_time(v) -> int | None:
    from datetime import datetime

    if isinstance(v, list) and len(v) >= 3:
        parts = [int(x) for x in v] + [0] * (7 - len(v))
        d = datetime(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6] // 1000)
    elif isinstance(v, str):
        d = datetime.fromisoformat(v[:26])
    else:
        return None
    return int(round(d.timestamp() * 1000))


def _parse_retained(v) -> int | None:
    if isinstance(v, (int, float)):
        return int(round(float(v) * 1000))
    if isinstance(v, str):
        m = re.match(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$", v)
        if m:
            h, mi, sec = m.groups()
            return int((int(h or 0) * 3600 + int(mi or 0) * 60 + float(sec or 0)) * 1000)
        try:
            return int(round(float(v) * 1000))
        except ValueError:
            return None
    return None


def tag_times(snapshot: Snapshot) -> tuple[int | None, int | None]:
    """(creation epoch millis, time-to-live millis) of a tag file's snapshot, each None when
    the tag does not record it (Java 1.x records the creation time of every tag it makes)."""
    out: list[int | None] = []
    for key, parse in (("tagCreateTime", _parse_create_time), ("tagTimeRetained", _parse_retained)):
        v = snapshot.extra.get(key)
        try:
            out.append(None if v is None else parse(v))
        except (ValueError, TypeError):
            out.append(None)
    return out[0], out[1]


def tag_ttl(snapshot: Snapshot) -> tuple[int, int] | None:
    """(creation epoch millis, time-to-live millis) of a tag file's snapshot, when it has both."""
    created = snapshot.extra.get("tagCreateTime")
    retained = snapshot.extra.get("tagTimeRetained")
    if created is None or retained is None:
        return None
    try:
        c, r = _parse_create_time(created), _parse_retained(retained)
    except (ValueError, TypeError):
        return None
    return None if c is None or r is None else (c, r)


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
