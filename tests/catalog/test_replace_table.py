"""``Catalog.replace_table`` (Java 2.0's ``replaceTable``, ``catalog/replace.py``) on the filesystem
and a JDBC (SQLite) catalog: a truncating OVERWRITE at the old schema, then the new schema as
schema latest+1 made from the new schema alone; the old snapshots stay readable by time travel;
refusals (partition keys, a missing table, a branch) write nothing."""

from __future__ import annotations

import dataclasses

import pyarrow as pa
import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.data.types import parse_type
from paimon_core.errors import DatabaseNotFound, InvalidInput, TableNotFound, UnsupportedByCatalog
from paimon_core.metadata.schema import Schema, SchemaManager
from paimon_core.metadata.schema_evolution import AddColumn, commit_changes

OLD = Schema(Schema.parse_columns("id BIGINT, name STRING, dt STRING"), ("dt",))
NEW = Schema(
    Schema.parse_columns("id BIGINT NOT NULL, email STRING, dt STRING"),
    ("dt",),
    ("id", "dt"),
    {"bucket": "2", "snapshot.num-retained.max": "50"},
    "replaced",
)


def _rows(ids, dt="d1") -> pa.Table:
    ids = list(ids)
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids], "dt": [dt] * len(ids)})


@pytest.fixture(params=["filesystem", "jdbc"])
def catalog(request, tmp_path):
    wh = str(tmp_path / "wh")
    if request.param == "jdbc":
        return create_catalog("jdbc", wh, {"uri": f"jdbc:sqlite:{tmp_path / 'catalog.db'}"})
    return create_catalog("filesystem", wh)


def _written(catalog):
    catalog.create_database("db")
    t = catalog.create_table("db.t", OLD)
    t.write_arrow(_rows([1, 2]))
    t.write_arrow(_rows([3], "d2"))
    return catalog.get_table("db.t")


def test_the_table_keeps_its_history_and_gets_the_new_schema(catalog):
    before = _written(catalog)
    new = catalog.replace_table("db.t", NEW)
    assert new.id == 1 and [(f.id, f.name) for f in new.fields] == [(0, "id"), (1, "email"), (2, "dt")]
    keys = (new.partition_keys, new.primary_keys)
    assert (new.highest_field_id, keys, new.comment) == (2, (("dt",), ("id", "dt")), "replaced")
    assert new.options == {"bucket": "2", "snapshot.num-retained.max": "50"}  # nothing of the old one

    t = catalog.get_table("db.t")
    assert t.schema == new
    latest = t.snapshots.latest()
    truncated = (latest.id, latest.commit_kind, latest.schema_id, latest.total_record_count)
    assert truncated == (3, "OVERWRITE", 0, 0)
    assert t.to_arrow().num_rows == 0 and t.to_arrow().column_names == ["id", "email", "dt"]
    # time travel reads each older snapshot with the schema it was committed with
    assert sorted(t.to_arrow(snapshot_id=2).to_pydict()["id"]) == [1, 2, 3]
    assert t.to_arrow(snapshot_id=1).column_names == ["id", "name", "dt"]
    assert t.created_millis() == before.created_millis()  # the same table (its id is kept)

    t.write_arrow(pa.table({"id": pa.array([7], pa.int64()), "email": ["e"], "dt": ["d1"]}))
    t = catalog.get_table("db.t")
    assert t.to_arrow().to_pylist() == [{"id": 7, "email": "e", "dt": "d1"}]
    assert t.snapshots.latest().schema_id == 1


def test_the_new_schema_is_latest_plus_one(catalog):
    _written(catalog)
    t = catalog.get_table("db.t")
    commit_changes(t.io, t.path, [AddColumn("extra", parse_type("INT"))])
    assert catalog.replace_table("db.t", NEW).id == 2
    assert SchemaManager(t.io, t.path).list_ids() == [0, 1, 2]


def test_a_schema_written_meanwhile_is_kept_and_the_replace_retries(catalog, monkeypatch):
    _written(catalog)
    t = catalog.get_table("db.t")
    real = SchemaManager.commit
    raced = []

    def commit(self, schema):
        if not raced:  # another writer takes the id first
            raced.append(real(self, dataclasses.replace(t.schema, id=schema.id)))
        return real(self, schema)

    monkeypatch.setattr(SchemaManager, "commit", commit)
    assert catalog.replace_table("db.t", NEW).id == 2 and raced == [True]
    assert [f.name for f in catalog.get_table("db.t").schema.fields] == ["id", "email", "dt"]


def test_changing_the_partition_keys_is_refused_and_writes_nothing(catalog):
    _written(catalog)
    for keys in ((), ("id",)):
        other = Schema(NEW.columns, keys, (), {})
        with pytest.raises(UnsupportedByCatalog, match="cannot change the partition keys"):
            catalog.replace_table("db.t", other)
    t = catalog.get_table("db.t")
    assert (t.snapshots.latest().id, t.schema.id) == (2, 0)


def test_a_schema_that_does_not_validate_is_refused_before_the_truncate(catalog):
    _written(catalog)
    bad = Schema(NEW.columns, ("dt",), ("nope",), {})
    with pytest.raises(InvalidInput):
        catalog.replace_table("db.t", bad)
    assert catalog.get_table("db.t").snapshots.latest().id == 2


def test_a_missing_table_a_missing_database_and_a_branch(catalog):
    _written(catalog)
    with pytest.raises(TableNotFound):
        catalog.replace_table("db.nope", NEW)
    with pytest.raises(DatabaseNotFound):
        catalog.replace_table("nodb.t", NEW)
    with pytest.raises(InvalidInput, match="branch or system table"):
        catalog.replace_table("db.t$branch_b", NEW)


def test_a_table_without_snapshots_and_the_path_option(catalog):
    catalog.create_database("db")
    t = catalog.create_table("db.t", OLD)
    own = Schema(NEW.columns, ("dt",), (), {"path": t.io.uri(t.path)})
    new = catalog.replace_table("db.t", own)  # its own folder: dropped, as Java's client sends it
    assert new.id == 1 and "path" not in new.options
    assert catalog.get_table("db.t").snapshots.latest().total_record_count == 0
    elsewhere = Schema(NEW.columns, ("dt",), (), {"path": t.io.uri(t.path) + "-moved"})
    with pytest.raises(InvalidInput, match="option 'path'"):
        catalog.replace_table("db.t", elsewhere)
