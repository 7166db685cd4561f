"""Cross-partition upsert tables (primary key ``id`` without the partition key ``dt``,
``bucket = -1``) against a dict model of Java 0.9's per-engine rule for a key that moves
partition, over several commits whose batches move keys back and forth (also within a batch);
the key is never in two partitions. Also: the schema rules at create-table, the key index's
bootstrap (index TTL, a table that already holds a key twice) and the paths that refuse."""

from __future__ import annotations

import datetime
import decimal
import random
import time
import zlib

import pyarrow as pa
import pytest

from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.metadata.schema import Schema
from paimon_core.ops.ingest import write_tables
from paimon_core.write.cross_partition_guard import CrossPartitionConflict
from paimon_core.write.key_index import DuplicateKeyInTable, bootstrap

ENGINES = {
    "deduplicate": {},
    "partial-update": {},
    "aggregation": {"fields.v.aggregate-function": "sum"},
    "first-row": {},
}
PARTS = ["a", "b", "c"]


def _schema(options: dict) -> Schema:
    return Schema(
        Schema.parse_columns("id BIGINT NOT NULL, v BIGINT, s STRING, dt STRING"),
        partition_keys=("dt",),
        primary_keys=("id",),
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "7", **options},
    )


def _batch(rows: list[tuple]) -> pa.Table:
    ids, vs, ss, dts, kinds = zip(*rows) if rows else ((), (), (), (), ())
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": pa.array(vs, pa.int64()),
            "s": pa.array(ss, pa.string()),
            "dt": pa.array(dts, pa.string()),
            "op": pa.array(kinds, pa.string()),
        }
    )


def _apply(model: dict, engine: str, rows: list[tuple]) -> None:
    """Java 0.9's rule, record after record: key -> (v, s, dt)."""
    for k, v, s, dt, op in rows:
        cur = model.get(k)
        if engine == "deduplicate":
            if op in ("-D", "-U"):
                model.pop(k, None)
            else:
                model[k] = (v, s, dt)
        elif engine == "first-row":
            if cur is None:
                model[k] = (v, s, dt)
        elif cur is None:
            model[k] = (v, s, dt)
        elif engine == "partial-update":  # non-null fields win; the row stays in its partition
            model[k] = (v if v is not None else cur[0], s if s is not None else cur[1], cur[2])
        else:  # aggregation: v sums, s is last non-null; the row stays in its partition
            model[k] = (
                (cur[0] or 0) + (v or 0) if v is not None or cur[0] is not None else None,
                s or cur[1],
                cur[2],
            )


def _read(t) -> dict:
    out = t.read().to_pylist()
    ids = [r["id"] for r in out]
    assert len(ids) == len(set(ids)), "a key in two places"
    return {r["id"]: (r["v"], r["s"], r["dt"]) for r in out}


def _random_rows(rng: random.Random, n: int, engine: str) -> list[tuple]:
    rows = []
    for _ in range(n):
        k = rng.randrange(60)
        op = "-D" if engine == "deduplicate" and rng.random() < 0.08 else "+I"
        v = None if engine == "partial-update" and rng.random() < 0.3 else rng.randrange(100)
        s = None if rng.random() < 0.3 else f"s{rng.randrange(9)}"
        rows.append((k, v, s, rng.choice(PARTS), op))
    return rows


VARIANTS = {  # more table kinds, with the deduplicate rule
    "deletion-vectors": {"deletion-vectors.enabled": "true"},
    "changelog-input": {"changelog-producer": "input"},
    "changelog-lookup": {"changelog-producer": "lookup"},
    "small-buffer": {"write-buffer-size": "4 kb", "page-size": "1 kb"},
}


@pytest.mark.parametrize("engine", list(ENGINES) + list(VARIANTS))
def test_keys_moving_partitions_follow_the_engine_rule(catalog, engine):
    options = {"merge-engine": engine, **ENGINES[engine]} if engine in ENGINES else VARIANTS[engine]
    t = catalog.create_table("db.x", _schema(options))
    rng = random.Random(zlib.crc32(engine.encode()))
    engine = engine if engine in ENGINES else "deduplicate"
    model: dict = {}
    for commit in range(6):
        chunks = [_random_rows(rng, rng.randrange(20, 90), engine) for _ in range(3)]
        write_tables(t, [_batch(c) for c in chunks], row_kind_column="op")
        for c in chunks:
            _apply(model, engine, c)
        assert _read(t) == model, f"after commit {commit + 1}"
    # every key is in one (partition, bucket) of the files too, and the bootstrap agrees
    index = bootstrap(t, t.snapshots.latest())
    assert index.rows.num_rows == len(model)
    parts = {index.partitions[p][0] for p in index.rows.column("_PART").to_pylist()}
    assert parts <= set(PARTS)


def test_a_moved_key_leaves_a_delete_in_its_old_partition_and_no_index_files(catalog):
    t = catalog.create_table("db.x", _schema({}))
    write_tables(t, [_batch([(1, 10, "x", "a", "+I"), (2, 20, "y", "a", "+I")])], row_kind_column="op")
    write_tables(t, [_batch([(1, 11, "z", "b", "+I")])], row_kind_column="op")
    snap = t.snapshots.latest()
    assert snap.index_manifest is None  # Java 0.9 keeps no index files in this mode
    from paimon_core.read.scan import live_entries

    codec = t.partition_codec
    files = {
        (codec.from_bytes(e.partition), e.bucket, e.file.row_count, e.file.delete_row_count)
        for e in live_entries(t.manifests, snap)
    }
    assert (("a",), 0, 1, 1) in files  # the -D of key 1 in partition a
    assert (("b",), 0, 1, 0) in files
    assert _read(t) == {1: (11, "z", "b"), 2: (20, "y", "a")}


def test_buckets_fill_to_the_target_row_number_per_partition(catalog):
    t = catalog.create_table("db.x", _schema({}))
    write_tables(
        t, [_batch([(k, k, None, "a" if k < 20 else "b", "+I") for k in range(30)])], row_kind_column="op"
    )
    index = bootstrap(t, t.snapshots.latest())
    counts = {(index.partitions[p][0], b): n for (p, b), n in _counts(index).items()}
    assert counts == {("a", 0): 7, ("a", 1): 7, ("a", 2): 6, ("b", 0): 7, ("b", 1): 3}


def _counts(index) -> dict:
    out: dict = {}
    for p, per in index.counts.items():
        for b, n in per.items():
            out[(p, b)] = n
    return out


def test_schema_rules_at_create_table(catalog):
    catalog.create_table("db.ok", _schema({}))
    # bucket = N: plain fixed buckets, a key unique within its partition (Java 1.x)
    fixed = catalog.create_table("db.fixed", _schema({"bucket": "2"}))
    assert not fixed.schema.cross_partition_update and fixed.schema.key_leaves_out_partition
    with pytest.raises(InvalidInput, match="needs dynamic buckets"):
        catalog.create_table("db.postponed", _schema({"bucket": "-2"}))
    with pytest.raises(InvalidInput, match="sequence.field cannot be used"):
        catalog.create_table("db.seq", _schema({"sequence.field": "v"}))


def test_a_table_that_already_holds_a_key_twice_is_refused_with_the_key(catalog):
    t = catalog.create_table("db.x", _schema({}))
    write_tables(t, [_batch([(1, 1, None, "a", "+I"), (2, 2, None, "a", "+I")])], row_kind_column="op")
    # what a bad writer left (e.g. ingest before this mode existed): key 1 in partition b too
    w = t.new_writer()
    w.cross = None  # write around the key index, as the old code path did
    from paimon_core.write.dynamic_bucket import DynamicBucketAssigner

    w.assigner = DynamicBucketAssigner(t, None, 100)
    w._codec = t.partition_codec
    w.write(_batch([(1, 9, None, "b", "+I")]).drop_columns(["op"]))
    t.commit(w.prepare_commit(), _opts(t.snapshots.latest().id))
    snap = t.snapshots.latest()
    with pytest.raises(
        DuplicateKeyInTable, match=r"key \(id=1\) in 2 places \(dt=a bucket 0; dt=b bucket 0\)"
    ):
        write_tables(t, [_batch([(3, 3, None, "a", "+I")])], row_kind_column="op")
    assert t.snapshots.latest().id == snap.id


def _assert_gone(t, messages) -> None:
    for m in messages:
        for f in m.new_files:
            assert not t.io.exists(t.io.join(t.bucket_path(m.partition, m.bucket), f.file_name))


def _opts(base):
    from paimon_core.commit.file_store_commit import CommitOptions

    return CommitOptions(index_base=base)


def test_index_ttl_leaves_out_buckets_with_no_young_file(catalog):
    t = catalog.create_table("db.x", _schema({"cross-partition-upsert.index-ttl": "1 s"}))
    write_tables(t, [_batch([(1, 1, None, "a", "+I")])], row_kind_column="op")
    assert bootstrap(t, t.snapshots.latest()).rows.num_rows == 1
    time.sleep(1.2)
    assert bootstrap(t, t.snapshots.latest()).rows.num_rows == 0  # Java's rule: the key is forgotten


def test_bootstrap_reads_with_the_given_parallelism(catalog):
    t = catalog.create_table("db.x", _schema({"cross-partition-upsert.bootstrap-parallelism": "1"}))
    write_tables(t, [_batch([(k, k, None, PARTS[k % 3], "+I") for k in range(50)])], row_kind_column="op")
    assert bootstrap(t, t.snapshots.latest()).rows.num_rows == 50


def test_a_data_commit_after_the_index_was_read_refuses_the_commit(catalog):
    t = catalog.create_table("db.x", _schema({}))
    write_tables(t, [_batch([(1, 1, None, "a", "+I")])], row_kind_column="op")
    base = t.snapshots.latest().id
    w = t.new_writer()
    w.write(_batch([(2, 2, None, "b", "+I")]).drop_columns(["op"]))
    messages = w.prepare_commit()
    write_tables(t, [_batch([(2, 5, None, "a", "+I")])], row_kind_column="op")  # another writer
    with pytest.raises(CrossPartitionConflict, match="another writer changed"):
        t.commit(messages, _opts(base))
    _assert_gone(t, messages)  # the commit left none of their files
    assert _read(t) == {1: (1, None, "a"), 2: (5, None, "a")}


def test_a_commit_without_the_key_index_is_refused(catalog):
    t = catalog.create_table("db.x", _schema({}))
    w = t.new_writer()
    w.write(_batch([(2, 2, None, "b", "+I")]).drop_columns(["op"]))
    messages = w.prepare_commit()
    with pytest.raises(UnsupportedFeature, match=r"without CommitOptions.index_base .*writer.index_base"):
        t.commit(messages)
    _assert_gone(t, messages)  # the commit left none of their files


def test_a_writer_by_hand_commits_with_its_index_base(catalog):
    t = catalog.create_table("db.x", _schema({}))
    write_tables(t, [_batch([(1, 1, None, "a", "+I")])], row_kind_column="op")
    w = t.new_writer()
    assert w.index_base == 1
    w.write(_batch([(1, 2, None, "b", "+I")]).drop_columns(["op"]))
    t.commit(w.prepare_commit(), _opts(w.index_base))
    assert _read(t) == {1: (2, None, "b")}


def test_an_ingest_that_lost_the_index_race_is_written_again(catalog, monkeypatch):
    """Another writer moves key 2 to partition a after our writer read the index (which had key 2
    in b): committed as written, our record for key 2 in c would leave it in a and c."""
    from paimon_core.write import cross_partition

    t = catalog.create_table("db.x", _schema({}))
    write_tables(t, [_batch([(2, 2, None, "b", "+I")])], row_kind_column="op")
    real = cross_partition.bootstrap
    calls = []

    def racing_bootstrap(table, snapshot):
        index = real(table, snapshot)
        calls.append(snapshot.id)
        if len(calls) == 1:  # the other writer commits right after our index was read
            write_tables(catalog.get_table("db.x"), [_batch([(2, 5, None, "a", "+I")])], row_kind_column="op")
        return index

    monkeypatch.setattr(cross_partition, "bootstrap", racing_bootstrap)
    write_tables(t, [_batch([(2, 7, None, "c", "+I")])], row_kind_column="op")
    assert calls == [1, 1, 2]  # ours, the other writer's, ours again on the other's snapshot
    assert _read(t) == {2: (7, None, "c")}


def test_streaming_ingest_routes_keys_commit_by_commit(catalog):
    from paimon_core.ops.streaming import StreamingCommitter

    t = catalog.create_table("db.x", _schema({}))
    committer = StreamingCommitter(t, "stream-user")
    rng = random.Random(5)
    model: dict = {}
    for _ in range(4):
        rows = _random_rows(rng, 40, "deduplicate")
        committer.write([_batch(rows)], row_kind_column="op")
        _apply(model, "deduplicate", rows)
        assert _read(t) == model


@pytest.mark.parametrize("what", ["delete", "overwrite", "ignore-delete"])
def test_paths_not_done_refuse_by_name(catalog, what):
    opts = {"ignore-delete": "true"} if what == "ignore-delete" else {}
    t = catalog.create_table("db.x", _schema(opts))
    if what != "ignore-delete":
        write_tables(t, [_batch([(1, 1, None, "a", "+I")])], row_kind_column="op")
    before = t.snapshots.latest()
    with pytest.raises(UnsupportedFeature) as e:
        if what == "delete":
            from paimon_core.ops.delete import delete_where

            delete_where(t, "id = 1")
        elif what == "overwrite":
            write_tables(t, [_batch([(1, 2, None, "b", "+I")])], overwrite=True, row_kind_column="op")
        else:
            write_tables(t, [_batch([(1, 2, None, "b", "+I")])], row_kind_column="op")
    assert ("ignore-delete" if what == "ignore-delete" else "cross-partition upsert table") in str(e.value)
    assert t.snapshots.latest() == before


def test_alter_table_keeps_the_schema_rules(catalog):
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    t = catalog.create_table("db.x", _schema({}))
    with pytest.raises(InvalidInput, match="sequence.field cannot be used"):
        alter_table(t, [SetOption("sequence.field", "v")])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"bucket": "-2"}, "writing with bucket = -2 is not supported"),
        ({"sequence.field": "v"}, "sequence.field cannot be used"),
    ],
)
def test_tables_other_engines_may_have_written_are_refused_by_the_writer(catalog, options, message):
    """Schemas we (and Java 0.9) refuse at create-table, as a newer writer could leave them."""
    from dataclasses import replace

    t = catalog.create_table("db.x", _schema({}))
    odd = t.with_schema(replace(t.schema, options={**t.schema.options, **options}))
    with pytest.raises(UnsupportedFeature, match=message):
        write_tables(odd, [_batch([(1, 1, None, "a", "+I")])], row_kind_column="op")
    assert t.snapshots.latest() is None


@pytest.mark.parametrize("engine", ["aggregation", "deduplicate"])
def test_composite_keys_and_a_date_partition_with_nulls(catalog, engine):
    """A two-column key and moves into and out of the default (NULL) partition of a DATE
    partition column: the moved records' partition values are set as the column's type."""
    schema = Schema(
        Schema.parse_columns("id INT NOT NULL, name STRING NOT NULL, v BIGINT, d DATE, h INT"),
        partition_keys=("d", "h"),
        primary_keys=("id", "name"),
        options={
            "bucket": "-1",
            "dynamic-bucket.target-row-num": "3",
            "merge-engine": engine,
            "fields.v.aggregate-function": "sum",
        },
    )
    t = catalog.create_table("db.c", schema)
    days = [datetime.date(2024, 1, 1), datetime.date(1969, 12, 31), None]
    rng = random.Random(7)
    model: dict = {}
    for _ in range(5):
        rows = [
            (rng.randrange(6), rng.choice("pq"), rng.randrange(10), rng.choice(days), rng.choice([1, None]))
            for _ in range(30)
        ]
        batch = pa.table(
            {
                "id": pa.array([r[0] for r in rows], pa.int32()),
                "name": [r[1] for r in rows],
                "v": pa.array([r[2] for r in rows], pa.int64()),
                "d": pa.array([r[3] for r in rows], pa.date32()),
                "h": pa.array([r[4] for r in rows], pa.int32()),
            }
        )
        t.write_arrow(batch)
        for k1, k2, v, d, h in rows:  # aggregation: the row stays where the key was first written
            cur = model.get((k1, k2))
            keep = cur is not None and engine == "aggregation"
            model[(k1, k2)] = (cur[0] + v, cur[1], cur[2]) if keep else (v, d, h)
        got = t.read().to_pylist()
        assert len(got) == len(model)
        assert {(r["id"], r["name"]): (r["v"], r["d"], r["h"]) for r in got} == model


PARTITION_TYPES = {
    "DECIMAL(20, 2)": pa.array([decimal.Decimal("1.50"), decimal.Decimal("2.25")], pa.decimal128(20, 2)),
    "TIMESTAMP(6)": pa.array(
        [datetime.datetime(2024, 1, 1, 1, 2, 3, 456789), datetime.datetime(2024, 1, 2)], pa.timestamp("us")
    ),
    "TIMESTAMP(3) WITH LOCAL TIME ZONE": pa.array(
        [datetime.datetime(2024, 1, 1, 1, 2, 3, 456000), datetime.datetime(2024, 1, 2)],
        pa.timestamp("ms", "UTC"),
    ),
    "BOOLEAN": pa.array([True, False]),
    "TIME": pa.array([datetime.time(1, 2, 3), datetime.time(4, 5, 6)], pa.time32("ms")),
    "BIGINT": pa.array([None, 2], pa.int64()),
}


@pytest.mark.parametrize("engine", ["partial-update", "deduplicate"])
@pytest.mark.parametrize("ptype", list(PARTITION_TYPES))
def test_moved_records_get_partition_values_of_every_type(catalog, ptype, engine):
    """partial-update writes the record into the old partition (its partition value set from
    the index), deduplicate a -D there: both with the partition column's own type."""
    parts = PARTITION_TYPES[ptype]
    schema = Schema(
        Schema.parse_columns(f"k INT NOT NULL, v INT, p {ptype}"),
        partition_keys=("p",),
        primary_keys=("k",),
        options={"bucket": "-1", "merge-engine": engine},
    )
    t = catalog.create_table("db.p", schema)
    t.write_arrow(
        pa.table({"k": pa.array([1], pa.int32()), "v": pa.array([1], pa.int32()), "p": parts.slice(0, 1)})
    )
    moved = pa.concat_arrays([parts.slice(1, 1), parts.slice(1, 1)])
    t.write_arrow(
        pa.table({"k": pa.array([1, 1], pa.int32()), "v": pa.array([None, 5], pa.int32()), "p": moved})
    )
    assert t.read().to_pylist() == [
        {"k": 1, "v": 5, "p": parts[0 if engine == "partial-update" else 1].as_py()}
    ]
