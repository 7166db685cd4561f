"""Metadata fields and features of Paimon 1.x/2.0 that we read, keep or refuse, on tables whose
metadata files are crafted from the format spec (docs/format.md section 15): each read-affecting field
is checked against a plain-Python expectation, each refusal names its feature."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest

from paimon_core.errors import UnsupportedFeature
from paimon_core.maintain.orphans import remove_orphans
from paimon_core.metadata import manifest_cache
from paimon_core.metadata.live_files import data_manifests, live_entries
from paimon_core.metadata.manifest import ENTRY_SCHEMA, avro_bytes
from paimon_core.metadata.schema import Schema


def _append_table(catalog, name="db.t"):
    cols = Schema.parse_columns("id BIGINT, a BIGINT, b BIGINT, s STRING")
    return catalog.create_table(name, Schema(cols))


def rewrite_entries(table, fn) -> None:
    """Rewrite every manifest of the latest snapshot in place with ``fn(entry) -> entry``."""
    snap = table.snapshots.latest()
    store = table.manifests
    for meta in data_manifests(store, snap):
        entries = [fn(e) for e in store.read_manifest(meta.file_name)]
        table.io.write_bytes(
            store.path(meta.file_name), avro_bytes(ENTRY_SCHEMA, [e.to_avro() for e in entries])
        )
    manifest_cache.clear()  # rewritten in place: a real writer never does this


def _rows(ids, a, b):
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "a": pa.array(a, pa.int64()),
            "b": pa.array(b, pa.int64()),
            "s": [f"s{i}" for i in ids],
        }
    )


def test_value_stats_cols_prune_only_by_the_listed_columns(catalog):
    """A file whose dense stats cover only column b (``_VALUE_STATS_COLS = [b]``): the stats row
    holds b's range, so filters on other columns must not use it. Read by position against the
    full schema, b's range [100, 300] would be taken as id's and ``id = 2`` would drop the file."""
    t = _append_table(catalog)
    t.write_arrow(_rows([1, 2, 3], [10, 20, 30], [100, 200, 300]))
    from paimon_core.data.binary_row import serialize_row
    from paimon_core.data.types import AtomicType
    from paimon_core.metadata.manifest import SimpleStats

    bigint = [AtomicType("BIGINT")]
    dense = SimpleStats(serialize_row([100], bigint), serialize_row([300], bigint), (0,))
    rewrite_entries(t, lambda e: e._replace(file=e.file._replace(value_stats=dense, value_stats_cols=("b",))))
    t = catalog.get_table("db.t")
    assert t.read(where="id = 2").column("id").to_pylist() == [2]
    assert t.read(where="a = 20").column("id").to_pylist() == [2]
    assert t.read(where="b = 20").num_rows == 0  # b's own range does prune
    assert t.read(where="b = 200").column("id").to_pylist() == [2]
    # an empty list means: no stats at all, nothing may be pruned
    rewrite_entries(
        t,
        lambda e: e._replace(
            file=e.file._replace(value_stats=SimpleStats(null_counts=()), value_stats_cols=())
        ),
    )
    t = catalog.get_table("db.t")
    assert t.read(where="a = 20").column("id").to_pylist() == [2]


def test_files_with_write_cols_are_refused(catalog):
    t = _append_table(catalog)
    t.write_arrow(_rows([1], [1], [1]))
    rewrite_entries(t, lambda e: e._replace(file=e.file._replace(write_cols=("a",))))
    with pytest.raises(UnsupportedFeature, match="_WRITE_COLS"):
        catalog.get_table("db.t").read()


def test_extra_files_are_referenced_by_orphan_cleanup(catalog):
    """``_EXTRA_FILES`` (file indexes) sit next to their data file and are kept by remove-orphans."""
    t = _append_table(catalog)
    t.write_arrow(_rows([1, 2], [1, 2], [1, 2]))
    name = live_entries(t.manifests, t.snapshots.latest())[0].file.file_name
    index_name = name + ".index"
    rewrite_entries(t, lambda e: e._replace(file=e.file._replace(extra_files=(index_name,))))
    bucket_dir = t.bucket_path((), 0)
    index_path = os.path.join(bucket_dir, index_name)
    stray = os.path.join(bucket_dir, "data-stray.index")
    for p in (index_path, stray):
        with open(p, "wb") as f:
            f.write(b"idx")
        os.utime(p, (1000, 1000))
    t = catalog.get_table("db.t")
    remove_orphans(t, older_than_ms=0)
    assert os.path.exists(index_path) and not os.path.exists(stray)
    assert t.read().num_rows == 2


def test_unknown_snapshot_fields_are_read_and_kept(catalog):
    t = _append_table(catalog)
    t.write_arrow(_rows([1], [1], [1]))
    path = t.snapshots.path(1)
    obj = json.loads(t.io.read_text(path))
    obj.update({"nextRowId": 7, "operation": "WRITE", "futureField": {"x": [1, 2]}, "logOffsets": {}})
    t.io.delete(path)
    t.io.write_bytes(path, json.dumps(obj).encode())
    t = catalog.get_table("db.t")
    snap = t.snapshots.snapshot(1)
    assert snap.next_row_id == 7 and snap.extra["futureField"] == {"x": [1, 2]}
    assert json.loads(snap.to_json())["futureField"] == {"x": [1, 2]}
    t.write_arrow(_rows([2], [2], [2]))  # a new snapshot on top
    assert sorted(catalog.get_table("db.t").read().column("id").to_pylist()) == [1, 2]


def _edit_schema(table, fn) -> None:
    path = table.schemas.path(table.schema.id)
    obj = json.loads(table.io.read_text(path))
    fn(obj)
    table.io.delete(path)
    table.io.write_bytes(path, json.dumps(obj).encode())


@pytest.mark.parametrize("typ,feature", [("VARIANT", "VARIANT"), ("VECTOR<FLOAT, 4>", "VECTOR")])
def test_newer_column_types_are_refused(catalog, typ, feature):
    t = _append_table(catalog)
    _edit_schema(t, lambda o: o["fields"].append({"id": 9, "name": "x", "type": typ}))
    with pytest.raises(UnsupportedFeature, match=f"{feature} columns"):
        catalog.get_table("db.t")


def test_blob_column_without_data_evolution_refuses_writes(catalog):
    t = _append_table(catalog)
    _edit_schema(t, lambda o: o["fields"].append({"id": 9, "name": "x", "type": "BLOB"}))
    t = catalog.get_table("db.t")
    with pytest.raises(UnsupportedFeature, match="BLOB columns .*data-evolution.enabled"):
        t.write_arrow(_rows([1], [1], [1]))


def test_row_tracking_enabled_later_counts_row_ids_from_zero(catalog):
    t = _append_table(catalog)
    t.write_arrow(_rows([1], [1], [1]))
    _edit_schema(t, lambda o: o["options"].update({"row-tracking.enabled": "true"}))
    t = catalog.get_table("db.t")
    assert t.read().num_rows == 1  # plain reads of row-tracking tables return the same rows
    t.write_arrow(_rows([2], [2], [2]))  # the snapshot before has no nextRowId: ids from 0, as Java
    t = catalog.get_table("db.t")
    assert t.snapshots.latest().next_row_id == 1
    ids = {r["id"]: r["_ROW_ID"] for r in t.read(columns=["id", "_ROW_ID"]).to_pylist()}
    assert ids == {1: None, 2: 0}
    _edit_schema(t, lambda o: o["options"].update({"data-evolution.enabled": "true"}))
    assert catalog.get_table("db.t").read().num_rows == 2


def test_bucket_function_other_than_default_is_refused_on_write(catalog):
    cols = Schema.parse_columns("id BIGINT NOT NULL, v STRING")
    t = catalog.create_table("db.pk", Schema(cols, primary_keys=("id",), options={"bucket": "2"}))
    t.write_arrow(pa.table({"id": pa.array([1, 2], pa.int64()), "v": ["a", "b"]}))
    _edit_schema(t, lambda o: o["options"].update({"bucket-function.type": "mod"}))
    t = catalog.get_table("db.pk")
    assert t.read().num_rows == 2
    with pytest.raises(UnsupportedFeature, match="bucket-function.type = mod"):
        t.write_arrow(pa.table({"id": pa.array([3], pa.int64()), "v": ["c"]}))
    with pytest.raises(UnsupportedFeature, match="bucket-function.type"):
        catalog.create_table(
            "db.pk2",
            Schema(cols, primary_keys=("id",), options={"bucket": "2", "bucket-function.type": "mod"}),
        )


def test_column_default_values_are_kept_and_refused_on_write(catalog):
    t = _append_table(catalog)
    t.write_arrow(_rows([1], [1], [1]))
    _edit_schema(t, lambda o: o["fields"][3].update({"defaultValue": "'dflt'"}))
    t = catalog.get_table("db.t")
    from paimon_core.metadata.schema_evolution import UpdateComment
    from paimon_core.ops.alter import alter_table

    t = alter_table(t, [UpdateComment("c")])
    assert json.loads(t.schemas.latest().to_json())["fields"][3]["defaultValue"] == "'dflt'"
    assert t.read().num_rows == 1
    with pytest.raises(UnsupportedFeature, match=r"column default values \(s\)"):
        t.write_arrow(_rows([2], [2], [2]))
    from paimon_core.compaction.compaction import compact

    compact(t, full=True)  # rewriting stored rows fills in nothing: allowed
    assert t.read().num_rows == 1


def test_other_table_types_are_refused(catalog):
    t = _append_table(catalog)
    _edit_schema(t, lambda o: o["options"].update({"type": "format-table"}))
    with pytest.raises(UnsupportedFeature, match="type = format-table"):
        catalog.get_table("db.t").read()


def test_external_paths_take_either_s3_spelling_and_refuse_other_file_systems():
    """``s3://`` and ``s3a://`` name one file system (Java writes either): an external path in
    the other spelling resolves; a file on another file system is refused naming its kind."""
    from types import SimpleNamespace

    from paimon_core.errors import UnsupportedFeature
    from paimon_core.metadata.deletion_vectors import index_path
    from paimon_core.metadata.features import external_path
    from paimon_core.storage.file_io import FileIO

    s3_table = SimpleNamespace(io=FileIO("s3://bucket/wh", {}), path="bucket/wh/db.db/t")
    for uri in ("s3://bucket/ext/f-0", "s3a://bucket/ext/f-0"):
        assert external_path(s3_table, uri) == "bucket/ext/f-0"
        assert index_path(s3_table, "index-x-0", uri) == "bucket/ext/f-0"
    with pytest.raises(
        UnsupportedFeature, match=r"deletion vector index file file:/tmp/x .*another file system"
    ):
        index_path(s3_table, "index-x-0", "file:/tmp/x")
    local_table = SimpleNamespace(io=FileIO("/tmp/wh", {}), path="/tmp/wh/db.db/t")
    with pytest.raises(UnsupportedFeature, match=r"data file s3a://bucket/x is on another file system"):
        external_path(local_table, "s3a://bucket/x")
