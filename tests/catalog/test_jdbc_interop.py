"""Java Paimon 0.9's JdbcCatalog and ours on the same catalog database and warehouse (SQLite and
PostgreSQL, JDBC drivers from Debian's packages): Java lists and reads the tables we create and
write, and we list and read Java's."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.metadata.schema import Schema

pytestmark = pytest.mark.interop


def java_options(jdbc, lock: bool) -> dict:
    opts = {"metastore": "jdbc", **jdbc.options}
    if lock:  # Java 0.9 has lock dialects for SQLite and MySQL only
        opts["lock.enabled"] = "true"
    return opts


def test_java_reads_our_catalog_and_we_read_javas(jdbc, java_jdbc, tmp_path):
    wh = str(tmp_path / "wh")
    lock = jdbc.kind == "sqlite"
    ours = create_catalog("jdbc", wh, {**jdbc.options, "lock.enabled": str(lock).lower()})
    t = ours.create_table(
        "ours.events",
        Schema(
            columns=Schema.parse_columns("id BIGINT NOT NULL, name STRING, dt STRING"),
            partition_keys=("dt",),
            primary_keys=("dt", "id"),
            options={"bucket": "2"},
        ),
    )
    t.write_arrow(
        pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"], "dt": ["d1", "d1", "d2"]})
    )
    t.write_arrow(pa.table({"id": pa.array([2], pa.int64()), "name": ["B"], "dt": ["d1"]}))
    ours.create_database("emptydb")
    cat = java_options(jdbc, lock)

    res = java_jdbc.run(
        [
            {"op": "catalog", "action": "list_databases", "warehouse": wh, "catalog": cat},
            {"op": "catalog", "action": "list_tables", "database": "ours", "warehouse": wh, "catalog": cat},
            {"op": "read", "table": "ours.events", "warehouse": wh, "catalog": cat},
            {
                "op": "create_table",
                "table": "java.items",
                "warehouse": wh,
                "catalog": cat,
                "schema": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
                "primary_keys": ["k"],
                "options": {"bucket": "1"},
            },
            {
                "op": "write",
                "table": "java.items",
                "warehouse": wh,
                "catalog": cat,
                "rows": [{"k": 1, "v": "x"}, {"k": 2, "v": "y"}],
            },
            {
                "op": "write",
                "table": "java.items",
                "warehouse": wh,
                "catalog": cat,
                "rows": [{"k": 1, "v": "z"}],
            },
            {
                "op": "catalog",
                "action": "table_exists",
                "table": "java.fs_only",
                "warehouse": wh,
                "catalog": cat,
            },
        ]
    )
    assert res[0]["databases"] == ["emptydb", "ours"]
    assert res[1]["tables"] == ["events"]
    assert sorted((r["id"], r["name"]) for r in res[2]["rows"]) == [(1, "a"), (2, "B"), (3, "c")]
    assert res[6]["exists"] is False

    assert ours.list_databases() == ["emptydb", "java", "ours"]
    assert ours.list_tables("java") == ["items"]
    items = ours.get_table("java.items").read()
    assert sorted(zip(items.column("k").to_pylist(), items.column("v").to_pylist())) == [(1, "z"), (2, "y")]
    # we write to Java's table, Java reads it, then drops ours through its catalog
    ours.get_table("java.items").write_arrow(pa.table({"k": pa.array([3], pa.int32()), "v": ["w"]}))
    res = java_jdbc.run(
        [
            {"op": "read", "table": "java.items", "warehouse": wh, "catalog": cat},
            {
                "op": "catalog",
                "action": "drop_table",
                "table": "ours.events",
                "warehouse": wh,
                "catalog": cat,
            },
        ]
    )
    assert sorted(r["k"] for r in res[0]["rows"]) == [1, 2, 3]
    assert ours.list_tables("ours") == [] and not (tmp_path / "wh" / "ours.db" / "events").exists()
    if lock:
        assert jdbc.rows("SELECT count(*) FROM paimon_distributed_locks") == [(0,)]


def test_database_properties_both_ways(jdbc, java_jdbc, tmp_path):
    wh = str(tmp_path / "wh")
    ours = create_catalog("jdbc", wh, dict(jdbc.options))
    ours.create_database("ours_db", properties={"owner": "data-team", "comment": "customers"})
    cat = java_options(jdbc, lock=False)
    res = java_jdbc.run(
        [
            {
                "op": "catalog",
                "action": "database_properties",
                "database": "ours_db",
                "warehouse": wh,
                "catalog": cat,
            },
            {
                "op": "catalog",
                "action": "create_database",
                "database": "java_db",
                "properties": {"k": "v"},
                "warehouse": wh,
                "catalog": cat,
            },
        ]
    )
    assert res[0]["properties"] == ours.database_properties("ours_db")
    assert {"owner": "data-team", "comment": "customers"}.items() <= res[0]["properties"].items()
    assert ours.database_properties("java_db")["k"] == "v"
    ours.drop_database("java_db")
    assert "java_db" not in ours.list_databases()
