"""System tables over the files of a table's latest snapshot: ``$files``, ``$file_key_ranges``,
``$manifests``, ``$partitions``, ``$buckets``, ``$table_indexes``.

Partition values are shown as Java casts a partition row to a string: ``{a, 1}`` (``{}`` for an
unpartitioned table) in ``$files``, ``$file_key_ranges``, ``$manifests``, ``$buckets`` and
``$table_indexes``; ``dt=a/hr=1`` (the default partition name for NULL) in ``$partitions``.
Java 1.4.2 lacks the columns marked "Java 2.0". Java 0.9 differs more: ``$partitions`` shows
``[a, 1]`` and ends at ``last_update_time``; ``$files`` shows ``[a, 1]`` and the file name alone
as ``file_path``, and ends at ``creation_time``; ``$manifests`` has no partition stats or row
ids; there is no ``$file_key_ranges``, ``$buckets`` or ``$table_indexes``. Stats maps are Java's
``TreeMap.toString`` over the current schema's columns, a file's stats mapped to them by field id
(columns the file has no stats for: null; columns it does not hold, added later or, in a
data-evolution file, not among its ``write_cols``: null, null count the row count, as Java 2.0).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.data.binary_row import deserialize_row
from paimon_core.data.partition import display_value
from paimon_core.metadata.live_files import data_manifests, live_entries
from paimon_core.systables.columns import fields, java_text, local_wall, to_table

if TYPE_CHECKING:
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.table import FileStoreTable

FILES = fields(
    ("partition", "STRING"),
    ("bucket", "INT NOT NULL"),
    ("file_path", "STRING NOT NULL"),
    ("file_format", "STRING NOT NULL"),
    ("schema_id", "BIGINT NOT NULL"),
    ("level", "INT NOT NULL"),
    ("record_count", "BIGINT NOT NULL"),
    ("file_size_in_bytes", "BIGINT NOT NULL"),
    ("min_key", "STRING"),
    ("max_key", "STRING"),
    ("null_value_counts", "STRING NOT NULL"),
    ("min_value_stats", "STRING NOT NULL"),
    ("max_value_stats", "STRING NOT NULL"),
    ("min_sequence_number", "BIGINT"),
    ("max_sequence_number", "BIGINT"),
    ("creation_time", "TIMESTAMP(3)"),
    ("deleteRowCount", "BIGINT"),
    ("file_source", "STRING"),
    ("first_row_id", "BIGINT"),
    ("write_cols", "ARRAY<STRING>"),
)
# $files' columns partition .. max_key, then first_row_id
FILE_KEY_RANGES = fields(*((f.name, str(f.type)) for f in FILES[:10]), ("first_row_id", "BIGINT"))
MANIFESTS = fields(
    ("file_name", "STRING NOT NULL"),
    ("file_size", "BIGINT NOT NULL"),
    ("num_added_files", "BIGINT NOT NULL"),
    ("num_deleted_files", "BIGINT NOT NULL"),
    ("schema_id", "BIGINT NOT NULL"),
    ("min_partition_stats", "STRING"),
    ("max_partition_stats", "STRING"),
    ("min_row_id", "BIGINT"),
    ("max_row_id", "BIGINT"),
)
PARTITIONS = fields(
    ("partition", "STRING"),
    ("record_count", "BIGINT NOT NULL"),
    ("file_size_in_bytes", "BIGINT NOT NULL"),
    ("file_count", "BIGINT NOT NULL"),
    ("last_update_time", "TIMESTAMP(3)"),
    ("created_at", "TIMESTAMP(3)"),
    ("created_by", "STRING"),
    ("updated_by", "STRING"),
    ("options", "STRING"),
    ("total_buckets", "INT NOT NULL"),  # Java 2.0
    ("done", "BOOLEAN NOT NULL"),  # Java 2.0
    ("deleted_record_count", "BIGINT"),  # Java 2.0
)
BUCKETS = fields(
    ("partition", "STRING"),
    ("bucket", "INT NOT NULL"),
    ("record_count", "BIGINT NOT NULL"),
    ("file_size_in_bytes", "BIGINT NOT NULL"),
    ("file_count", "BIGINT NOT NULL"),
    ("last_update_time", "TIMESTAMP(3)"),
)
TABLE_INDEXES = fields(
    ("partition", "STRING"),
    ("bucket", "INT NOT NULL"),
    ("index_type", "STRING NOT NULL"),
    ("file_name", "STRING NOT NULL"),
    ("file_size", "BIGINT NOT NULL"),
    ("row_count", "BIGINT NOT NULL"),
    (
        "dv_ranges",
        "ARRAY<ROW<`f0` STRING NOT NULL, `f1` INT NOT NULL, `f2` INT NOT NULL, `_CARDINALITY` BIGINT>>",
    ),
    ("row_range_start", "BIGINT"),  # Java 2.0: a global index's
    ("row_range_end", "BIGINT"),
    ("index_field_id", "INT"),
    ("index_field_name", "STRING"),
)
_FILE_SOURCES = {0: "APPEND", 1: "COMPACT"}


class _Partitions:
    """Partition bytes -> Java's row text, each partition decoded once."""

    def __init__(self, table: FileStoreTable):
        self.codec = table.partition_codec
        self._cache: dict[bytes, str] = {}

    def row_text(self, data: bytes) -> str:
        text = self._cache.get(data)
        if text is None:
            values = deserialize_row(data, self.codec.types) if self.codec.types else []
            text = "{" + ", ".join(self.value(v, t) for v, t in zip(values, self.codec.types)) + "}"
            self._cache[data] = text
        return text

    @staticmethod
    def value(v, t) -> str:
        return "null" if v is None else display_value(v, t)


def _wall(f: DataFileMeta):
    """The creation time a file records (a wall clock, as Java reads it)."""
    t = f.creation_time
    if t is None or not isinstance(t, (int, datetime)):
        return None
    if isinstance(t, int):
        return datetime.fromtimestamp(t / 1000, timezone.utc).replace(tzinfo=None)
    return t if t.tzinfo is None else t.astimezone(timezone.utc).replace(tzinfo=None)


class _Stats:
    """A file's value stats as Java's three maps over the current schema's columns."""

    def __init__(self, table: FileStoreTable):
        self.table = table
        self.current = table.schema.fields
        self._plans: dict[tuple, tuple] = {}

    def _plan(self, f: DataFileMeta) -> tuple:
        key = (f.schema_id, f.value_stats_cols, f.write_cols)
        plan = self._plans.get(key)
        if plan is None:
            schema = self.table.schema_for(f.schema_id)
            by_name = {fld.name: fld for fld in schema.fields}
            # the file's columns: a data-evolution file holds only its write_cols (Java 2.0)
            held = schema.field_names
            if f.write_cols is not None:
                held = [c for c in f.write_cols if c in by_name]
            cols = list(f.value_stats_cols) if f.value_stats_cols is not None else held
            types = [by_name[c].type for c in cols]
            pos = {by_name[c].id: i for i, c in enumerate(cols)}
            order = sorted(self.current, key=lambda fld: fld.name)
            # a column the file does not hold (added later, or not written) is all NULL in it: -1
            known = {by_name[c].id for c in held}
            plan = (
                types,
                [(fld.name, fld.type, pos.get(fld.id, None if fld.id in known else -1)) for fld in order],
            )
            self._plans[key] = plan
        return plan

    def maps(self, f: DataFileMeta) -> tuple[str, str, str]:
        types, order = self._plan(f)
        try:
            lo = deserialize_row(f.value_stats.min_values, types) if types else []
            hi = deserialize_row(f.value_stats.max_values, types) if types else []
        except (ValueError, IndexError):
            lo, hi = [None] * len(types), [None] * len(types)
        nulls = f.value_stats.null_counts or [None] * len(types)

        def at(seq, i):
            return None if i is None or i < 0 or i >= len(seq) else seq[i]

        def text(pick) -> str:
            return "{" + ", ".join(f"{name}={pick(t, i)}" for name, t, i in order) + "}"

        return (
            text(lambda t, i: java_text(f.row_count if i == -1 else at(nulls, i))),
            text(lambda t, i: java_text(at(lo, i), t)),
            text(lambda t, i: java_text(at(hi, i), t)),
        )


def _keys(table: FileStoreTable):
    cache: dict[int, list] = {}

    def key_text(f: DataFileMeta, data: bytes) -> str | None:
        if f.schema_id not in cache:
            schema = table.schema_for(f.schema_id)
            cache[f.schema_id] = schema.types_of(schema.trimmed_primary_keys) if schema.primary_keys else []
        types = cache[f.schema_id]
        if not types or not data or len(data) <= 4:
            return None
        try:
            values = deserialize_row(data, types)
        except (ValueError, IndexError):
            return None
        return "[" + ", ".join(java_text(v, t) for v, t in zip(values, types)) + "]"

    return key_text


def _file_rows(table: FileStoreTable) -> Iterator[tuple[DataFileMeta, tuple]]:
    """Per live data file of the latest snapshot (every level): the file and the columns
    ``$files`` and ``$file_key_ranges`` share (``partition`` .. ``max_key``)."""
    from paimon_core import paths

    parts = _Partitions(table)
    key_text = _keys(table)
    dirs: dict[tuple, str] = {}
    for e in live_entries(table.manifests, table.snapshots.latest()):
        f = e.file
        where = dirs.get((e.partition, e.bucket))
        if where is None:
            values = deserialize_row(e.partition, parts.codec.types) if parts.codec.types else ()
            part_dir = table.partition_codec.path(values) if parts.codec.types else ""
            where = dirs[(e.partition, e.bucket)] = paths.bucket_dir(table.path, part_dir, e.bucket)
        yield (
            f,
            (
                parts.row_text(e.partition),
                e.bucket,
                f.external_path or paths.join(where, f.file_name),
                f.file_name.rsplit(".", 1)[-1] if "." in f.file_name else "",
                f.schema_id,
                f.level,
                f.row_count,
                f.file_size,
                key_text(f, f.min_key),
                key_text(f, f.max_key),
            ),
        )


def files(table: FileStoreTable) -> pa.Table:
    """One row per live data file of the latest snapshot, every level."""
    stats = _Stats(table)
    rows = [
        shared
        + stats.maps(f)
        + (
            f.min_sequence_number,
            f.max_sequence_number,
            _wall(f),
            f.delete_row_count,
            _FILE_SOURCES.get(f.file_source) if f.file_source is not None else None,
            f.first_row_id,
            None if f.write_cols is None else list(f.write_cols),
        )
        for f, shared in _file_rows(table)
    ]
    return to_table(FILES, rows)


def file_key_ranges(table: FileStoreTable) -> pa.Table:
    """``$files`` without the stats: where each live file is and the key range it holds."""
    return to_table(FILE_KEY_RANGES, [shared + (f.first_row_id,) for f, shared in _file_rows(table)])


def manifests(table: FileStoreTable) -> pa.Table:
    """The data manifests of the latest snapshot (base list, then delta list)."""
    snap = table.snapshots.latest()
    if snap is None:
        return to_table(MANIFESTS, [])
    parts = _Partitions(table)
    rows = [
        (
            m.file_name,
            m.file_size,
            m.num_added_files,
            m.num_deleted_files,
            m.schema_id,
            parts.row_text(m.partition_stats.min_values),
            parts.row_text(m.partition_stats.max_values),
            None,
            None,
        )
        for m in data_manifests(table.manifests, snap)
    ]
    return to_table(MANIFESTS, rows)


def partitions(table: FileStoreTable) -> pa.Table:
    """Per partition with live files: Java's ``PartitionEntry`` figures, sorted by the text.
    ``done`` is false (a partition listed from the files); ``deleted_record_count`` is 0 without
    deletion vectors."""
    from paimon_core.maintain.partitions import partition_stats

    codec = table.partition_codec
    snap = table.snapshots.latest()
    deleted = _deleted_records(table, snap)
    rows = []
    for p in partition_stats(table, snap):
        text = "/".join(
            f"{k}={display_value(v, t, codec.default_name)}"
            for k, v, t in zip(codec.keys, p.values, codec.types)
        )
        rows.append(
            (text, p.record_count, p.file_size_in_bytes, p.file_count, local_wall(p.last_file_creation_time))
            + (None,) * 4
            + (p.total_buckets, False, deleted.get(p.values, 0))
        )
    rows.sort(key=lambda r: r[0])
    return to_table(PARTITIONS, rows)


def _deleted_records(table: FileStoreTable, snap: Snapshot | None) -> dict[tuple, int | None]:
    """Partition values -> rows its deletion vectors delete (None once a vector does not record
    its cardinality); empty without deletion vectors."""
    from paimon_core.metadata.deletion_vectors import deleted_rows, dv_enabled, dv_entries

    if not dv_enabled(table):
        return {}
    by_partition: dict[tuple, list] = {}
    for e in dv_entries(table, snap):
        by_partition.setdefault(table.partition_codec.from_bytes(e.partition), []).append(e)
    return {values: deleted_rows(entries) for values, entries in by_partition.items()}


def buckets(table: FileStoreTable) -> pa.Table:
    """Per (partition, bucket) with live files: record count, size, file count, newest file."""
    from paimon_core.maintain.partitions import creation_millis

    parts = _Partitions(table)
    acc: dict[tuple, list] = {}
    for e in live_entries(table.manifests, table.snapshots.latest()):
        a = acc.setdefault((e.partition, e.bucket), [0, 0, 0, 0])
        a[0] += e.file.row_count
        a[1] += e.file.file_size
        a[2] += 1
        a[3] = max(a[3], creation_millis(e.file))
    rows = [
        (parts.row_text(p), b, n, size, count, local_wall(last))
        for (p, b), (n, size, count, last) in acc.items()
    ]
    rows.sort(key=lambda r: (r[0], r[1]))
    return to_table(BUCKETS, rows)


def table_indexes(table: FileStoreTable) -> pa.Table:
    """The index files of the latest snapshot (hash, deletion-vector and global indexes); a
    global index's row range and field(s), named in the current schema (null once one is
    dropped)."""
    from paimon_core.metadata.index_manifest import IndexStore

    snap = table.snapshots.latest()
    if snap is None or not snap.index_manifest:
        return to_table(TABLE_INDEXES, [])
    parts = _Partitions(table)
    names = {f.id: f.name for f in table.schema.fields}
    rows = []
    for e in IndexStore(table.io, table.path).read_manifest(snap.index_manifest):
        ranges = None
        if e.dv_ranges is not None:
            ranges = [
                {"f0": r[0], "f1": r[1], "f2": r[2], "_CARDINALITY": r[3] if len(r) > 3 else None}
                for r in e.dv_ranges
            ]
        g = e.global_index
        indexed = None
        if g is not None:
            ids = [g.index_field_id, *(g.extra_field_ids or ())]
            indexed = ",".join(names[i] for i in ids) if all(i in names for i in ids) else None
        rows.append(
            (
                parts.row_text(e.partition),
                e.bucket,
                e.index_type,
                e.file_name,
                e.file_size,
                e.row_count,
                ranges,
                None if g is None else g.row_range_start,
                None if g is None else g.row_range_end,
                None if g is None else g.index_field_id,
                indexed,
            )
        )
    return to_table(TABLE_INDEXES, rows)
