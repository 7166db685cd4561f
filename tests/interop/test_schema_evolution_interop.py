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
from paimon_core.compaction.compaction import full_compact
from paimon_core.data.types import parse_type as T
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import (
    AddColumn,
    DropColumn,
    RenameColumn,
    UpdateColumnType,
)
from paimon_core.ops.alter import alter_table
from tests.interop.harness import arrow_from_rows, assert_same_rows, rows_from_arrow

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
    for changes, rows in EVOLUTION:
        if changes:
            t = alter_table(t, changes)
        full = t.schema.arrow_schema()
        t.write_arrow(arrow_from_rows(rows, pa.schema([full.field(n) for n in rows[0]])))
    return t


# (schema changes, then rows written under the new schema): the same history as `_evolve_and_write`
EVOLUTION = [
    (
        [],
        [
            {"id": 1, "a": 1, "f": 0.5, "s": "x", "gone": "g1"},
            {"id": 2, "a": None, "f": 1.25, "s": None, "gone": "g2"},
            {"id": 3, "a": -3, "f": None, "s": "z", "gone": None},
        ],
    ),
    (
        [AddColumn("added", T("STRING"))],
        [
            {"id": 4, "a": 4, "f": 4.5, "s": "w", "gone": "g4", "added": "n4"},
            {"id": 2, "a": 22, "f": 2.5, "s": "B", "gone": None, "added": "n2"},
        ],
    ),
    (
        [RenameColumn("s", "s2"), UpdateColumnType("a", T("BIGINT")), UpdateColumnType("f", T("DOUBLE"))],
        [
            {"id": 5, "a": 2**40, "f": 1e300, "s2": "v", "added": "n5"},
            {"id": 3, "a": 33, "f": 3.5, "s2": "Z", "added": None},
        ],
    ),
    (
        [DropColumn("gone"), AddColumn("first", T("BIGINT"), first=True)],
        [{"id": 6, "a": 6, "s2": "u", "first": 60}, {"id": 1, "a": 11, "s2": "X", "first": 10}],
    ),
]
# field id -> name in each schema version of EVOLUTION, written out by hand (the model's own
# account of what each change does: renames keep the id, drops remove it, adds take the next id)
EVOLUTION_NAMES = [
    {0: "id", 1: "a", 2: "f", 3: "s", 4: "gone"},
    {0: "id", 1: "a", 2: "f", 3: "s", 4: "gone", 5: "added"},
    {0: "id", 1: "a", 2: "f", 3: "s2", 4: "gone", 5: "added"},
    {6: "first", 0: "id", 1: "a", 2: "f", 3: "s2", 5: "added"},
]


def _modelled(
    commits: list[list[dict]], names: list[dict[int, str]], upto: int, version: int, pk: bool
) -> list[dict]:
    """Rows of the first ``upto`` commits (commit j written under schema ``names[j]``) read under
    schema ``names[version]``: a column is matched by field id, values of a field the writer did
    not have are null, widened types keep their values; a PK table keeps the last row per id."""
    out: dict = {}
    for j, rows in enumerate(commits[:upto]):
        for n, row in enumerate(rows):
            got = {
                name: (row.get(names[j][fid]) if fid in names[j] else None)
                for fid, name in names[version].items()
            }
            out[got["id"] if pk else (j, n)] = got
    return list(out.values())


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
    assert ids == ([1, 2, 3, 4, 5] if kind == "pk" else [1, 2, 3, 4])  # pk: 5 is the full compaction
    results = java.run(reqs)
    commits = [rows for _, rows in EVOLUTION]

    def want(sid):
        n = min(sid, len(commits))
        return _modelled(commits, EVOLUTION_NAMES, n, n - 1, kind == "pk")

    assert_same_rows(results[0]["rows"], want(ids[-1]), label_a="java", label_b="model")
    assert_same_rows(_ours(t), want(ids[-1]), label_a="ours", label_b="model")
    assert {k for r in results[0]["rows"] for k in r} - {"_row_kind"} == set(t.schema.field_names)
    for i, res in zip(ids, results[1:], strict=True):
        assert_same_rows(res["rows"], want(i), label_a=f"java@{i}", label_b=f"model@{i}")
        assert_same_rows(_ours(t, i), want(i), label_a=f"ours@{i}", label_b=f"model@{i}")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_we_read_java_writes_across_our_schema_changes(java, tmp_path, kind):
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    t = cat.create_table("db.t", KINDS[kind]())

    java_commits = []

    def jwrite(rows):
        java.run([{"op": "write", "warehouse": wh, "table": "db.t", "rows": rows}])
        java_commits.append(rows)

    jwrite([{"id": 1, "a": 1, "f": 0.5, "s": "x", "gone": "g"}, {"id": 2, "a": None, "f": 1.25, "s": None}])
    t = alter_table(t, [AddColumn("added", T("STRING")), UpdateColumnType("a", T("BIGINT"))])
    jwrite(
        [
            {"id": 3, "a": 2**40, "f": 2.5, "s": "z", "added": "n3"},
            {"id": 2, "a": 22, "s": "B", "added": "n2"},
        ]
    )
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
    assert ids_before == [1, 2, 3] and [t.snapshots.snapshot(i).schema_id for i in ids_before] == [0, 1, 2]
    names = [
        {0: "id", 1: "a", 2: "f", 3: "s", 4: "gone"},
        {0: "id", 1: "a", 2: "f", 3: "s", 4: "gone", 5: "added"},
        {0: "id", 1: "a", 2: "f", 3: "s2", 5: "added"},
    ]

    def want(sid):
        return _modelled(java_commits, names, sid, sid - 1, kind == "pk")

    assert_same_rows(results[0]["rows"], want(3), label_a="java", label_b="model")
    assert_same_rows(_ours(t), want(3), label_a="ours", label_b="model")
    for i, res in zip(ids_before, results[1:], strict=True):
        assert_same_rows(res["rows"], want(i), label_a=f"java@{i}", label_b=f"model@{i}")
        assert_same_rows(_ours(t, i), want(i), label_a=f"ours@{i}", label_b=f"model@{i}")


def test_we_read_a_table_java_evolved(tmp_path, java):
    """Schema files written by Java's own SchemaManager (add, rename, widen, drop), with Java
    writes before and after each change: we read every snapshot as Java does."""
    from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

    wh, name = str(tmp_path / "wh"), "j.evo"
    reqs = [
        {
            "op": "create_table",
            "warehouse": wh,
            "table": name,
            "primary_keys": ["id"],
            "schema": [
                {"name": "id", "type": "INT NOT NULL"},
                {"name": "a", "type": "INT"},
                {"name": "b", "type": "STRING"},
                {"name": "f", "type": "FLOAT"},
            ],
            "options": {"bucket": "1", "file.format": "parquet"},
        },
        {"op": "write", "warehouse": wh, "table": name, "rows": [{"id": 1, "a": 1, "b": "x", "f": 1.5}]},
        {
            "op": "alter",
            "warehouse": wh,
            "table": name,
            "changes": [
                {"add_column": {"name": "c", "type": "STRING"}},
                {"rename_column": ["b", "bb"]},
                {"update_column_type": {"name": "a", "type": "BIGINT"}},
                {"update_column_type": {"name": "f", "type": "DOUBLE"}},
            ],
        },
        {
            "op": "write",
            "warehouse": wh,
            "table": name,
            "rows": [{"id": 2, "a": 5000000000, "bb": "y", "f": 2.25, "c": "new"}],
        },
        {"op": "alter", "warehouse": wh, "table": name, "changes": [{"drop_column": "bb"}]},
        {"op": "write", "warehouse": wh, "table": name, "rows": [{"id": 1, "a": 7, "f": 0.5, "c": "upd"}]},
    ]
    reqs += [{"op": "read", "warehouse": wh, "table": name, "snapshot": s} for s in (1, 2, 3)]
    java_reads = [r["rows"] for r in java.run(reqs)[-3:]]
    t = FileSystemCatalog(wh).get_table(name)
    assert t.schema.id == 2 and [f.name for f in t.schema.fields] == ["id", "a", "f", "c"]
    for sid, want in zip((1, 2, 3), java_reads):
        assert_same_rows(
            rows_from_arrow(t.read(snapshot_id=sid)), want, label_a=f"paimon-cli@{sid}", label_b=f"java@{sid}"
        )
