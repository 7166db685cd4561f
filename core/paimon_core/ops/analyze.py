"""``analyze``: a table's statistics computed from its latest snapshot and committed as one
ANALYZE snapshot (what Java's ``ANALYZE TABLE ... COMPUTE STATISTICS [FOR COLUMNS ...]`` does).

Figures (Java's meaning, exact where Spark estimates): ``mergedRecordCount`` the rows a read
returns (after merging by key), ``mergedRecordSize`` the live data files' bytes scaled by merged /
total records; per column ``nullCount``, ``distinctCount`` (non-NULL values), ``min``/``max`` (for
numbers, booleans, DATE and TIMESTAMP, as Java's text), ``avgLen``/``maxLen`` (characters of
strings and bytes of binaries, rounded up; Spark's fixed width for the other types).

Invariants: the statistics describe the snapshot they name; the commit adds no data file, and a
table without a snapshot gets none (Java skips it too).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
from paimon_core.data.types import AtomicType, DataField
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.metadata.table_statistics import ColStats, TableStatistics, java_text

# Spark's defaultSize of each type: the avgLen/maxLen of fixed-width columns
_WIDTH = {
    "BOOLEAN": 1,
    "TINYINT": 1,
    "SMALLINT": 2,
    "INT": 4,
    "BIGINT": 8,
    "FLOAT": 4,
    "DOUBLE": 8,
    "DATE": 4,
    "TIMESTAMP": 8,
    "TIMESTAMP_LTZ": 8,
}
_TEXT = {"CHAR": 20, "VARCHAR": 20, "BINARY": 100, "VARBINARY": 100}
_MIN_MAX = {*_WIDTH, "DECIMAL"}


class AnalyzeError(ValueError):
    """A column that cannot be analysed (unknown, or of a type Java's ANALYZE refuses)."""


@dataclass(frozen=True)
class Analyzed:
    statistics: TableStatistics
    snapshot: Snapshot  # the ANALYZE snapshot that names the statistics file


def analyzable(field: DataField) -> bool:
    t = field.type
    return isinstance(t, AtomicType) and (t.root in _MIN_MAX or t.root in _TEXT)


def pick_columns(table, names: list[str] | None) -> list[DataField]:
    """The fields named (in the given order), or every analysable field when ``names`` is None."""
    fields = {f.name: f for f in table.schema.fields}
    if names is None:
        return [f for f in table.schema.fields if analyzable(f)]
    out = []
    for name in names:
        if name not in fields:
            raise AnalyzeError(f"column {name!r} is not in {table.identifier} (columns: {', '.join(fields)})")
        if not analyzable(fields[name]):
            raise AnalyzeError(f"column {name!r}: ANALYZE does not support type {fields[name].type}")
        out.append(fields[name])
    return out


def compute(table, snap: Snapshot, columns: list[DataField]) -> TableStatistics:
    """The statistics of ``snap`` for ``columns``."""
    splits = table.plan(snap)
    names = [f.name for f in columns] or table.schema.field_names[:1]
    data = table.new_read(names).to_arrow(splits)
    merged = data.num_rows
    total_size = sum(e.file.file_size for e in live_entries(table.manifests, snap))
    total = snap.total_record_count or 0
    size = total_size if total <= 0 else round(total_size * merged / total)
    cols = {f.name: column_stats(f, data.column(f.name)) for f in columns}
    return TableStatistics(snap.id, snap.schema_id, merged, size, cols)


def column_stats(field: DataField, col) -> ColStats:
    t = field.type
    assert isinstance(t, AtomicType)
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    nulls = arr.null_count
    distinct = pc.count_distinct(arr, mode="only_valid").as_py() if len(arr) else 0
    low = high = None
    if t.root in _MIN_MAX and len(arr) > nulls:
        low, high = _min_max(arr, t)
    if t.root in _TEXT:
        lengths = pc.utf8_length(arr) if t.root in ("CHAR", "VARCHAR") else pc.binary_length(arr)
        mean = pc.mean(lengths).as_py()
        avg = _TEXT[t.root] if mean is None else math.ceil(mean)
        longest = pc.max(lengths).as_py()
        width = _TEXT[t.root] if longest is None else longest
    else:
        avg = width = _WIDTH.get(t.root, 8 if (t.precision or 0) <= 18 else 16)
    return ColStats(field.id, distinct, low, high, nulls, avg, width)


def _min_max(arr: pa.Array, t: AtomicType) -> tuple[str, str]:
    if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        unit = arr.type.unit
        ticks = arr.view(pa.int64())
        mm = pc.min_max(ticks)
        precision = t.precision if t.precision is not None else 6
        return tuple(_timestamp_text(mm[k].as_py(), unit, precision) for k in ("min", "max"))  # type: ignore[return-value]
    mm = pc.min_max(arr)
    return java_text(mm["min"].as_py(), t.root), java_text(mm["max"].as_py(), t.root)


def _timestamp_text(ticks: int, unit: str, precision: int) -> str:
    from paimon_core.metadata.table_statistics import java_timestamp

    per_second = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    seconds, rest = divmod(ticks, per_second)
    nanos = rest * (1_000_000_000 // per_second)
    when = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds)
    return java_timestamp(when, precision, nanos)


def analyze(table, columns: list[str] | None = None) -> Analyzed | None:
    """Compute and commit the statistics of ``table``'s latest snapshot (None: no snapshot)."""
    snap = table.snapshots.latest()
    if snap is None:
        return None
    stats = compute(table, snap, pick_columns(table, columns))
    landed = FileStoreCommit(table, CommitOptions(statistics=stats)).commit([])
    assert landed is not None  # an ANALYZE commit always makes a snapshot
    return Analyzed(stats, landed)
