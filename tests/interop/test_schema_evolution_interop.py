"""Evolved tables: Java Paimon 0.9 reads what we write across schema changes (added, dropped,
renamed and widened columns; latest and every snapshot, each with its own schema), and we read
what Java writes into tables whose schema we evolved between its writes.

Also a table Java itself evolved (the driver's ``alter`` op, over ``SchemaManager.commitChanges``)
between its writes: we read it like Java does.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.types import parse_type as T
from paimon_core.mergetree.compaction import full_compact
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import (
    AddColumn,
    DropColumn,
    RenameColumn,
    UpdateColumnType,
    alter_table,
)

from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

COLUMNS = "id INT NOT NULL, a INT, f FLOAT, s STRING, gone STRING"
KINDS = {
    "app": lambda: Schema(Schema.parse_columns(COLUMNS), options={"bucket": "-1"}),
    "pk": lambda: Schema(Schema.parse_columns(COLUMNS), (), ("id",), {"bucket": "2"}),
}


def _batch(ids, **cols) -> pa.Table:
    data = {"id": pa.array(ids, pa.int32())}
    for k, v in cols.items():
        data[k] = v
    return pa.table(data)


def _evolve_and_write(t):
    """Four commits, each under a newer schema; returns the table at its latest schema."""
    t.write_arrow(_batch([1, 2, 3], a=pa.array([1, None, -3], pa.int32()), f=pa.array([0.5, 1.25, None], pa.float32()),
                         s=["x", None, "z"], gone=["g1", "g2", None]))
    t = alter_table(t, [AddColumn("added", T("STRING"))])
    t.write_arrow(_batch([4, 2], a=pa.array([4, 22], pa.int32()), f=pa.array([4.5, 2.5], pa.float32()),
                         s=["w", "B"], gone=["g4", None], added=["n4", "n2"]))
    t = alter_table(t, [RenameColumn("s", "s2"), UpdateColumnType("a", T("BIGINT")), UpdateColumnType("f", T("DOUBLE"))])
    t.write_arrow(_batch([5, 3], a=pa.array([2**40, 33], pa.int64()), f=pa.array([1e300, 3.5], pa.float64()),
                         s2=["v", "Z"], added=["n5", None]))
    t = alter_table(t, [DropColumn("gone"), AddColumn("first", T("BIGINT"), first=True)])
    t.write_arrow(_batch([6, 1], a=pa.array([6, 11], pa.int64()), s2=["u", "X"], first=pa.array([60, 10], pa.int64())))
    return t


def _ours(t, snapshot_id=None) -> list[dict]:
    view = t.for_snapshot(t.snapshots.snapshot(snapshot_id)) if snapshot_id else t
    types = {f.name: str(f.type) for f in view.schema.fields}
    return rows_from_arrow(t.read(snapshot_id=snapshot_id), types)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_java_reads_our_evolved_table(java, tmp_path, kind):
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    t = _evolve_and_write(cat.create_table("db.t", KINDS[kind]()))
    if kind == "pk":
        full_compact(t)
    t = cat.get_table("db.t")
    ids = t.snapshots.list_ids()
    reqs = [{"op": "read", "warehouse": wh, "table": "db.t"}]
    reqs += [{"op": "read", "warehouse": wh, "table": "db.t", "snapshot": i} for i in ids]
    results = java.run(reqs)
    assert_same_rows(results[0]["rows"], _ours(t), label_a="java", label_b="ours")
    assert {k for r in results[0]["rows"] for k in r} - {"_row_kind"} == set(t.schema.field_names)
    for i, res in zip(ids, results[1:], strict=True):
        assert_same_rows(res["rows"], _ours(t, i), label_a=f"java@{i}", label_b=f"ours@{i}")
    latest = {r["id"]: r for r in _ours(t)}
    assert latest[1]["s2"] in ("x", "X") and latest[5]["a"] == 2**40


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_we_read_java_writes_across_our_schema_changes(java, tmp_path, kind):
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    t = cat.create_table("db.t", KINDS[kind]())

    def jwrite(rows):
        java.run([{"op": "write", "warehouse": wh, "table": "db.t", "rows": rows}])

    jwrite([{"id": 1, "a": 1, "f": 0.5, "s": "x", "gone": "g"}, {"id": 2, "a": None, "f": 1.25, "s": None}])
    t = alter_table(t, [AddColumn("added", T("STRING")), UpdateColumnType("a", T("BIGINT"))])
    jwrite([{"id": 3, "a": 2**40, "f": 2.5, "s": "z", "added": "n3"}, {"id": 2, "a": 22, "s": "B", "added": "n2"}])
    t = alter_table(t, [RenameColumn("s", "s2"), DropColumn("gone"), UpdateColumnType("f", T("DOUBLE"))])
    jwrite([{"id": 4, "a": 4, "f": 1e300, "s2": "w", "added": None}])
    reqs = [{"op": "compact", "warehouse": wh, "table": "db.t", "full": True}] if kind == "pk" else []
    t = cat.get_table("db.t")
    ids_before = t.snapshots.list_ids()
    reqs += [{"op": "read", "warehouse": wh, "table": "db.t"}]
    reqs += [{"op": "read", "warehouse": wh, "table": "db.t", "snapshot": i} for i in ids_before]
    results = java.run(reqs)
    if kind == "pk":
        results = results[1:]
    t = cat.get_table("db.t")
    assert [t.snapshots.snapshot(i).schema_id for i in ids_before] == [0, 1, 2]
    assert_same_rows(_ours(t), results[0]["rows"], label_a="ours", label_b="java")
    for i, res in zip(ids_before, results[1:], strict=True):
        assert_same_rows(_ours(t, i), res["rows"], label_a=f"ours@{i}", label_b=f"java@{i}")
    latest = {r["id"]: r for r in _ours(t)}
    assert set(latest[1]) == {"id", "a", "f", "s2", "added"}
    assert latest[3]["a"] == 2**40 and latest[1]["s2"] == "x"


def test_we_read_a_table_java_evolved(tmp_path, java):
    """Schema files written by Java's own SchemaManager (add, rename, widen, drop), with Java
    writes before and after each change: we read every snapshot as Java does."""
    from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

    wh, name = str(tmp_path / "wh"), "j.evo"
    reqs = [{"op": "create_table", "warehouse": wh, "table": name, "primary_keys": ["id"],
             "schema": [{"name": "id", "type": "INT NOT NULL"}, {"name": "a", "type": "INT"},
                        {"name": "b", "type": "STRING"}, {"name": "f", "type": "FLOAT"}],
             "options": {"bucket": "1", "file.format": "parquet"}},
            {"op": "write", "warehouse": wh, "table": name, "rows": [{"id": 1, "a": 1, "b": "x", "f": 1.5}]},
            {"op": "alter", "warehouse": wh, "table": name, "changes": [
                {"add_column": {"name": "c", "type": "STRING"}}, {"rename_column": ["b", "bb"]},
                {"update_column_type": {"name": "a", "type": "BIGINT"}},
                {"update_column_type": {"name": "f", "type": "DOUBLE"}}]},
            {"op": "write", "warehouse": wh, "table": name,
             "rows": [{"id": 2, "a": 5000000000, "bb": "y", "f": 2.25, "c": "new"}]},
            {"op": "alter", "warehouse": wh, "table": name, "changes": [{"drop_column": "bb"}]},
            {"op": "write", "warehouse": wh, "table": name, "rows": [{"id": 1, "a": 7, "f": 0.5, "c": "upd"}]}]
    reqs += [{"op": "read", "warehouse": wh, "table": name, "snapshot": s} for s in (1, 2, 3)]
    java_reads = [r["rows"] for r in java.run(reqs)[-3:]]
    t = FileSystemCatalog(wh).get_table(name)
    assert t.schema.id == 2 and [f.name for f in t.schema.fields] == ["id", "a", "f", "c"]
    for sid, want in zip((1, 2, 3), java_reads):
        assert_same_rows(rows_from_arrow(t.read(snapshot_id=sid)), want,
                         label_a=f"paimon-cli@{sid}", label_b=f"java@{sid}")
