"""Snapshots (``snapshot/snapshot-N`` JSON, version 3) and the manager that finds them.

Invariants: ids start at 1 and are contiguous; a snapshot file is created only if absent and
never replaced; LATEST and EARLIEST are hints, trusted only after checking the files exist.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from paimon_core import paths
from paimon_core.errors import CommitConflict, DamagedSnapshot, SnapshotNotFound
from paimon_core.metadata import jsonfmt
from paimon_core.storage.file_io import FileIO

SNAPSHOT_VERSION = 3
BATCH_COMMIT_IDENTIFIER = 9223372036854775807  # Long.MAX_VALUE: a batch (non-streaming) commit
# Java 2.0's Snapshot.Operation: what produced a snapshot, beside its commitKind. Java's core
# writes TRUNCATE (truncateTable, truncatePartitions: a dropped partition) and leaves plain writes
# without one; its Spark writer names the others. We write TRUNCATE, DELETE and MERGE (a column
# update) only. Readers before 2.0 ignore the key (Java reads snapshots with ignoreUnknown).
OPERATIONS = (
    "WRITE",
    "OVERWRITE",
    "DELETE",
    "TRUNCATE",
    "UPDATE",
    "MERGE",
    "CREATE_TABLE_AS_SELECT",
    "REPLACE_TABLE_AS_SELECT",
    "CREATE_OR_REPLACE_TABLE_AS_SELECT",
)


class SnapshotExpired(CommitConflict):
    """The snapshot being read was expired (its files deleted) by another process meanwhile:
    a lost race, not damage. Whatever was being written was not committed; run it again."""


@dataclass(frozen=True)
class Snapshot:
    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    commit_user: str
    commit_identifier: int
    commit_kind: str
    time_millis: int
    total_record_count: int
    delta_record_count: int
    base_manifest_list_size: int | None = None
    delta_manifest_list_size: int | None = None
    changelog_manifest_list: str | None = None
    changelog_manifest_list_size: int | None = None
    index_manifest: str | None = None
    changelog_record_count: int | None = None
    watermark: int | None = None
    statistics: str | None = None
    properties: dict | None = None
    uuid: str | None = None
    writer_version: str | None = None
    next_row_id: int | None = None
    operation: str | None = None  # Java 2.0's logical operation (OPERATIONS); None before 2.0
    version: int = SNAPSHOT_VERSION
    extra: dict = field(default_factory=dict)  # tag fields and other keys we carry but do not use

    _JSON = [  # (attribute, JSON key), in Java's order
        ("version", "version"),
        ("uuid", "uuid"),
        ("id", "id"),
        ("schema_id", "schemaId"),
        ("base_manifest_list", "baseManifestList"),
        ("base_manifest_list_size", "baseManifestListSize"),
        ("delta_manifest_list", "deltaManifestList"),
        ("delta_manifest_list_size", "deltaManifestListSize"),
        ("changelog_manifest_list", "changelogManifestList"),
        ("changelog_manifest_list_size", "changelogManifestListSize"),
        ("index_manifest", "indexManifest"),
        ("commit_user", "commitUser"),
        ("writer_version", "writerVersion"),
        ("commit_identifier", "commitIdentifier"),
        ("commit_kind", "commitKind"),
        ("time_millis", "timeMillis"),
        ("total_record_count", "totalRecordCount"),
        ("delta_record_count", "deltaRecordCount"),
        ("changelog_record_count", "changelogRecordCount"),
        ("watermark", "watermark"),
        ("statistics", "statistics"),
        ("properties", "properties"),
        ("next_row_id", "nextRowId"),
        ("operation", "operation"),
    ]

    def to_json(self) -> str:
        obj = {}
        for attr, key in self._JSON:
            v = getattr(self, attr)
            if v is not None:
                obj[key] = v
        obj.update(self.extra)
        return jsonfmt.dumps(obj)

    @classmethod
    def from_json(cls, text: str) -> Snapshot:
        obj = json.loads(text)
        kwargs = {attr: obj.get(key) for attr, key in cls._JSON if key in obj}
        known = {key for _, key in cls._JSON}
        kwargs["extra"] = {k: v for k, v in obj.items() if k not in known and k != "logOffsets"}
        kwargs.setdefault("version", 1)
        kwargs.setdefault("total_record_count", 0)
        kwargs.setdefault("delta_record_count", 0)
        return cls(**kwargs)


class SnapshotManager:
    PREFIX = paths.SNAPSHOT_PREFIX

    def __init__(self, io: FileIO, table_path: str):
        self.io = io
        self.dir = io.join(table_path, paths.SNAPSHOT_DIR)

    def path(self, snapshot_id: int) -> str:
        return self.io.join(self.dir, f"{self.PREFIX}{snapshot_id}")

    def exists(self, snapshot_id: int) -> bool:
        return self.io.exists(self.path(snapshot_id))

    def list_ids(self) -> list[int]:
        return self.io.list_numbered(self.dir, self.PREFIX)

    def read_hint(self, name: str) -> int | None:
        try:
            text = self.io.read_text(self.io.join(self.dir, name)).strip()
            return int(text) if text.isdigit() else None
        except (OSError, ValueError):  # missing, unreadable or not text: a hint only
            return None

    def latest_id(self) -> int | None:
        hint = self.read_hint("LATEST")
        if hint is not None and self.exists(hint) and not self.exists(hint + 1):
            return hint
        ids = self.list_ids()
        return ids[-1] if ids else None

    def earliest_id(self) -> int | None:
        hint = self.read_hint("EARLIEST")
        if hint is not None and self.exists(hint) and not self.exists(hint - 1):
            return hint
        ids = self.list_ids()
        return ids[0] if ids else None

    def snapshot(self, snapshot_id: int) -> Snapshot:
        path = self.path(snapshot_id)
        try:
            data = self.io.read_bytes(path)
        except FileNotFoundError:
            ids = self.list_ids()
            span = f"snapshots {ids[0]}..{ids[-1]} exist" if ids else "the table has no snapshots"
            raise SnapshotNotFound(f"snapshot {snapshot_id} does not exist ({span})") from None
        return self._parsed(snapshot_id, data)

    def _parsed(self, snapshot_id: int, data: bytes) -> Snapshot:
        try:
            return Snapshot.from_json(data.decode("utf-8"))
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            detail = str(e).splitlines()[0] if str(e) else type(e).__name__
            previous = max((i for i in self.list_ids() if i < snapshot_id), default=None)
            raise DamagedSnapshot(snapshot_id, self.path(snapshot_id), detail, previous) from None

    def readable(self) -> tuple[list[Snapshot], list[DamagedSnapshot]]:
        """Every listed snapshot that parses, and the error of each damaged one (ids ascending);
        a snapshot expired while listing is left out."""
        good, bad = [], []
        for i in self.list_ids():
            try:
                good.append(self.snapshot(i))
            except DamagedSnapshot as e:
                bad.append(e)
            except SnapshotNotFound:
                continue
        return good, bad

    def latest(self) -> Snapshot | None:
        """The latest snapshot. With a LATEST hint, the hinted snapshot and the next are read at
        once (on a remote store, one round trip for both; a file that is not there costs one
        GET, where an existence check on S3 may cost a HEAD and a listing): the hint holds
        when its snapshot exists and the next does not, as ``latest_id`` checks."""
        hint = self.read_hint("LATEST")
        if hint is not None:
            this, after = self.io.together(
                lambda: self._bytes_if_any(hint), lambda: self._bytes_if_any(hint + 1)
            )
            if this is not None and after is None:
                return self._parsed(hint, this)
        sid = self.latest_id()
        return self.snapshot(sid) if sid is not None else None

    def _bytes_if_any(self, snapshot_id: int) -> bytes | None:
        try:
            return self.io.read_bytes(self.path(snapshot_id))
        except FileNotFoundError:
            return None

    def snapshots(self) -> list[Snapshot]:
        return [self.snapshot(i) for i in self.list_ids()]

    def at_or_before(self, time_millis: int) -> Snapshot:
        """The newest snapshot committed at or before ``time_millis`` (binary search over ids)."""
        ids = self.list_ids()
        if not ids:
            raise SnapshotNotFound("the table has no snapshots")
        lo, hi, found = 0, len(ids) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            s = self.snapshot(ids[mid])
            if s.time_millis <= time_millis:
                found, lo = s, mid + 1
            else:
                hi = mid - 1
        if found is None:
            first = self.snapshot(ids[0])
            import datetime as dt

            from paimon_core.data.values import EPOCH

            when = (EPOCH + dt.timedelta(milliseconds=first.time_millis)).isoformat(timespec="milliseconds")
            raise SnapshotNotFound(
                f"no snapshot at or before that time: the earliest is {first.id}, committed {when} UTC"
            )
        return found

    def try_commit(self, snapshot: Snapshot) -> bool:
        """Create snapshot-N if absent; on success update the LATEST hint (best effort). A
        create refused because snapshot-N holds exactly these bytes (a unique uuid among them)
        is ours: a PUT that succeeded, lost its response and was retried by the client.

        An id that was taken and then expired (or rolled back) is free on storage again, but
        not ours to take: snapshot-N is created only while snapshot-(N-1), the snapshot it was
        built on, still exists, and a snapshot-N created while snapshot-(N+1) exists (the id
        was reused after an expiry raced this commit) is deleted again. Both are lost races
        (False): the caller retries on the new latest snapshot. Expiry deletes the earliest
        snapshot first, so an id can only be reused after its predecessor is gone."""
        data = snapshot.to_json().encode("utf-8")
        if snapshot.id > 1 and not self.exists(snapshot.id - 1):
            return False  # the snapshot this one extends was expired or rolled back meanwhile
        if not self.io.write_if_absent(self.path(snapshot.id), data) and not self.holds(snapshot):
            return False
        if self.exists(snapshot.id + 1):  # the id was reused: take our snapshot back
            if self.holds(snapshot):
                self.io.delete(self.path(snapshot.id))
            return False
        self.write_hint("LATEST", snapshot.id)
        return True

    def holds(self, snapshot: Snapshot) -> bool:
        """Whether snapshot-N on storage is exactly ``snapshot`` (its bytes; False if absent)."""
        try:
            return self.io.read_bytes(self.path(snapshot.id)) == snapshot.to_json().encode("utf-8")
        except FileNotFoundError:
            return False

    def write_hint(self, name: str, snapshot_id: int) -> None:
        try:
            self.io.overwrite_hint(self.io.join(self.dir, name), str(snapshot_id).encode("ascii"))
        except OSError:
            pass
