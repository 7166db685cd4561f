"""System tables in the library: Java's value formats, edge cases (empty, unpartitioned, evolved
schemas, TTL tags), filters and projection, and names refused by name."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from paimon_core import FileSystemCatalog, InvalidInput, Schema, create_tag
from paimon_core.systables import GLOBAL_SYSTEM_TABLES, TABLE_SYSTEM_TABLES
from paimon_core.systables.columns import java_duration, java_hashmap_order, java_text, local_wall


def test_java_formats():
    assert [java_duration(ms) for ms in (0, 3_600_000, 90_000, 500, 86_400_000 + 1500)] == [
        "PT0S",
        "PT1H",
        "PT1M30S",
        "PT0.5S",
        "PT24H1.5S",
    ]
    assert java_text(None) == "null" and java_text(True) == "true" and java_text(1e20) == "1.0E20"
    assert java_text(dt.datetime(2024, 1, 2, 3, 4)) == "2024-01-02T03:04"
    assert java_text(dt.datetime(2024, 1, 2, 3, 4, 5, 120000)) == "2024-01-02T03:04:05.120"
    assert local_wall(0) == dt.datetime.fromtimestamp(0)


def test_java_hashmap_order():
    """Java's HashMap iteration order (bucket of the spread String.hashCode, then insertion);
    the 13th key grows the table to 32 buckets."""
    assert java_hashmap_order(["bucket", "fields.v.aggregate-function", "merge-engine"]) == [
        "bucket",
        "merge-engine",
        "fields.v.aggregate-function",
    ]
    keys = [f"k{i}" for i in range(13)]
    assert sorted(java_hashmap_order(keys)) == sorted(keys)
    assert java_hashmap_order(["b", "a"]) == ["a", "b"]  # 'a' (97) before 'b' (98) in 16 buckets


@pytest.fixture
def catalog(tmp_path):
    c = FileSystemCatalog(str(tmp_path / "wh"))
    c.create_database("db")
    return c


def test_every_table_answers_on_an_empty_table(catalog):
    catalog.create_table(
        "db.e", Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), primary_keys=("id",))
    )
    counts = {n: catalog.system_table(f"db.e${n}").to_arrow().num_rows for n in TABLE_SYSTEM_TABLES}
    assert counts.pop("schemas") == 1 and counts.pop("aggregation_fields") == 2
    counts.pop("options")  # what create_table stores (the bucket)
    assert set(counts.values()) == {0}
    assert {n: catalog.system_table(f"sys.{n}").to_arrow().num_rows > 0 for n in GLOBAL_SYSTEM_TABLES} == {
        "all_table_options": True,  # db.e: its options and path
        "catalog_options": True,
    }


def test_unpartitioned_evolved_and_ttl_tags(catalog):
    from paimon_core.data.types import parse_type
    from paimon_core.metadata.schema_evolution import AddColumn
    from paimon_core.ops.alter import alter_table

    t = catalog.create_table("db.a", Schema(Schema.parse_columns("id INT, s STRING")))
    t.write_arrow(pa.table({"id": pa.array([1, None], pa.int32()), "s": ["u", "v"]}))
    alter_table(t, [AddColumn("x", parse_type("DOUBLE"))])
    t = catalog.get_table("db.a")
    create_tag(t, "keep", time_retained_ms=90_000)
    files = catalog.system_table("db.a$files").to_arrow().to_pylist()
    assert [(f["partition"], f["min_key"], f["null_value_counts"]) for f in files] == [
        ("{}", None, "{id=1, s=0, x=2}")
    ]
    assert files[0]["min_value_stats"] == "{id=1, s=u, x=null}"
    assert catalog.system_table("db.a$partitions").to_arrow().to_pylist()[0]["partition"] == ""
    tag = catalog.system_table("db.a$tags").to_arrow().to_pylist()[0]
    assert tag["time_retained"] == "PT1M30S" and tag["create_time"] is not None
    schemas = catalog.system_table("db.a$schemas").to_arrow(columns=["schema_id", "fields"])
    assert (
        schemas.column("schema_id").to_pylist() == [0, 1]
        and '"name":"x"' in schemas.column("fields")[1].as_py()
    )


def test_filter_projection_limit_and_refusals(catalog):
    t = catalog.create_table(
        "db.p", Schema(Schema.parse_columns("dt STRING, id INT"), partition_keys=("dt",))
    )
    for i in range(3):
        t.write_arrow(pa.table({"dt": [f"d{i}", "dz"], "id": pa.array([i, i], pa.int32())}))
    st = catalog.system_table("db.p$snapshots")
    assert st.to_arrow(columns=["commit_kind", "snapshot_id"], where="snapshot_id >= 2").to_pylist() == [
        {"commit_kind": "APPEND", "snapshot_id": 2},
        {"commit_kind": "APPEND", "snapshot_id": 3},
    ]
    assert st.to_arrow(limit=1).num_rows == 1
    parts = catalog.system_table("db.p$partitions").to_arrow(where="partition = 'dt=dz'").to_pylist()
    assert [(p["record_count"], p["file_count"]) for p in parts] == [(3, 3)]
    with pytest.raises(InvalidInput, match="has no column 'nope'"):
        st.to_arrow(columns=["nope"])
    with pytest.raises(InvalidInput, match="unknown column 'nope'"):
        st.to_arrow(where="nope = 1")
    with pytest.raises(InvalidInput, match=r"unknown system table '\$snap'"):
        catalog.system_table("db.p$snap")
    with pytest.raises(InvalidInput, match="is a system table"):
        catalog.get_table("db.p$files")
