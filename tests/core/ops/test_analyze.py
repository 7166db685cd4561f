"""``analyze``: the statistics file in Java's layout, one ANALYZE snapshot, ``$statistics``, the
file named by later commits while the schema stays (Java's inheritance) and kept by expiry while
a snapshot names it; Java's text of min/max values."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pytest

from paimon_core import paths
from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.types import parse_type
from paimon_core.maintain.expire import expire_snapshots
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.metadata.table_statistics import java_double, java_text, java_timestamp
from paimon_core.ops.alter import alter_table
from paimon_core.ops.analyze import AnalyzeError, analyze
from paimon_core.systables import open_system_table

COLUMNS = (
    "id BIGINT NOT NULL, name STRING, v DOUBLE, d DATE, ts TIMESTAMP(3), amount DECIMAL(10, 2), ok BOOLEAN"
)


def _rows(ids: list[int], names: list) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array(names, pa.string()),
            "v": pa.array([1.5 * i if i % 3 else None for i in ids], pa.float64()),
            "d": pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in ids], pa.date32()),
            "ts": pa.array(
                [dt.datetime(2024, 1, 2, 3, 4, 5, 120000 * (i % 2)) for i in ids], pa.timestamp("ms")
            ),
            "amount": pa.array([None] * n, pa.decimal128(10, 2)),
            "ok": pa.array([i % 2 == 0 for i in ids]),
        }
    )


@pytest.fixture
def table(tmp_path):
    c = FileSystemCatalog(str(tmp_path / "wh"))
    c.create_database("db")
    schema = Schema(Schema.parse_columns(COLUMNS), primary_keys=("id",), options={"bucket": "1"})
    t = c.create_table("db.t", schema)
    t.write_arrow(_rows([1, 2, 3], ["a", "bcd", None]))
    t.write_arrow(_rows([3, 4], ["héé", "x"]))  # id 3 updated: 5 records, 4 after merging
    return c.get_table("db.t")


def _statistics_file(t, snap) -> dict:
    return json.loads(t.io.read_text(paths.statistics_file(t.path, snap.statistics)))


def test_analyze_commits_javas_statistics_file(table):
    before = table.snapshots.latest()
    done = analyze(table)
    assert done is not None
    snap = table.snapshots.latest()
    assert (snap.id, snap.commit_kind) == (before.id + 1, "ANALYZE")
    assert (snap.total_record_count, snap.delta_record_count) == (before.total_record_count, 0)
    assert snap.statistics and snap.statistics.startswith("stat-")
    assert [e.file.file_name for e in live_entries(table.manifests, snap)] == [
        e.file.file_name for e in live_entries(table.manifests, before)
    ]
    size = sum(e.file.file_size for e in live_entries(table.manifests, before))
    raw = table.io.read_text(paths.statistics_file(table.path, snap.statistics))
    assert raw.startswith('{\n  "snapshotId" : 2,\n  "schemaId" : 0,\n  "mergedRecordCount" : 4,')
    obj = json.loads(raw)
    assert obj["mergedRecordSize"] == round(size * 4 / 5)
    assert obj["colStats"]["id"] == {
        "colId": 0,
        "distinctCount": 4,
        "min": "1",
        "max": "4",
        "nullCount": 0,
        "avgLen": 8,
        "maxLen": 8,
    }
    # strings: no min/max, lengths in characters rounded up (a, bcd, héé, x -> 8/4)
    assert obj["colStats"]["name"] == {
        "colId": 1,
        "distinctCount": 4,
        "nullCount": 0,
        "avgLen": 2,
        "maxLen": 3,
    }
    assert obj["colStats"]["v"]["min"] == "1.5" and obj["colStats"]["v"]["max"] == "6.0"
    assert obj["colStats"]["d"]["min"] == str((dt.date(2024, 1, 2) - dt.date(1970, 1, 1)).days)
    assert obj["colStats"]["ts"] == {
        "colId": 4,
        "distinctCount": 2,
        "min": "2024-01-02 03:04:05.000",
        "max": "2024-01-02 03:04:05.120",
        "nullCount": 0,
        "avgLen": 8,
        "maxLen": 8,
    }
    # all NULL: no min/max; a DECIMAL(10, 2) is 8 bytes wide
    assert obj["colStats"]["amount"] == {
        "colId": 5,
        "distinctCount": 0,
        "nullCount": 4,
        "avgLen": 8,
        "maxLen": 8,
    }
    assert obj["colStats"]["ok"]["min"] == "false" and obj["colStats"]["ok"]["max"] == "true"


def test_statistics_system_table_shows_them(table):
    analyze(table, ["id", "name"])
    rows = open_system_table(FileSystemCatalog(str(table.path).rsplit("/db.db", 1)[0]), "db.t$statistics")
    (row,) = rows.to_arrow().to_pylist()
    assert (row["snapshot_id"], row["schema_id"], row["mergedRecordCount"]) == (2, 0, 4)
    assert list(json.loads(row["colstat"])) == ["id", "name"]


def test_later_commits_name_the_statistics_until_the_schema_changes(table):
    """Java's commit names the previous snapshot's statistics file while its schema id is the
    table's (before: our commits dropped it, and $statistics went empty after any write)."""
    analyze(table)
    name = table.snapshots.latest().statistics
    table.write_arrow(_rows([9], ["z"]))
    assert table.snapshots.latest().statistics == name
    t = alter_table(table, [AddColumn("extra", parse_type("INT"))])
    t.write_arrow(_rows([10], ["y"]).append_column("extra", pa.array([1], pa.int32())))
    assert t.snapshots.latest().statistics is None


def test_expiry_keeps_the_file_a_live_snapshot_names(table):
    analyze(table)
    name = table.snapshots.latest().statistics
    table.write_arrow(_rows([9], ["z"]))
    table.write_arrow(_rows([10], ["y"]))
    expire_snapshots(table, older_than_ms=None, retain_min=1, retain_max=1)
    assert table.snapshots.list_ids() == [table.snapshots.latest().id]  # the ANALYZE one is gone
    assert table.io.exists(paths.statistics_file(table.path, name))
    assert _statistics_file(table, table.snapshots.latest())["snapshotId"] == 2


def test_columns_are_checked(table):
    with pytest.raises(AnalyzeError, match="'nope' is not in db.t"):
        analyze(table, ["nope"])
    assert table.snapshots.latest().commit_kind != "ANALYZE"
    assert not table.io.exists(paths.join(table.path, "statistics"))


def test_nested_columns_are_refused_and_skipped(tmp_path):
    c = FileSystemCatalog(str(tmp_path / "wh"))
    c.create_database("db")
    t = c.create_table("db.n", Schema(Schema.parse_columns("id INT, tags ARRAY<STRING>")))
    t.write_arrow(
        pa.table({"id": pa.array([1], pa.int32()), "tags": pa.array([["a"]], pa.list_(pa.string()))})
    )
    with pytest.raises(AnalyzeError, match="'tags': ANALYZE does not support type ARRAY<STRING>"):
        analyze(t, ["tags"])
    done = analyze(t)
    assert done is not None and list(done.statistics.col_stats) == ["id"]


def test_a_table_without_snapshots_gets_none(tmp_path):
    c = FileSystemCatalog(str(tmp_path / "wh"))
    c.create_database("db")
    t = c.create_table("db.e", Schema(Schema.parse_columns("id INT")))
    assert analyze(t) is None
    assert t.snapshots.latest() is None


@pytest.mark.parametrize(
    ("value", "single", "text"),
    [
        (1e7, False, "1.0E7"),
        (9999999.0, False, "9999999.0"),
        (1.234e-5, False, "1.234E-5"),
        (0.001, False, "0.001"),
        (100.0, False, "100.0"),
        (-2.5, False, "-2.5"),
        (12345678.9, False, "1.23456789E7"),
        (0.0, False, "0.0"),
        (-0.0, False, "-0.0"),
        (float("nan"), False, "NaN"),
        (float("-inf"), False, "-Infinity"),
        (0.1, True, "0.1"),
        (3.4028234663852886e38, True, "3.4028235E38"),
    ],
)
def test_java_double_text(value, single, text):
    assert java_double(value, single) == text


def test_java_value_texts():
    assert java_timestamp(dt.datetime(2024, 1, 2, 3, 4, 5, 120000), 6) == "2024-01-02 03:04:05.120000"
    assert java_timestamp(dt.datetime(2024, 1, 2, 3, 4, 5), 0) == "2024-01-02 03:04:05"
    assert java_timestamp(dt.datetime(2024, 1, 2, 3, 4, 5), 9, nanos=7) == "2024-01-02 03:04:05.000000007"
    assert java_text(dt.date(1970, 1, 2), "DATE") == "1"
    assert java_text(dt.time(0, 0, 1, 500000), "TIME") == "1500"
    from decimal import Decimal

    assert java_text(Decimal("-1.50"), "DECIMAL") == "-1.50"
    assert java_text(True, "BOOLEAN") == "true"
