"""Planning a read: from a snapshot to the live data files, grouped by (partition, bucket).

The live set of a snapshot = entries of its base list, then its delta list, in order; a DELETE
cancels the earlier ADD with the same identifier (docs/format.md section 5.4). Partitions and files
are pruned with the predicate where statistics prove nothing can match.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.data.binary_row import deserialize_row
from paimon_core.errors import CorruptMetadata, PaimonError
from paimon_core.metadata.features import check_file
from paimon_core.metadata.manifest import (
    ADD,
    DELETE,
    DataFileMeta,
    ManifestEntry,
    ManifestFileMeta,
    ManifestStore,
)
from paimon_core.metadata.snapshot import Snapshot, SnapshotExpired
from paimon_core.read.predicate import ColumnRange, Predicate, may_match

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.table import FileStoreTable


@dataclass(frozen=True)
class DataSplit:
    """All live files of one bucket of one partition: the unit a reader merges."""

    partition: tuple
    partition_bytes: bytes
    bucket: int
    total_buckets: int
    files: tuple[DataFileMeta, ...]
    # (data file name, DeletionFile) for the files with deletion vectors, sorted by name
    deletion_files: tuple = ()
    dv_index: tuple = ()  # the bucket's DELETION_VECTORS IndexEntries (for writers that replace them)

    @property
    def row_count(self) -> int:
        return sum(f.row_count for f in self.files)

    def deletion_file(self, file_name: str):
        for name, df in self.deletion_files:
            if name == file_name:
                return df
        return None


def merge_entries(entries) -> list[ManifestEntry]:
    """Apply ADD/DELETE in order; what remains are the live ADD entries."""
    live: dict[tuple, ManifestEntry] = {}
    for e in entries:
        key = e.identifier
        if e.kind == ADD:
            live[key] = e
        elif e.kind == DELETE:
            live.pop(key, None)
    return list(live.values())


def data_manifests(store: ManifestStore, snapshot: Snapshot) -> list[ManifestFileMeta]:
    return store.read_list(snapshot.base_manifest_list) + store.read_list(snapshot.delta_manifest_list)


def live_entries(
    store: ManifestStore, snapshot: Snapshot | None, manifest_filter=None, entry_filter=None
) -> list[ManifestEntry]:
    if snapshot is None:
        return []
    entries = []
    try:
        for meta in data_manifests(store, snapshot):
            if manifest_filter is not None and not manifest_filter(meta):
                continue
            for e in store.read_manifest(meta.file_name):
                if entry_filter is None or entry_filter(e):
                    entries.append(e)
    except CorruptMetadata as e:
        check_not_expired(store, snapshot, e)
        raise
    return merge_entries(entries)


def check_not_expired(store: ManifestStore, snapshot: Snapshot, error: Exception) -> None:
    """After a metadata file of ``snapshot`` turned out missing: raise SnapshotExpired if another
    process expired the snapshot while we read it (a lost race, not damage). Expiry deletes the
    snapshot file last, so while a newer snapshot exists, wait a moment for it to go."""
    table_path = paths.table_of_manifest_dir(store.dir)

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
    import json

    tag_dir = paths.join(table_path, paths.TAG_DIR)
    for name in io.list_names(tag_dir):
        if not name.startswith(paths.TAG_PREFIX):
            continue
        try:
            if json.loads(io.read_text(paths.join(tag_dir, name))).get("id") == snapshot_id:
                return True
        except (OSError, ValueError):
            continue
    return False


@contextmanager
def expiry_checked(table: FileStoreTable, snapshot: Snapshot | None):
    """Around reading ``snapshot``'s files: a file that went missing because another process
    expired the snapshot meanwhile raises SnapshotExpired (a lost race: run again), not an
    error that calls the table damaged."""
    try:
        yield
    except (CorruptMetadata, FileNotFoundError) as e:
        if snapshot is not None:
            check_not_expired(table.manifests, snapshot, e)
        raise


class TableScan:
    """Plans the splits of one snapshot of a table."""

    def __init__(
        self,
        table: FileStoreTable,
        snapshot: Snapshot | None,
        predicate: Predicate | None = None,
        all_levels: bool = False,
    ):
        self.table = table
        self.snapshot = snapshot
        self.predicate = predicate
        self.all_levels = all_levels  # maintenance (compaction) sees level 0 even where reads do not

    def _partition_predicate_ok(self, ranges: dict) -> bool:
        return self.predicate is None or may_match(self.predicate, ranges)

    def _manifest_filter(self, meta: ManifestFileMeta) -> bool:
        codec = self.table.partition_codec
        if not codec.keys or self.predicate is None:
            return True
        try:
            lo = deserialize_row(meta.partition_stats.min_values, codec.types)
            hi = deserialize_row(meta.partition_stats.max_values, codec.types)
        except (ValueError, IndexError):
            return True
        nulls = meta.partition_stats.null_counts or [None] * len(codec.keys)
        n = meta.num_added_files + meta.num_deleted_files
        ranges = {k: ColumnRange(a, b, c, n) for k, a, b, c in zip(codec.keys, lo, hi, nulls)}
        # every entry of a skipped manifest belongs to a pruned partition, ADD and DELETE alike
        return self._partition_predicate_ok(ranges)

    def entries(self) -> list[ManifestEntry]:
        return live_entries(self.table.manifests, self.snapshot, self._manifest_filter)

    def plan(self) -> list[DataSplit]:
        codec = self.table.partition_codec
        groups: dict[tuple, list[ManifestEntry]] = {}
        for e in self.entries():
            groups.setdefault((e.partition, e.bucket), []).append(e)
        splits = []
        value_filter = self._value_filter()
        # as Java's batch scans: first-row and deletion-vector tables show only compacted data
        # (levels above 0)
        from paimon_core.metadata.deletion_vectors import deletion_files, dv_enabled, dv_entries

        skip_level0 = (
            not self.all_levels
            and self.table.is_primary_key_table
            and (self.table.schema.core_options.merge_engine == "first-row" or dv_enabled(self.table))
        )
        dv_index: dict[tuple, list] = {}
        for e in dv_entries(self.table, self.snapshot):
            dv_index.setdefault((e.partition, e.bucket), []).append(e)
        dvs = deletion_files(dv_index)
        for (pbytes, bucket), entries in groups.items():
            if bucket < 0:  # bucket-postpone: waiting for a compaction, not read (as Java's batch scans)
                continue
            partition = codec.from_bytes(pbytes)
            if self.predicate is not None and codec.keys:
                ranges = {
                    k: ColumnRange(v, v, 1 if v is None else 0, 1) for k, v in zip(codec.keys, partition)
                }
                if not may_match(self.predicate, ranges):
                    continue
            files = [e.file for e in entries]
            for f in files:
                check_file(f)
            # the vectors of every live file of the bucket, pruned or not: writers that replace the
            # bucket's index (compaction, delete) must carry all of them over
            bucket_dvs = dvs.get((pbytes, bucket), {})
            dfs = tuple(
                sorted((f.file_name, bucket_dvs[f.file_name]) for f in files if f.file_name in bucket_dvs)
            )
            if skip_level0:
                files = [f for f in files if f.level > 0]
                if not files:
                    continue
            if value_filter is not None:
                files = [f for f in files if value_filter(f)]
                if not files:
                    continue
            files.sort(key=lambda f: (f.level == 0, -f.level, f.min_sequence_number))
            splits.append(
                DataSplit(
                    partition,
                    pbytes,
                    bucket,
                    entries[0].total_buckets,
                    tuple(files),
                    dfs,
                    tuple(dv_index.get((pbytes, bucket), ())),
                )
            )
        splits.sort(key=lambda s: (tuple((v is None, str(v)) for v in s.partition), s.bucket))
        return splits

    def _key_filter(self, predicate: Predicate):
        """PK tables: skip files whose key ranges cannot match (safe: the records of a matching
        key are all in files whose key range holds it). Value stats are never used here: a
        file's row may be superseded by a newer one elsewhere."""
        table = self.table
        keys = table.schema.trimmed_primary_keys

        def keep(f: DataFileMeta) -> bool:
            schema = table.schema_for(f.schema_id)
            try:
                types = schema.types_of(keys)
                lo = deserialize_row(f.key_stats.min_values, types)
                hi = deserialize_row(f.key_stats.max_values, types)
            except (ValueError, KeyError, IndexError, UnicodeDecodeError, PaimonError):
                return True
            nulls = f.key_stats.null_counts or [None] * len(keys)
            ranges = {k: ColumnRange(a, b, n, f.row_count) for k, a, b, n in zip(keys, lo, hi, nulls)}
            return may_match(predicate, ranges)

        return keep

    def _value_filter(self):
        """File-level pruning on stats: value stats for append tables, key stats for PK tables."""
        predicate = self.predicate
        if predicate is None:
            return None
        if self.table.schema.primary_keys:
            return self._key_filter(predicate)
        table = self.table

        def keep(f: DataFileMeta) -> bool:
            schema = table.schema_for(f.schema_id)
            cols = list(f.value_stats_cols) if f.value_stats_cols is not None else schema.field_names
            if not cols:
                return True
            current = {fld.id: fld.name for fld in table.schema.fields}
            by_name = {fld.name: fld for fld in schema.fields}
            try:
                types = [by_name[c].type for c in cols]
                lo = deserialize_row(f.value_stats.min_values, types)
                hi = deserialize_row(f.value_stats.max_values, types)
            except (ValueError, KeyError, IndexError, UnicodeDecodeError):
                return True
            nulls = f.value_stats.null_counts or [None] * len(cols)
            ranges = {}
            for c, a, b, n in zip(cols, lo, hi, nulls):
                fld = by_name[c]
                name = current.get(fld.id)
                if name is None or table.schema.field(name).type.with_nullable(
                    True
                ) != fld.type.with_nullable(True):
                    continue  # renamed away, dropped or retyped: stats do not apply
                ranges[name] = ColumnRange(a, b, n, f.row_count)
            return may_match(predicate, ranges)

        return keep
