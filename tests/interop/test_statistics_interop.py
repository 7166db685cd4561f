"""Table statistics across implementations: Java Paimon shows the statistics our ``analyze``
commits (``$statistics``, read by its ``StatsFileHandler``), and we read the file Java's ANALYZE
commit writes (Jackson's layout), keep naming it on our commits, and Java then still sees it."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from paimon_core import FileSystemCatalog, Schema
from paimon_core.ops.analyze import analyze
from paimon_core.systables import open_system_table

pytestmark = pytest.mark.slow


def _table(wh: str, name: str):
    c = FileSystemCatalog(wh)
    c.create_database("db", ignore_if_exists=True)
    schema = Schema(
        Schema.parse_columns(
            "id BIGINT NOT NULL, name STRING, v DOUBLE, ts TIMESTAMP(6), amount DECIMAL(12, 3)"
        ),
        primary_keys=("id",),
        options={"bucket": "1"},
    )
    t = c.create_table(f"db.{name}", schema)
    t.write_arrow(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int64()),
                "name": ["a", None, "ccc"],
                "v": [0.5, 1e10, None],
                "ts": pa.array([1_700_000_000_123_000, 0, None], pa.timestamp("us")),
                "amount": pa.array([None, None, None], pa.decimal128(12, 3)),
            }
        )
    )
    return c, c.get_table(f"db.{name}")


def _ours(c, name: str) -> dict:
    (row,) = open_system_table(c, f"{name}$statistics").to_arrow().to_pylist()
    return row


def _javas(java, wh: str, name: str) -> dict:
    (res,) = java.run([{"op": "system_table", "warehouse": wh, "name": f"{name}$statistics"}])
    (row,) = res["rows"]
    row.pop("_row_kind", None)
    return row


def test_java_reads_our_statistics(java, tmp_path):
    wh = str(tmp_path / "wh")
    c, t = _table(wh, "ours")
    done = analyze(t)
    assert done is not None
    theirs = _javas(java, wh, "db.ours")
    mine = _ours(c, "db.ours")
    assert {k: v for k, v in theirs.items() if k != "colstat"} == {
        k: v for k, v in mine.items() if k != "colstat"
    }
    # Java parses each min/max with the column's serializer and writes them back unchanged
    assert json.loads(theirs["colstat"]) == json.loads(mine["colstat"])
    assert json.loads(mine["colstat"])["ts"]["max"] == "2023-11-14 22:13:20.123000"


def test_we_read_javas_statistics_and_keep_them(java, tmp_path):
    wh = str(tmp_path / "wh")
    c, t = _table(wh, "javas")
    snap = t.snapshots.latest()
    stats = {
        "snapshotId": snap.id,
        "schemaId": snap.schema_id,
        "mergedRecordCount": 3,
        "mergedRecordSize": 1234,
        "colStats": {"id": {"colId": 0, "distinctCount": 3, "min": "1", "max": "3", "nullCount": 0}},
    }
    (res,) = java.run([{"op": "analyze", "warehouse": wh, "table": "db.javas", "statistics": stats}])
    t = c.get_table("db.javas")
    latest = t.snapshots.latest()
    assert latest.commit_kind == "ANALYZE" and latest.statistics == res["statistics"]
    mine = _ours(c, "db.javas")
    assert (mine["snapshot_id"], mine["mergedRecordCount"], mine["mergedRecordSize"]) == (snap.id, 3, 1234)
    assert json.loads(mine["colstat"]) == stats["colStats"]
    t.write_arrow(pa.table({"id": pa.array([4], pa.int64())}).append_column("name", pa.array(["d"])))
    assert c.get_table("db.javas").snapshots.latest().statistics == res["statistics"]
    assert _javas(java, wh, "db.javas")["mergedRecordSize"] == 1234
