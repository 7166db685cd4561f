"""Planning a read: from a snapshot to the live data files (``metadata/live_files.py``), grouped by
(partition, bucket).

The live set of a snapshot = entries of its base list, then its delta list, in order; a DELETE
cancels the earlier ADD with the same identifier (docs/format.md section 5.4). Partitions and files
are pruned with the predicate where statistics prove nothing can match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.data.binary_row import deserialize_row
from paimon_core.errors import PaimonError, UnsupportedFeature
from paimon_core.metadata.features import check_file, check_readable
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.manifest import (
    DataFileMeta,
    ManifestEntry,
    ManifestFileMeta,
)
from paimon_core.metadata.manifest_reader import gc_paused
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.options.bucket_mode import POSTPONE_BUCKET, BucketMode
from paimon_core.options.registry import POSTPONE_MERGE_ON_READ
from paimon_core.read.partition_filter import entry_filter, manifest_may_match, partition_may_match
from paimon_core.read.predicate import ColumnRange, Predicate, may_match
from paimon_core.read.row_tracking import data_evolution

if TYPE_CHECKING:
    from paimon_core.metadata.deletion_vectors import DeletionFile
    from paimon_core.metadata.table_context import TableContext


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
    schema_branch: str | None = None  # files of another branch (a fallback read): its schema files

    @property
    def row_count(self) -> int:
        return sum(f.row_count for f in self.files)

    def deletion_file(self, file_name: str) -> DeletionFile | None:
        for name, df in self.deletion_files:
            if name == file_name:
                return df
        return None


class TableScan:
    """Plans the splits of one snapshot of a table."""

    def __init__(
        self,
        table: TableContext,
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
        # every entry of a skipped manifest belongs to a pruned partition, ADD and DELETE alike
        return manifest_may_match(self.predicate, self.table.partition_codec, meta)

    def entries(self) -> list[ManifestEntry]:
        decode_filter = entry_filter(self.predicate, self.table.partition_codec)
        return live_entries(
            self.table.manifests, self.snapshot, self._manifest_filter, decode_filter=decode_filter
        )

    def plan(self) -> list[DataSplit]:
        codec = self.table.partition_codec
        groups: dict[tuple, list[ManifestEntry]] = {}
        for e in self.entries():
            groups.setdefault((e.partition, e.bucket), []).append(e)
        splits = []
        evolution = not self.table.is_primary_key_table and data_evolution(self.table.schema)
        # a file of some columns has stats for those only: pruning it would split its row group
        value_filter = None if evolution else self._value_filter()
        # as Java's batch scans: first-row and deletion-vector tables show only compacted data
        # (levels above 0)
        from paimon_core.metadata.deletion_vectors import deletion_files, dv_enabled, dv_entries

        skip_level0 = (
            not self.all_levels
            and self.table.is_primary_key_table
            and (self.table.schema.core_options.merge_engine.reads_compacted_only or dv_enabled(self.table))
        )
        dv_index: dict[tuple, list] = {}
        for e in dv_entries(self.table, self.snapshot):
            dv_index.setdefault((e.partition, e.bucket), []).append(e)
        dvs = deletion_files(dv_index)
        for (pbytes, bucket), entries in groups.items():
            if (
                bucket == POSTPONE_BUCKET
            ):  # bucket-postpone: waiting for a compaction, not read (as Java's batch scans)
                continue
            partition = codec.from_bytes(pbytes)
            if (
                self.predicate is not None
                and codec.keys
                and not partition_may_match(self.predicate, codec, partition)
            ):
                continue
            files = [e.file for e in entries]
            if not evolution:  # a data-evolution reader merges files of some columns (row_tracking.py)
                for f in files:
                    if f.write_cols is not None:
                        check_file(f, columns=self.table.schema_for(f.schema_id).field_names)
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


def plan(
    table: TableContext,
    snapshot: Snapshot | None,
    predicate: Predicate | None = None,
    all_levels: bool = False,
) -> list[DataSplit]:
    """Splits to read; ``all_levels`` includes level-0 files that batch reads of first-row and
    deletion-vector tables skip (for compaction and other maintenance). Rows waiting in
    ``bucket-postpone`` are in no split (``postpone_rows`` counts them); a table whose readers
    must merge them (``postpone.merge-on-read``, Flink only) is refused while rows wait."""
    table.require_readable()
    check_readable(table.schema)
    if not all_levels and table.schema.core_options.get(POSTPONE_MERGE_ON_READ):
        check_merge_on_read(postpone_rows(table, snapshot))
    with gc_paused():  # planning allocates an object per file; none of them is garbage yet
        return TableScan(table, snapshot, predicate, all_levels).plan()


def postpone_rows(table: TableContext, snapshot: Snapshot | None) -> int:
    """Rows of a postpone-bucket table that wait in ``bucket-postpone`` (not read until a
    compaction assigns them to buckets); 0 for other tables."""
    if snapshot is None or table.schema.bucket_mode is not BucketMode.POSTPONE:
        return 0
    return sum(
        e.file.row_count for e in live_entries(table.manifests, snapshot) if e.bucket == POSTPONE_BUCKET
    )


def check_merge_on_read(waiting: int) -> None:
    """``postpone.merge-on-read`` (2.0, honoured by Flink's reads only) asks readers to merge the
    waiting rows into their buckets; we do not, so such reads are refused while rows wait."""
    if waiting:
        raise UnsupportedFeature(
            f"the table sets postpone.merge-on-read = true and {waiting} row(s) wait in "
            "bucket-postpone: merging them on read is not supported; run `paimon compact` "
            "first"
        )
