"""System tables in the library: Java's value formats, edge cases (empty, unpartitioned, evolved
schemas, TTL tags), filters and projection, and names refused by name."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from paimon_core import FileSystemCatalog, InvalidInput, Schema, create_tag
from paimon_core.catalog import create_catalog
from paimon_core.errors import NotFound
from paimon_core.systables import GLOBAL_SYSTEM_TABLES, TABLE_SYSTEM_TABLES
from paimon_core.systables.columns import (
    java_duration,
    java_hashmap_order,
    java_objects_hash,
    java_text,
    local_wall,
)


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
    assert java_objects_hash("db", "t") == 31 * (31 + 3198) + 116  # Objects.hash of an Identifier
    assert java_hashmap_order([("x", 2), ("y", 1)], lambda k: k[1]) == [("y", 1), ("x", 2)]


@pytest.fixture
def catalog(tmp_path):
    c = FileSystemCatalog(str(tmp_path / "wh"))
    c.create_database("db")
    return c


def test_every_table_answers_on_an_empty_table(catalog):
    catalog.create_table(
        "db.e", Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), primary_keys=("id",))
    )
    names = [n for n in TABLE_SYSTEM_TABLES if n != "row_tracking"]  # append tables only (below)
    counts = {n: catalog.system_table(f"db.e${n}").to_arrow().num_rows for n in names}
    assert counts.pop("schemas") == 1 and counts.pop("aggregation_fields") == 2
    counts.pop("options")  # what create_table stores (the bucket)
    assert set(counts.values()) == {0}
    assert catalog.system_table("sys.all_table_options").to_arrow().num_rows > 0  # db.e's options, path
    assert GLOBAL_SYSTEM_TABLES == ("tables", "partitions", "all_table_options", "catalog_options")
    with pytest.raises(NotFound, match="catalog-options-table.enabled=true"):  # as Java 2.0
        catalog.system_table("sys.catalog_options")
    enabled = create_catalog("filesystem", catalog.warehouse, {"catalog-options-table.enabled": "true"})
    rows = enabled.system_table("sys.catalog_options").to_arrow().to_pylist()
    assert rows == [
        {"key": "catalog-options-table.enabled", "value": "true"},
        {"key": "warehouse", "value": catalog.warehouse},
    ]
    with pytest.raises(InvalidInput, match=r"db.e does not track rows: \$row_tracking needs"):
        catalog.system_table("db.e$row_tracking")
    options = {"row-tracking.enabled": "true"}
    catalog.create_table("db.r", Schema(Schema.parse_columns("id INT"), options=options))
    tracked = catalog.system_table("db.r$row_tracking")
    assert tracked.field_names == ["id", "_ROW_ID", "_SEQUENCE_NUMBER"] and tracked.to_arrow().num_rows == 0


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


def test_global_indexes_and_deletion_counts(catalog, monkeypatch):
    """Java 2.0's columns from index entries: a global index's row range and its fields named in
    the current schema (null once one is gone); a partition's deleted rows null once a deletion
    vector does not record its cardinality."""
    from dataclasses import replace

    from paimon_core.metadata.index_manifest import GlobalIndexMeta, IndexStore

    t = catalog.create_table(
        "db.g",
        Schema(
            Schema.parse_columns("dt STRING, k BIGINT NOT NULL, v STRING"),
            partition_keys=("dt",),
            primary_keys=("dt", "k"),
            options={"bucket": "2", "deletion-vectors.enabled": "true"},
        ),
    )
    t.write_arrow(pa.table({"dt": ["a", "a", "b"], "k": [1, 2, 3], "v": ["x", None, "y"]}))
    t.write_arrow(pa.table({"dt": ["a"], "k": [1], "v": ["z"]}))  # a vector deletes k=1's old row
    read = IndexStore.read_manifest
    ids = {f.name: f.id for f in t.schema.fields}

    def with_globals(self, name):
        entries = read(self, name)
        dv = next(e for e in entries if e.dv_ranges)
        no_card = replace(dv, file_name="n", dv_ranges=tuple(r[:3] + (None,) for r in dv.dv_ranges or ()))
        both = GlobalIndexMeta(0, 9, ids["v"], (ids["k"],))
        gone = GlobalIndexMeta(10, 19, 99)
        return [
            *entries,
            no_card,
            replace(dv, file_name="g1", global_index=both, dv_ranges=None),
            replace(dv, file_name="g2", global_index=gone, dv_ranges=None),
        ]

    before = catalog.system_table("db.g$partitions").to_arrow().to_pylist()
    assert [(p["partition"], p["deleted_record_count"], p["total_buckets"], p["done"]) for p in before] == [
        ("dt=a", 1, 2, False),
        ("dt=b", 0, 2, False),
    ]
    monkeypatch.setattr(IndexStore, "read_manifest", with_globals)
    parts = catalog.system_table("db.g$partitions").to_arrow(columns=["deleted_record_count"])
    assert parts.column(0).to_pylist() == [None, 0]
    cols = ["file_name", "row_range_start", "row_range_end", "index_field_id", "index_field_name"]
    rows = catalog.system_table("db.g$table_indexes").to_arrow(columns=cols).to_pylist()
    assert [tuple(r.values())[1:] for r in rows if r["file_name"] in ("g1", "g2")] == [
        (0, 9, ids["v"], "v,k"),
        (10, 19, 99, None),
    ]


def test_global_tables_and_partitions(catalog):
    """``sys.tables``: one row per table (no snapshot figures outside REST, audit options read
    as Java reads them); ``sys.partitions``: one row per partition of each partitioned table,
    NULL as the default partition name; both empty on an empty catalog."""
    assert catalog.system_table("sys.tables").to_arrow().num_rows == 0
    assert catalog.system_table("sys.partitions").to_arrow().num_rows == 0
    audit = {"owner": "ann", "createdAt": "1700000000000", "updatedBy": "bo"}
    t = catalog.create_table(
        "db.p",
        Schema(Schema.parse_columns("dt STRING, h INT, id INT"), partition_keys=("dt", "h"), options=audit),
    )
    catalog.create_table("db.k", Schema(Schema.parse_columns("id INT NOT NULL"), primary_keys=("id",)))
    catalog.create_database("db2")
    catalog.create_table("db2.e", Schema(Schema.parse_columns("dt STRING, id INT"), partition_keys=("dt",)))
    t.write_arrow(
        pa.table({"dt": ["a", "a", None], "h": pa.array([1, 1, None], pa.int32()), "id": [1, 2, 3]})
    )
    rows = {r["table_name"]: r for r in catalog.system_table("sys.tables").to_arrow().to_pylist()}
    assert sorted(rows) == ["e", "k", "p"]
    p = rows["p"]
    assert (p["database_name"], p["table_type"], p["partitioned"], p["primary_key"]) == (
        "db",
        "table",
        True,
        False,
    )
    assert (p["owner"], p["created_at"], p["created_by"], p["updated_at"], p["updated_by"]) == (
        "ann",
        1_700_000_000_000,
        None,
        None,
        "bo",
    )
    assert (rows["k"]["partitioned"], rows["k"]["primary_key"], rows["k"]["owner"]) == (False, True, None)
    assert {p["record_count"] for p in rows.values()} == {None}  # Java: only a catalog managing versions
    parts = catalog.system_table("sys.partitions").to_arrow().to_pylist()
    assert [
        (r["table_name"], r["partition_name"], r["record_count"], r["file_count"], r["done"]) for r in parts
    ] == [
        ("p", "dt=__DEFAULT_PARTITION__/h=__DEFAULT_PARTITION__", 1, 1, False),
        ("p", "dt=a/h=1", 2, 1, False),
    ]
    assert parts[0]["last_file_creation_time"] > 0
    assert (
        catalog.system_table("sys.partitions").to_arrow(where="table_name = 'p'", columns=["done"]).num_rows
        == 2
    )
    catalog.create_table("db.bad", Schema(Schema.parse_columns("id INT"), options={"updatedAt": "soon"}))
    with pytest.raises(InvalidInput, match=r"db.bad has option updatedAt='soon', which is not a long"):
        catalog.system_table("sys.tables").to_arrow()


def test_global_tables_of_a_rest_catalog(rest_server):
    """Through the REST server: the snapshot figures it answers (null without a snapshot), the
    audit options of its table responses (absent: Java's 0 and ``null`` texts) and its
    partition listing, ``done`` included."""
    from paimon_core.maintain import write_success_files

    c = create_catalog("rest", "unused", {"uri": rest_server.uri, "token": rest_server.token})
    c.create_database("systables_rest")
    t = c.create_table(
        "systables_rest.p", Schema(Schema.parse_columns("dt STRING, id INT"), partition_keys=("dt",))
    )
    c.create_table("systables_rest.e", Schema(Schema.parse_columns("id INT")))
    t.write_arrow(pa.table({"dt": ["a", "b", "b"], "id": pa.array([1, 2, 3], pa.int32())}))
    write_success_files(t, [("b",)])
    rows = c.system_table("sys.tables").to_arrow(where="database_name = 'systables_rest'").to_pylist()
    got = {
        r["table_name"]: (r["record_count"], r["file_count"], r["created_at"], r["created_by"]) for r in rows
    }
    assert got == {"p": (3, 2, 0, "null"), "e": (None, None, 0, "null")}
    parts = c.system_table("sys.partitions").to_arrow(where="database_name = 'systables_rest'").to_pylist()
    assert [(r["partition_name"], r["record_count"], r["done"]) for r in parts] == [
        ("dt=a", 1, False),
        ("dt=b", 2, True),
    ]
