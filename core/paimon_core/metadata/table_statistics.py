"""A table's statistics file (Java's ``Statistics`` / ``ColStats``, written by ANALYZE).

``statistics/stat-<uuid>-<n>`` (Java 0.9 names them ``stats-...``: any name is read, since a
snapshot's ``statistics`` field names the file) holds one JSON object in Jackson's pretty layout:
``snapshotId`` and ``schemaId`` (the snapshot analysed), ``mergedRecordCount`` and
``mergedRecordSize`` (omitted when unknown), ``colStats``: column name -> ``{colId,
distinctCount, min, max, nullCount, avgLen, maxLen}``, each member but ``colId`` omitted when
unknown. ``min``/``max`` are Java's ``serializeToString`` text of the column's internal value
(``java_text``).

Invariants: a file is written once under a fresh name and never changed; a snapshot names at most
one; a commit that is not an ANALYZE names the previous snapshot's file while the schema is the
one that file was computed on (Java's inheritance), so statistics survive appends until the schema
changes.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from paimon_core import paths
from paimon_core.metadata import jsonfmt

PREFIX = "stat-"


@dataclass(frozen=True)
class ColStats:
    col_id: int
    distinct_count: int | None = None
    min: str | None = None
    max: str | None = None
    null_count: int | None = None
    avg_len: int | None = None
    max_len: int | None = None

    def to_obj(self) -> dict:
        obj: dict = {"colId": self.col_id}
        for key, value in (
            ("distinctCount", self.distinct_count),
            ("min", self.min),
            ("max", self.max),
            ("nullCount", self.null_count),
            ("avgLen", self.avg_len),
            ("maxLen", self.max_len),
        ):
            if value is not None:
                obj[key] = value
        return obj

    @staticmethod
    def from_obj(obj: dict) -> ColStats:
        return ColStats(
            obj["colId"],
            obj.get("distinctCount"),
            obj.get("min"),
            obj.get("max"),
            obj.get("nullCount"),
            obj.get("avgLen"),
            obj.get("maxLen"),
        )


@dataclass(frozen=True)
class TableStatistics:
    snapshot_id: int
    schema_id: int
    merged_record_count: int | None = None
    merged_record_size: int | None = None
    col_stats: dict[str, ColStats] = field(default_factory=dict)

    def to_json(self) -> str:
        obj: dict = {"snapshotId": self.snapshot_id, "schemaId": self.schema_id}
        if self.merged_record_count is not None:
            obj["mergedRecordCount"] = self.merged_record_count
        if self.merged_record_size is not None:
            obj["mergedRecordSize"] = self.merged_record_size
        obj["colStats"] = {name: c.to_obj() for name, c in self.col_stats.items()}
        return jsonfmt.dumps(obj)

    @staticmethod
    def from_json(text: str) -> TableStatistics:
        obj = json.loads(text)
        cols = obj.get("colStats") or {}
        return TableStatistics(
            obj["snapshotId"],
            obj["schemaId"],
            obj.get("mergedRecordCount"),
            obj.get("mergedRecordSize"),
            {name: ColStats.from_obj(c) for name, c in cols.items()},
        )


def new_file_name() -> str:
    return f"{PREFIX}{uuid.uuid4()}-0"


def write_statistics(io, table_path: str, stats: TableStatistics) -> str:
    """Write ``stats`` under a fresh name in ``statistics/``; returns the name."""
    name = new_file_name()
    io.write_bytes(paths.statistics_file(table_path, name), stats.to_json().encode())
    return name


def read_statistics(io, table_path: str, name: str) -> TableStatistics:
    return TableStatistics.from_json(io.read_text(paths.statistics_file(table_path, name)))


def inherited(io, table_path: str, name: str | None, schema_id: int) -> str | None:
    """The statistics file a new snapshot of schema ``schema_id`` names after one that named
    ``name``: the same file while it was computed on that schema (Java's commit), else none
    (also when the file is gone or unreadable: statistics are an optimizer's hint)."""
    if not name:
        return None
    try:
        stats = read_statistics(io, table_path, name)
    except (OSError, ValueError, KeyError):
        return None
    return name if stats.schema_id == schema_id else None


# ---- Java's text of a value (``InternalSerializers.create(type).serializeToString``)


def java_double(v: float, single: bool = False) -> str:
    """``Double.toString`` (``Float.toString`` when ``single``): the shortest digits that read
    back, in plain notation for 1e-3 <= |v| < 1e7 (at least one digit after the point), else
    ``d.dddE[-]n``."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if np.signbit(v) else "0.0"
    x = np.float32(v) if single else np.float64(v)
    sci = np.format_float_scientific(x, unique=True, trim="0", exp_digits=1)  # -d.ddde+n
    mantissa, exp = sci.split("e")
    e = int(exp)
    if 1e-3 <= abs(v) < 1e7:
        text = np.format_float_positional(x, unique=True, trim="0")
        return text if "." in text and not text.endswith(".") else text.rstrip(".") + ".0"
    if "." not in mantissa or mantissa.endswith("."):
        mantissa = mantissa.rstrip(".") + ".0"
    return f"{mantissa}E{e}"


def java_timestamp(value: dt.datetime, precision: int, nanos: int | None = None) -> str:
    """``DateTimeUtils.formatTimestamp``: ``yyyy-MM-dd HH:mm:ss`` and the nine-digit fraction with
    trailing zeros dropped down to ``precision`` digits (none at precision 0 and no fraction)."""
    frac = f"{value.microsecond * 1000 if nanos is None else nanos:09d}"
    while len(frac) > precision and frac.endswith("0"):
        frac = frac[:-1]
    base = f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value:%H:%M:%S}"
    return f"{base}.{frac}" if frac else base


def java_text(value, type_root: str, precision: int = 0) -> str:
    """A value of a column of Paimon type ``type_root`` as Java's statistics write it: integers,
    DATE (days since the epoch) and TIME (milliseconds of the day) as digits, booleans
    ``true``/``false``, FLOAT/DOUBLE as Java prints them, DECIMAL plain with its scale,
    TIMESTAMP as ``java_timestamp``."""
    if type_root == "BOOLEAN":
        return "true" if value else "false"
    if type_root in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        return str(int(value))
    if type_root in ("FLOAT", "DOUBLE"):
        return java_double(float(value), single=type_root == "FLOAT")
    if type_root == "DECIMAL":
        return format(Decimal(value), "f")
    if type_root == "DATE":
        return str((value - dt.date(1970, 1, 1)).days)
    if type_root == "TIME":
        return str((value.hour * 3600 + value.minute * 60 + value.second) * 1000 + value.microsecond // 1000)
    if type_root.startswith("TIMESTAMP"):
        return java_timestamp(value.replace(tzinfo=None) if value.tzinfo else value, precision)
    raise ValueError(f"no statistics text for {type_root}")
