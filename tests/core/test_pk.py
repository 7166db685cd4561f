"""Primary-key specifics: sequence.field ordering, key-range pruning, row kinds, full compaction."""

import os

import pyarrow as pa
import pytest

from paimon_core.compaction.compaction import full_compact, max_level
from paimon_core.errors import InvalidInput, SchemaMismatch
from paimon_core.metadata.schema import Schema


def pk_table(catalog, options=None, cols="id INT NOT NULL, name STRING, v BIGINT, ver INT", name="db.pk"):
    return catalog.create_table(
        name, Schema(Schema.parse_columns(cols), (), ("id",), {"bucket": "2", **(options or {})})
    )


def test_sequence_field_decides_instead_of_arrival(catalog):
    t = pk_table(catalog, {"sequence.field": "ver"})
    t.write_arrow(
        pa.table(
            {"id": pa.array([1, 2], pa.int32()), "name": ["new", "b"], "ver": pa.array([5, 1], pa.int32())}
        )
    )
    t.write_arrow(
        pa.table(
            {"id": pa.array([1, 2], pa.int32()), "name": ["old", "b2"], "ver": pa.array([3, 2], pa.int32())}
        )
    )
    got = {r["id"]: r["name"] for r in t.read(columns=["id", "name"]).to_pylist()}
    assert got == {1: "new", 2: "b2"}
    with pytest.raises(InvalidInput):
        pk_table(catalog, {"sequence.field": "nope"}, name="db.bad")


def test_key_filter_prunes_files_but_not_rows(catalog):
    t = pk_table(catalog, {"bucket": "1"})
    t.write_arrow(pa.table({"id": pa.array(range(0, 10), pa.int32()), "v": pa.array(range(10), pa.int64())}))
    t.write_arrow(
        pa.table({"id": pa.array(range(100, 110), pa.int32()), "v": pa.array(range(10), pa.int64())})
    )
    t.write_arrow(pa.table({"id": pa.array([5], pa.int32()), "v": pa.array([500], pa.int64())}))
    pred = t.parse_filter("id >= 100")
    assert sum(len(s.files) for s in t.plan(t.snapshots.latest(), pred)) == 1
    assert t.read(where="id = 5").to_pylist()[0]["v"] == 500
    # a value filter must not drop a newer version stored in another file
    assert t.read(where="v = 5").column("id").to_pylist() == [105]


def test_bad_row_kinds_and_null_keys_commit_nothing(catalog):
    t = pk_table(catalog)
    with pytest.raises(SchemaMismatch, match="row kind"):
        t.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "k": ["+X"]}), row_kind_column="k")
    with pytest.raises(SchemaMismatch, match="NOT NULL"):
        t.write_arrow(pa.table({"id": pa.array([1, None], pa.int32())}))
    with pytest.raises(SchemaMismatch, match="missing"):
        t.write_arrow(pa.table({"name": ["x"]}))
    assert t.snapshots.latest() is None
    assert not [f for _, _, fs in os.walk(t.path) for f in fs if f.startswith("data-")]


def test_full_compaction_keeps_reads_and_drops_deletes(catalog):
    t = pk_table(catalog)
    t.write_arrow(pa.table({"id": pa.array(range(20), pa.int32()), "v": pa.array(range(20), pa.int64())}))
    t.write_arrow(
        pa.table({"id": pa.array(range(0, 20, 2), pa.int32()), "k": ["-D"] * 10}), row_kind_column="k"
    )
    before = sorted(t.read().to_pylist(), key=lambda r: r["id"])
    files_before = [f for s in t.plan(t.snapshots.latest()) for f in s.files]
    res = full_compact(t)
    # a COMPACT snapshot's delta counts the records it added minus those it removed: 10 rows
    # written, the 30 records (20 inserts, 10 deletes) of the compacted files removed
    assert res.snapshot.commit_kind == "COMPACT" and sum(f.row_count for f in files_before) == 30
    assert res.snapshot.delta_record_count == 10 - 30
    assert res.snapshot.total_record_count == 10
    after = sorted(t.read().to_pylist(), key=lambda r: r["id"])
    assert after == before and len(after) == 10
    files = [f for s in t.plan(t.snapshots.latest()) for f in s.files]
    assert {f.level for f in files} == {max_level(t)} and all(f.delete_row_count == 0 for f in files)
    assert sum(f.row_count for f in files) == 10
    assert full_compact(t).snapshot is None  # nothing left to do
    assert t.read(snapshot_id=2).num_rows == 10


def test_append_compaction_merges_small_files(catalog):
    t = catalog.create_table("db.ap", Schema(Schema.parse_columns("id BIGINT")))
    for i in range(5):
        t.write_arrow(pa.table({"id": pa.array([i], pa.int64())}))
    res = full_compact(t)
    assert (res.files_before, res.files_after) == (5, 1)
    assert sorted(t.read().column("id").to_pylist()) == list(range(5))


def test_dynamic_bucket_mode_keeps_keys_in_their_bucket(catalog):
    t = catalog.create_table(
        "db.dyn",
        Schema(
            Schema.parse_columns("id BIGINT NOT NULL, v STRING, dt STRING"),
            ("dt",),
            ("dt", "id"),
            {"dynamic-bucket.target-row-num": "3"},
        ),
    )
    assert t.schema.options["bucket"] == "-1"
    t.write_arrow(
        pa.table({"id": pa.array(range(10), pa.int64()), "v": ["a"] * 10, "dt": ["x"] * 7 + ["y"] * 3})
    )
    first = {(s.partition, s.bucket): s for s in t.plan(t.snapshots.latest())}
    assert sorted(b for p, b in first if p == ("x",)) == [0, 1, 2]  # 7 keys, 3 per bucket
    assert all(s.total_buckets == -1 for s in first.values())
    t.write_arrow(pa.table({"id": pa.array([1, 2, 20], pa.int64()), "v": ["b"] * 3, "dt": ["x"] * 3}))
    got = {(r["dt"], r["id"]): r["v"] for r in t.read().to_pylist()}
    assert len(got) == 11 and got[("x", 1)] == "b" and got[("x", 20)] == "b" and got[("x", 3)] == "a"
    # the index manifest lists one HASH file per bucket with the right key counts
    from paimon_core.metadata.index_manifest import IndexStore

    entries = IndexStore(t.io, t.path).read_manifest(t.snapshots.latest().index_manifest)
    counts = sorted(
        (e.partition == t.partition_codec.to_bytes(("x",)), e.bucket, e.row_count) for e in entries
    )
    assert counts == [(False, 0, 3), (True, 0, 3), (True, 1, 3), (True, 2, 2)]
    # key 1 updated in place: still a single row, in its first bucket
    per_bucket = {}
    for s in t.plan(t.snapshots.latest()):
        for r in t.new_read().read_split(s).to_pylist():
            per_bucket.setdefault((r["dt"], r["id"]), set()).add(s.bucket)
    assert all(len(b) == 1 for b in per_bucket.values())


def test_partial_update_sequence_groups(catalog):
    t = catalog.create_table(
        "db.pu",
        Schema(
            Schema.parse_columns("k INT NOT NULL, a STRING, b STRING, g1 INT, c STRING, d STRING, g2 INT"),
            (),
            ("k",),
            {
                "bucket": "1",
                "merge-engine": "partial-update",
                "fields.g1.sequence-group": "a,b",
                "fields.g2.sequence-group": "c,d",
            },
        ),
    )

    def put(**row):
        cols = {
            "k": pa.int32(),
            "a": pa.string(),
            "b": pa.string(),
            "g1": pa.int32(),
            "c": pa.string(),
            "d": pa.string(),
            "g2": pa.int32(),
        }
        t.write_arrow(pa.table({k: pa.array([row.get(k)], cols[k]) for k in cols}))

    put(k=1, a="a1", b="b1", g1=1, c="c1", d="d1", g2=1)
    put(k=1, a="a2", b=None, g1=2, c="c2", d="d2", g2=0)  # group 1 newer (b becomes null), group 2 older
    assert t.read().to_pylist() == [{"k": 1, "a": "a2", "b": None, "g1": 2, "c": "c1", "d": "d1", "g2": 1}]
    put(k=1, a="a3", g1=None, c="c3", g2=1)  # null sequence: group 1 untouched; equal sequence wins
    assert t.read().to_pylist() == [{"k": 1, "a": "a2", "b": None, "g1": 2, "c": "c3", "d": None, "g2": 1}]
    with pytest.raises(InvalidInput):
        catalog.create_table(
            "db.bad",
            Schema(
                Schema.parse_columns("k INT NOT NULL, a STRING, g INT"),
                (),
                ("k",),
                {"bucket": "1", "fields.g.sequence-group": "a"},
            ),
        )


def test_aggregation_count_is_refused(catalog, tmp_path):
    """Java Paimon 0.9 has no `count` aggregate function and later Paimon removed it: refused at
    create-table (also as the default function), at alter-table, and when a table whose schema
    file names it is read or written."""
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    def schema(opts):
        return Schema(
            Schema.parse_columns("k INT NOT NULL, c BIGINT"),
            (),
            ("k",),
            {"bucket": "1", "merge-engine": "aggregation", **opts},
        )

    for opts in ({"fields.c.aggregate-function": "count"}, {"fields.default-aggregate-function": "count"}):
        with pytest.raises(InvalidInput, match="'count' .* not supported: Java Paimon 0.9 has no 'count'"):
            catalog.create_table("db.cnt", schema(opts))
    t = catalog.create_table("db.cnt", schema({"fields.c.aggregate-function": "sum"}))
    t.write_arrow(pa.table({"k": pa.array([1], pa.int32()), "c": pa.array([1], pa.int64())}))
    with pytest.raises(InvalidInput, match="'count'"):
        alter_table(t, [SetOption("fields.c.aggregate-function", "count")])
    assert catalog.get_table("db.cnt").schema.id == 0
    # a schema file written elsewhere that names count: reads and writes refuse it
    path = os.path.join(t.path, "schema", "schema-0")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace('"sum"', '"count"'))
    with pytest.raises(InvalidInput, match="'count'"):
        catalog.get_table("db.cnt").read()
    with pytest.raises(InvalidInput, match="'count'"):
        catalog.get_table("db.cnt").write_arrow(
            pa.table({"k": pa.array([2], pa.int32()), "c": pa.array([1], pa.int64())})
        )


def test_partial_update_remove_record_on_delete_ignores_update_before(catalog):
    """With partial-update.remove-record-on-delete a -D removes the key and a -U changes nothing
    (Java 0.9's PartialUpdateMergeFunction), whether the -U is alone in its commit or not."""
    t = catalog.create_table(
        "db.pud",
        Schema(
            Schema.parse_columns("k INT NOT NULL, a STRING, b BIGINT"),
            (),
            ("k",),
            {
                "bucket": "1",
                "merge-engine": "partial-update",
                "partial-update.remove-record-on-delete": "true",
            },
        ),
    )

    def put(ks, a, b, kinds):
        t.write_arrow(
            pa.table({"k": pa.array(ks, pa.int32()), "a": a, "b": pa.array(b, pa.int64()), "kind": kinds}),
            row_kind_column="kind",
        )

    put([1, 2, 3], ["x", "y", "z"], [None, 1, 2], ["+I"] * 3)
    put([1], ["U"], [5], ["-U"])
    put([2, 2, 3], ["U", "V", None], [5, None, None], ["-U", "+U", "-D"])
    assert sorted((r["k"], r["a"], r["b"]) for r in t.read().to_pylist()) == [(1, "x", None), (2, "V", 1)]
    full_compact(t)
    assert sorted((r["k"], r["a"], r["b"]) for r in t.read().to_pylist()) == [(1, "x", None), (2, "V", 1)]
