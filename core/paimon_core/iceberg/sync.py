"""Iceberg metadata after each Paimon snapshot, as Java Paimon's ``IcebergCommitCallback``.

For snapshot N the metadata folder gets ``vN.metadata.json`` and ``version-hint.text`` (N):

* when ``v(N-1).metadata.json`` exists (*with base*): its current snapshot's manifests are kept;
  the files snapshot N added (append tables: every file; primary-key tables: files at the
  highest LSM level only, the fully compacted rows, as Java exposes) go into one new manifest;
  a manifest with a file N deleted is rewritten with that entry DELETED and the others EXISTING
  (operation ``overwrite``, else ``append``); small manifests are merged as Java merges them
  (``metadata.iceberg.compaction.min.file-num`` / ``max.file-num``, ``manifest.target-file-size``).
  The Iceberg snapshots are expired with the table's ``snapshot.num-retained.*`` and
  ``snapshot.time-retained``, with the manifest lists and manifests only they used; tags on a
  retained snapshot become refs;
* otherwise (*without base*: the first snapshot, a base lost to a crash or a rollback): one
  manifest of the live files of N that Java's raw-convertible splits hold (append tables: all;
  primary-key tables: see :meth:`_Sync.raw_convertible`, which can expose a lone level-0 file),
  one Iceberg snapshot, and every older metadata version with its manifests deleted.

With deletion vectors (``metadata.iceberg.format-version=3`` and ``deletion-vectors.bitmap64``,
Java's condition) the metadata is format version 3, a primary-key table exposes its files above
level 0, and DELETES manifests hold one position delete per vector, naming the Paimon index
file at the vector's offset (64-bit vectors are Iceberg's deletion-vector blobs): rebuilt when
a commit changed the index files, else kept from the base. Without a usable base the commits
of the last write (an append and its writer's compaction are two snapshots) are replayed one
by one from metadata afresh for the first, as Java's callback wrote them.

Older ``v*.metadata.json`` are deleted after each commit but the last
``metadata.iceberg.previous-versions-max`` (0) unless ``metadata.iceberg.delete-after-commit
.enabled`` is false. Snapshots of other branches get no Iceberg metadata (Java 1.4.2 writes a
branch's into the same folder, over the main branch's; we keep it the main branch's). Invariant: after :func:`sync_iceberg` the
metadata's current snapshot holds exactly the exposed live files of the latest Paimon snapshot.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from paimon_core.clock import now_ms
from paimon_core.data.binary_row import deserialize_row
from paimon_core.data.types import AtomicType
from paimon_core.errors import UnsupportedFeature
from paimon_core.iceberg.bounds import to_bytes
from paimon_core.iceberg.manifests import ADDED, DELETED, EXISTING, IcebergFiles, read_records, writer_schema
from paimon_core.iceberg.metadata_json import (
    metadata_json,
    name_mapping,
    partition_spec,
    schema_json,
    snapshot_json,
    to_text,
)
from paimon_core.metadata.deletion_vectors import dv_entries, index_path
from paimon_core.metadata.iceberg_options import (
    iceberg_dv,
    iceberg_format_version,
    iceberg_metadata_dir,
    iceberg_storage,
)
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.manifest import ADD, ManifestEntry
from paimon_core.metadata.tags import tag_manager
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import (
    DELETION_VECTORS_ENABLED,
    MANIFEST_TARGET_FILE_SIZE,
    METADATA_ICEBERG_COMPACTION_MAX_FILE_NUM,
    METADATA_ICEBERG_COMPACTION_MIN_FILE_NUM,
    METADATA_ICEBERG_DELETE_AFTER_COMMIT_ENABLED,
    METADATA_ICEBERG_MANIFEST_COMPRESSION,
    METADATA_ICEBERG_PREVIOUS_VERSIONS_MAX,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_TIME_RETAINED,
)

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

VERSION_HINT = "version-hint.text"


def _version_path(d: str, n: int) -> str:
    return f"{d}/v{n}.metadata.json"


class _Sync:
    def __init__(self, table: TableContext):
        self.table = table
        self.io = table.io
        self.opts = table.schema.options
        self.dir = table.io.uri(iceberg_metadata_dir(table.path, self.opts))
        self.schema = table.schema
        part_fields = [table.schema.field(k) for k in table.schema.partition_keys]
        self.core = table.schema.core_options
        self.compression = self.core.get(METADATA_ICEBERG_MANIFEST_COMPRESSION)
        self.part_fields = part_fields
        self.max_level = table.schema.core_options.num_levels - 1
        self.format_version = iceberg_format_version(self.opts)
        self.dv = iceberg_dv(self.opts)  # deletion vectors as Iceberg v3 position deletes
        self.dv_table = bool(self.core.get(DELETION_VECTORS_ENABLED))

    # ---- what Iceberg sees of a Paimon file
    def exposed(self, e: ManifestEntry) -> bool:
        if not self.table.is_primary_key_table:
            return True
        return e.file.level > 0 if self.dv else e.file.level == self.max_level

    def raw_convertible(self, live: list[ManifestEntry]) -> list[ManifestEntry]:
        """The live files Java's metadata *without base* exposes: its raw-convertible splits.
        Every file of an append table; of a primary-key bucket, all its files when none is at
        level 0 or has delete rows and they share one level (any levels with ``first-row`` or
        deletion vectors),
        else its file when it is the only one, without delete rows. (Java packs the sections of
        a bucket into 128 MB splits and exposes single-file splits: a bucket over that size can
        expose more there.)"""
        if not self.table.is_primary_key_table:
            return live
        any_levels = self.core.merge_engine is MergeEngineKind.FIRST_ROW or self.dv_table
        buckets: dict[tuple, list[ManifestEntry]] = {}
        for e in live:
            buckets.setdefault((e.partition, e.bucket), []).append(e)
        out = []
        for files in buckets.values():
            clean = all(e.file.delete_row_count in (None, 0) for e in files)
            one_level = len({e.file.level for e in files}) == 1
            if clean and all(e.file.level != 0 for e in files) and (any_levels or one_level):
                out += files
            elif len(files) == 1 and clean:
                out += files
        return out

    def file_path(self, e: ManifestEntry) -> str:
        partition = self.table.partition_codec.from_bytes(e.partition)
        return self.io.uri(f"{self.table.bucket_path(partition, e.bucket)}/{e.file.file_name}")

    def data_entry(self, e: ManifestEntry, snapshot_id: int) -> dict:
        f = e.file
        values = self.table.partition_codec.from_bytes(e.partition)
        schema = self.table.schema_for(f.schema_id)
        cols = list(f.value_stats_cols) if f.value_stats_cols is not None else schema.field_names
        by_name = {fld.name: fld for fld in schema.fields}
        nulls, lower, upper = [], [], []
        if cols:
            types = [by_name[c].type for c in cols]
            lo = deserialize_row(f.value_stats.min_values, types)
            hi = deserialize_row(f.value_stats.max_values, types)
            counts = f.value_stats.null_counts or [None] * len(cols)
            idx = {c: i for i, c in enumerate(cols)}
            for fld in sorted(schema.fields, key=lambda x: x.id):
                i = idx.get(fld.name)
                if i is None:
                    continue
                if counts[i] is not None:
                    nulls.append({"key": fld.id, "value": counts[i]})
                if lo[i] is not None and hi[i] is not None and isinstance(fld.type, AtomicType):
                    lower.append({"key": fld.id, "value": to_bytes(fld.type, lo[i])})
                    upper.append({"key": fld.id, "value": to_bytes(fld.type, hi[i])})
        return {
            "status": ADDED,
            "snapshot_id": snapshot_id,
            "sequence_number": snapshot_id,
            "file_sequence_number": snapshot_id,
            "data_file": {
                "content": 0,
                "file_path": self.file_path(e),
                "file_format": f.file_name.rsplit(".", 1)[-1].lower(),
                "partition": {fld.name: v for fld, v in zip(self.part_fields, values)},
                "record_count": f.row_count,
                "file_size_in_bytes": f.file_size,
                "null_value_counts": nulls,
                "lower_bounds": lower,
                "upper_bounds": upper,
                "referenced_data_file": None,
                "content_offset": None,
                "content_size_in_bytes": None,
            },
        }

    # ---- deletion vectors (format version 3)
    def dv_entry(self, index_file: str, partition: bytes, bucket: int, r: tuple, size: int, n: int) -> dict:
        """The position-delete entry of one deletion vector (``r``: data file, offset, length,
        cardinality): the Paimon index file itself, read at the vector's offset, as Java's
        ``createForDeleteFile``; ``size`` is the index file's size (-1: not known)."""
        name, offset, length, cardinality = (*r, None)[:4]
        if cardinality is None:
            raise UnsupportedFeature(
                f"Iceberg deletion vectors need the cardinality of each vector: {index_file} has "
                f"none for {name} (Java stops there too)"
            )
        values = self.table.partition_codec.from_bytes(partition)
        data_path = self.io.uri(f"{self.table.bucket_path(values, bucket)}/{name}")
        return {
            "status": ADDED,
            "snapshot_id": n,
            "sequence_number": n,
            "file_sequence_number": n,
            "data_file": {
                "content": 1,
                "file_path": self.io.uri(index_path(self.table, index_file)),
                "file_format": "puffin",
                "partition": {fld.name: v for fld, v in zip(self.part_fields, values)},
                "record_count": cardinality,
                "file_size_in_bytes": size,
                "null_value_counts": None,
                "lower_bounds": None,
                "upper_bounds": None,
                "referenced_data_file": data_path,
                "content_offset": offset,
                "content_size_in_bytes": length,
            },
        }

    def dv_manifests(self, snapshot: Snapshot, files: IcebergFiles, exposed: set[str] | None) -> list[dict]:
        """One DELETES manifest of the deletion vectors of ``snapshot`` (none when it has none):
        of the data files in ``exposed`` with the file size unknown (metadata afresh), or of
        every vector with its index file's size (a commit that changed the vectors)."""
        entries = []
        for e in dv_entries(self.table, snapshot):
            values = self.table.partition_codec.from_bytes(e.partition)
            for r in e.dv_ranges or ():
                if exposed is not None:
                    path = self.io.uri(f"{self.table.bucket_path(values, e.bucket)}/{r[0]}")
                    if path not in exposed:
                        continue
                size = -1 if exposed is not None else e.file_size
                entries.append(self.dv_entry(e.file_name, e.partition, e.bucket, r, size, snapshot.id))
        return [files.write_manifest(entries, snapshot.id, content=1)] if entries else []

    def dv_changed(self, snapshot: Snapshot) -> bool:
        """Whether the commit of ``snapshot`` added or removed deletion vector index files."""
        if not self.table.snapshots.exists(snapshot.id - 1):
            return True
        prev = self.table.snapshots.snapshot(snapshot.id - 1)
        before = {(e.partition, e.bucket, e.file_name) for e in dv_entries(self.table, prev)}
        return before != {(e.partition, e.bucket, e.file_name) for e in dv_entries(self.table, snapshot)}

    def clear(self) -> None:
        if self.io.exists(self.dir):
            self.io.delete_dir(self.dir)

    # ---- files
    def files(self) -> IcebergFiles:
        return IcebergFiles(self.io, self.dir, self.part_fields, self.compression)

    def read_json(self, n: int) -> dict:
        return json.loads(self.io.read_text(_version_path(self.dir, n)))

    def versions(self) -> list[int]:
        out = []
        for name in self.io.list_names(self.dir):
            if name.startswith("v") and name.endswith(".metadata.json") and name[1:-14].isdigit():
                out.append(int(name[1:-14]))
        return sorted(out)

    def paimon_schemas(self, schema_id: int, start: int = 0) -> list:
        return [
            self.table.schema_for(i)
            for i in range(start, schema_id + 1)
            if self.io.exists(self.table.schemas.path(i))
        ]

    def schemas_upto(self, schema_id: int, start: int = 0) -> list[dict]:
        return [schema_json(s) for s in self.paimon_schemas(schema_id, start)]

    def properties(self) -> dict:
        return {"schema.name-mapping.default": name_mapping(self.paimon_schemas(self.schema.id))}

    def has_field_ids(self, metadata: dict) -> bool:
        """Whether the Avro files of ``metadata``'s current snapshot carry Iceberg field ids.
        Java 0.9 wrote them without (and as a nullable union), which Iceberg readers such as
        pyiceberg cannot read: such a base is not built on but replaced (metadata afresh)."""
        current = [s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"]]
        if not current or not self.io.exists(current[0]["manifest-list"]):
            return False
        schema = writer_schema(self.io, current[0]["manifest-list"])
        return isinstance(schema, dict) and "field-id" in json.dumps(schema)

    def write_version(self, n: int, metadata: dict) -> None:
        """``vN.metadata.json`` appears whole or not at all (a crash never leaves a torn one
        that a later sync would take as done); a writer that finds it made keeps it, as Java's
        ``tryToWriteAtomic``."""
        self.io.write_if_absent(_version_path(self.dir, n), to_text(metadata))
        self.io.overwrite_hint(f"{self.dir}/{VERSION_HINT}", str(n).encode())

    def delete_old_versions(self, n: int) -> None:
        if not self.core.get(METADATA_ICEBERG_DELETE_AFTER_COMMIT_ENABLED):
            return
        earliest = n - self.core.get(METADATA_ICEBERG_PREVIOUS_VERSIONS_MAX)
        for v in self.versions():
            if v < earliest:
                self.io.delete(_version_path(self.dir, v))

    # ---- without base
    def create_fresh(self, snapshot: Snapshot) -> None:
        n = snapshot.id
        if n == 1:
            self.clear()
        live = live_entries(self.table.manifests, snapshot)
        exposed = self.raw_convertible(live)
        entries = [self.data_entry(e, n) for e in exposed]
        files = self.files()
        metas = [files.write_manifest(entries, n)] if entries else []
        if self.dv:
            metas += self.dv_manifests(snapshot, files, {self.file_path(e) for e in exposed})
        listed = files.write_list(metas)
        now = now_ms()
        schema_id = self.schema.id
        snap = snapshot_json(n, None, now, "append", listed, schema_id)
        metadata = metadata_json(
            format_version=self.format_version,
            table_uuid=str(uuid.uuid4()),
            location=self.io.uri(self.table.path),
            snapshot_id=n,
            time_ms=now,
            schemas=self.schemas_upto(schema_id),
            schema_id=schema_id,
            spec=partition_spec(self.schema),
            snapshots=[snap],
            refs={},
            properties=self.properties(),
        )
        self.write_version(n, metadata)
        self.expire_all_before(n)

    def expire_all_before(self, n: int) -> None:
        lists, manifests = set(), set()
        for v in self.versions():
            if v >= n:
                continue
            for s in self.read_json(v).get("snapshots", []):
                ml = s["manifest-list"]
                if ml in lists:
                    continue
                lists.add(ml)
                if self.io.exists(ml):
                    for m in read_records(self.io, ml):
                        if m["manifest_path"] not in manifests:
                            manifests.add(m["manifest_path"])
                            self.io.delete(m["manifest_path"])
                self.io.delete(ml)
        self.delete_old_versions(n)

    # ---- with base
    def delta(self, snapshot: Snapshot) -> tuple[dict[str, ManifestEntry], set[str], bool]:
        added: dict[str, ManifestEntry] = {}
        removed: set[str] = set()
        add_only = True
        store = self.table.manifests
        for meta in store.read_list(snapshot.delta_manifest_list):
            for e in store.read_manifest(meta.file_name):
                path = self.file_path(e)
                if e.kind == ADD:
                    if self.exposed(e):
                        removed.discard(path)
                        added[path] = e
                else:
                    add_only = False
                    added.pop(path, None)
                    removed.add(path)
        return added, removed, add_only

    def create_on(self, snapshot: Snapshot, base: dict) -> None:
        n = snapshot.id
        current = next(s for s in base["snapshots"] if s["snapshot-id"] == base["current-snapshot-id"])
        listed_metas = read_records(self.io, current["manifest-list"])
        base_metas = [m for m in listed_metas if m["content"] == 0]
        base_dv_metas = [m for m in listed_metas if m["content"] != 0]
        added, removed, add_only = self.delta(snapshot)
        files = self.files()
        operation = "append"
        metas: list[dict] = []
        for meta in base_metas:
            if add_only:
                metas.append(meta)
                continue
            entries = read_records(self.io, meta["manifest_path"])
            live = [e for e in entries if e["status"] != DELETED]
            reuse = True
            for e in live:
                path = e["data_file"]["file_path"]
                if path in added:
                    del added[path]  # already exposed (its level changed)
                elif path in removed:
                    reuse = False
            if reuse:
                metas.append(meta)
                continue
            operation = "overwrite"
            for e in live:
                e["status"] = DELETED if e["data_file"]["file_path"] in removed else EXISTING
            metas.append(files.write_manifest(live, n))
        if added:
            metas.append(files.write_manifest([self.data_entry(e, n) for e in added.values()], n))
        metas = self.compact(metas, n, files)
        if self.dv:
            metas += self.dv_manifests(snapshot, files, None) if self.dv_changed(snapshot) else base_dv_metas
        listed = files.write_list(metas)
        now = now_ms()
        schema_id = self.schema.id
        schemas = list(base["schemas"])
        if base["current-schema-id"] != schema_id:
            schemas += self.schemas_upto(schema_id, base["current-schema-id"] + 1)
        snapshots = list(base["snapshots"]) + [snapshot_json(n, n - 1, now, operation, listed, schema_id)]
        expired = []
        while len(snapshots) > 1 and self.should_expire(snapshots[0], n, now):
            expired.append(snapshots.pop(0))
        refs = self.refs({s["snapshot-id"] for s in snapshots})
        metadata = metadata_json(
            format_version=self.format_version,
            table_uuid=base["table-uuid"],
            location=base["location"],
            snapshot_id=n,
            time_ms=now,
            schemas=schemas,
            schema_id=schema_id,
            spec=base["partition-specs"][0],
            snapshots=snapshots,
            refs=refs,
            properties=self.properties(),
        )
        self.write_version(n, metadata)
        self.delete_old_versions(n)
        chain = expired + snapshots[:1]
        for old, nxt in zip(chain, chain[1:]):
            self.expire_list(old["manifest-list"], nxt["manifest-list"])

    def refs(self, kept: set[int]) -> dict:
        """Iceberg tags: for each kept snapshot a tag names, one tag (the first by name, as
        Java takes the first of a snapshot's tags); Iceberg readers fail on a tag of a snapshot
        the metadata does not have."""
        by_snapshot: dict[int, str] = {}
        for name, snap in sorted(tag_manager(self.table).tagged().items()):
            by_snapshot.setdefault(snap.id, name)
        return {
            name: {"snapshot-id": sid, "type": "tag"}
            for sid, name in sorted(by_snapshot.items())
            if sid in kept
        }

    def should_expire(self, s: dict, n: int, now: int) -> bool:
        opts = self.table.schema.core_options
        if s["snapshot-id"] > n - opts.get(SNAPSHOT_NUM_RETAINED_MIN):
            return False
        if s["snapshot-id"] <= n - opts.get(SNAPSHOT_NUM_RETAINED_MAX):
            return True
        return s["timestamp-ms"] < now - opts.get(SNAPSHOT_TIME_RETAINED)

    def expire_list(self, old: str, nxt: str) -> None:
        used = {m["manifest_path"] for m in read_records(self.io, nxt)}
        for m in read_records(self.io, old):
            if m["manifest_path"] not in used:
                self.io.delete(m["manifest_path"])
        self.io.delete(old)

    def compact(self, metas: list[dict], n: int, files: IcebergFiles) -> list[dict]:
        target = self.table.schema.core_options.get(MANIFEST_TARGET_FILE_SIZE)
        small = [m for m in metas if m["manifest_length"] < target * 2 // 3]
        if len(small) < self.core.get(METADATA_ICEBERG_COMPACTION_MIN_FILE_NUM):
            return metas
        total = sum(m["manifest_length"] for m in small)
        if len(small) < self.core.get(METADATA_ICEBERG_COMPACTION_MAX_FILE_NUM) and total < target:
            return metas
        entries = []
        for m in small:
            for e in read_records(self.io, m["manifest_path"]):
                if e["file_sequence_number"] != n and e["status"] != EXISTING:
                    if e["status"] == DELETED:
                        continue
                    e["status"] = EXISTING
                entries.append(e)
            if m["sequence_number"] == n:
                self.io.delete(m["manifest_path"])  # written for this commit, listed nowhere
        big = [m for m in metas if m["manifest_length"] >= target * 2 // 3]
        return big + [files.write_manifest(entries, n)]


def sync_iceberg(table: TableContext) -> None:
    """Write the Iceberg metadata of every main-branch snapshot after the last one that has it
    (see the module doc); nothing when the table asks for none."""
    if iceberg_storage(table.schema.options) is None or not table.is_main_branch:
        return
    latest = table.snapshots.latest_id()
    if latest is None:
        return
    sync = _Sync(table)
    done = [v for v in sync.versions() if v <= latest]
    if latest in done:
        return
    start = done[-1] if done else None
    if (
        start is not None
        and all(table.snapshots.exists(i) for i in range(start + 1, latest + 1))
        and sync.read_json(start).get("format-version") == sync.format_version
        and sync.has_field_ids(sync.read_json(start))
    ):
        for i in range(start + 1, latest + 1):
            sync.create_on(table.snapshots.snapshot(i), sync.read_json(i - 1))
        return
    first = _first_of_last_commit(table, latest, start)
    sync.create_fresh(table.snapshots.snapshot(first))
    for i in range(first + 1, latest + 1):
        sync.create_on(table.snapshots.snapshot(i), sync.read_json(i - 1))


def _first_of_last_commit(table: TableContext, latest: int, start: int | None) -> int:
    """Where metadata afresh starts when there is no usable base: the earliest of the last
    ``snapshot.num-retained.min`` snapshots after ``start`` whose schema asked for the same
    Iceberg metadata (a write's append and the compaction its writer ran are two snapshots, and
    Java's callback wrote metadata afresh for the first and on top of it for the next ones; the
    Iceberg snapshots before those Java's retention would keep are not rebuilt)."""
    opts = table.schema.options
    want = (iceberg_storage(opts), iceberg_format_version(opts))
    keep = table.schema.core_options.get(SNAPSHOT_NUM_RETAINED_MIN)
    first = latest
    while first - 1 > (start or 0) and latest - (first - 1) < keep and table.snapshots.exists(first - 1):
        prev = table.schema_for(table.snapshots.snapshot(first - 1).schema_id).options
        if (iceberg_storage(prev), iceberg_format_version(prev)) != want:
            break
        first -= 1
    return first


def reset_iceberg(table: TableContext) -> None:
    """After a rollback: the Iceberg metadata (of snapshots rolled back too) is dropped and the
    latest snapshot's written afresh (without base), so Iceberg readers see what Paimon does.
    (Java leaves its metadata as it was until the next commit, whose metadata it then skips when
    a rolled-back snapshot of that id had some.)"""
    if iceberg_storage(table.schema.options) is None or not table.is_main_branch:
        return
    sync = _Sync(table)
    sync.clear()
    latest = table.snapshots.latest_id()
    if latest is not None:
        sync.create_fresh(table.snapshots.snapshot(latest))


def _latest(table: TableContext) -> tuple[_Sync, int, dict] | None:
    """The table's Iceberg sync, its latest metadata version and that version's JSON; None
    when the table asks for no Iceberg metadata (or is a branch) or has none yet."""
    if iceberg_storage(table.schema.options) is None or not table.is_main_branch:
        return None
    sync = _Sync(table)
    versions = sync.versions()
    if not versions:
        return None
    return sync, versions[-1], sync.read_json(versions[-1])


def prune_iceberg(table: TableContext, earliest: int) -> None:
    """Before a snapshot expiry deletes the files of snapshots older than ``earliest``: the
    Iceberg snapshots older than it leave the latest metadata version (overwritten in place, as
    Java overwrites it for a tag), with the manifest lists and manifests only they used, so an
    Iceberg reader never meets a deleted data file. (Java leaves them until its next commit.)"""
    found = _latest(table)
    if found is None:
        return
    sync, version, metadata = found
    snapshots = metadata["snapshots"]
    current = metadata["current-snapshot-id"]
    kept = [s for s in snapshots if s["snapshot-id"] >= earliest or s["snapshot-id"] == current]
    if len(kept) == len(snapshots):
        return
    ids = {s["snapshot-id"] for s in kept}
    metadata["snapshots"] = kept
    metadata["refs"] = {k: r for k, r in metadata["refs"].items() if r["snapshot-id"] in ids}
    sync.io.overwrite_hint(_version_path(sync.dir, version), to_text(metadata))
    chain = [s for s in snapshots if s["snapshot-id"] not in ids] + kept[:1]
    for old, nxt in zip(chain, chain[1:]):
        sync.expire_list(old["manifest-list"], nxt["manifest-list"])


def refresh_iceberg_tags(table: TableContext) -> None:
    """After tags were created, renamed or deleted: the refs of the latest metadata version
    follow them (overwritten in place, as Java's tag callback overwrites it)."""
    found = _latest(table)
    if found is None:
        return
    sync, version, metadata = found
    refs = sync.refs({s["snapshot-id"] for s in metadata["snapshots"]})
    if refs != metadata.get("refs"):
        metadata["refs"] = refs
        sync.io.overwrite_hint(_version_path(sync.dir, version), to_text(metadata))


__all__ = ["prune_iceberg", "refresh_iceberg_tags", "reset_iceberg", "sync_iceberg"]
