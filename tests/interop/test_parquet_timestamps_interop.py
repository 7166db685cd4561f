"""TIMESTAMP(0..9) and TIMESTAMP_LTZ(0..9) side by side in one Parquet file (issue #23): the
nanosecond columns force INT96, and the others keep Java's annotated INT64 layout
(core/paimon_core/fileformat/parquet_footer.py). Java 0.9, Java 1.4.2 and pypaimon 2.1 read our file exactly;
we read Java's file of the same rows exactly."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop import data as D
from tests.interop.harness import arrow_from_rows, assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

COLUMNS = [
    ("id", "INT"),
    ("ts0", "TIMESTAMP(0)"),
    ("ts3", "TIMESTAMP(3)"),
    ("ts6", "TIMESTAMP(6)"),
    ("ts9", "TIMESTAMP(9)"),
    ("ltz0", "TIMESTAMP(0) WITH LOCAL TIME ZONE"),
    ("ltz3", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
    ("ltz6", "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
    ("ltz9", "TIMESTAMP(9) WITH LOCAL TIME ZONE"),
    # nested: INT64 with Java's annotation at precision <= 6 (Java 0.9 fails on a nested INT96
    # TIMESTAMP(3)), INT96 at 7..9
    ("a3", "ARRAY<TIMESTAMP(3)>"),
    ("r", "ROW<l6 TIMESTAMP(6) WITH LOCAL TIME ZONE, t9 TIMESTAMP(9), b BIGINT>"),
    ("m", "MAP<STRING, TIMESTAMP(3)>"),
]
# before and after 1970 for p <= 6 (values 1000x off would show); Java 0.9 rejects the INT96 of
# an instant before 1970 with sub-second digits, so the nanosecond columns stay after it
ROWS = [
    {
        "id": 1,
        "ts0": "2024-01-01T12:34:56",
        "ts3": "2024-01-01T12:34:56.123",
        "ts6": "2024-01-01T12:34:56.123456",
        "ts9": "2024-01-01T12:34:56.123456789",
        "ltz0": "2024-01-01T12:34:56Z",
        "ltz3": "2024-01-01T12:34:56.123Z",
        "ltz6": "2024-01-01T12:34:56.123456Z",
        "ltz9": "2024-01-01T12:34:56.123456789Z",
        "a3": ["2024-01-01T12:34:56.123", None, "1969-12-31T23:59:59.999"],
        "r": {"l6": "2024-01-01T12:34:56.123456Z", "t9": "2024-01-01T12:34:56.123456789", "b": 7},
        "m": {"k": "1969-07-20T20:17:40.250"},
    },
    {
        "id": 2,
        "ts0": "1969-07-20T20:17:40",
        "ts3": "1969-12-31T23:59:59.999",
        "ts6": "1900-01-01T00:00:00.000001",
        "ts9": "1970-01-01T00:00:00.000000001",
        "ltz0": "1969-07-20T20:17:40Z",
        "ltz3": "1969-12-31T23:59:59.999Z",
        "ltz6": "1900-01-01T00:00:00.000001Z",
        "ltz9": "2262-04-11T23:47:16.854775807Z",
        "a3": [],
        "r": {"l6": None, "t9": None, "b": 0},  # not all NULL: Java 0.9 reads that ROW as NULL
        "m": {"z": None},
    },
    {"id": 3, **{c: None for c, _ in COLUMNS[1:]}},
]
SPEC = D.TableSpec("ts.ours", COLUMNS, [D.Commit(ROWS)], options={"bucket": "-1", "file.format": "parquet"})
JAVA_SPEC = D.TableSpec("ts.java", COLUMNS, [D.Commit(ROWS)], options=SPEC.options)


def _ours(wh: str, name: str) -> list[dict]:
    t = FileSystemCatalog(wh).get_table(name)
    return rows_from_arrow(t.read(), {f.name: str(f.type) for f in t.schema.fields})


@pytest.fixture(scope="module")
def our_table(tmp_path_factory) -> str:
    wh = str(tmp_path_factory.mktemp("ts_parquet"))
    cat = FileSystemCatalog(wh)
    cat.create_table(SPEC.name, Schema(Schema.parse_columns(D.schema_ddl(COLUMNS)), options=SPEC.options))
    t = cat.get_table(SPEC.name)
    t.write_arrow(arrow_from_rows(ROWS, t.schema.arrow_schema()))
    return wh


def test_our_file_has_javas_layout(our_table):
    (f,) = Path(our_table).rglob("bucket-0/*.parquet")
    kinds = {c.name: (c.physical_type, str(c.logical_type)) for c in pq.ParquetFile(f).schema}
    assert kinds["ts9"][0] == kinds["ltz9"][0] == "INT96"
    for c, unit in [("0", "milliseconds"), ("3", "milliseconds"), ("6", "microseconds")]:
        assert kinds["ts" + c][0] == kinds["ltz" + c][0] == "INT64"
        assert f"isAdjustedToUTC=false, timeUnit={unit}" in kinds["ts" + c][1]
        assert f"isAdjustedToUTC=true, timeUnit={unit}" in kinds["ltz" + c][1]
    assert_same_rows(_ours(our_table, SPEC.name), ROWS, label_a="paimon-cli", label_b="rows written")


def test_java_reads_ours_and_we_read_javas(our_table, java, tmp_path):
    wh = str(tmp_path)
    res = java.run(
        [
            {"op": "read", "warehouse": our_table, "table": SPEC.name},
            JAVA_SPEC.create_request(wh),
            JAVA_SPEC.write_request(wh, JAVA_SPEC.commits[0]),
        ]
    )
    assert_same_rows(res[0]["rows"], ROWS, label_a=f"Java {java.version} on our file", label_b="rows written")
    assert_same_rows(
        _ours(wh, JAVA_SPEC.name), ROWS, label_a="paimon-cli on Java's file", label_b="rows written"
    )


def test_pypaimon_reads_ours(our_table, pypaimon):
    (res,) = pypaimon.run([{"op": "read", "warehouse": our_table, "table": SPEC.name}])
    assert_same_rows(res["rows"], ROWS, label_a="pypaimon 2.1.0 on our file", label_b="rows written")
