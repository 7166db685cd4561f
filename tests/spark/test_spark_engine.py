"""The Spark engine against the local engine: same inputs, same reads; failures leave nothing."""

from __future__ import annotations

import datetime as dt
import decimal
import os

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.engines import get_engine
from paimon_core.engines.local import LocalEngine
from paimon_core.engines.spark.frames import to_dataframe
from paimon_core.errors import PaimonError, SchemaMismatch
from paimon_core.metadata.schema import Schema
from paimon_core.ops.ingest import ingest_files

COLS = (
    "id BIGINT NOT NULL, v STRING, d DOUBLE, ts TIMESTAMP(6), day DATE, amt DECIMAL(10,2), "
    "flag BOOLEAN, dt STRING NOT NULL"
)

# name -> (partition keys, primary keys, options)
KINDS = {
    "append": ((), (), {"bucket": "-1"}),
    "append_part_b2": (("dt",), (), {"bucket": "2", "bucket-key": "id"}),
    "pk_b2": ((), ("id",), {"bucket": "2"}),
    "pk_part_b3": (("dt",), ("id", "dt"), {"bucket": "3"}),
    "pk_part_dynamic": (("dt",), ("id", "dt"), {"bucket": "-1", "dynamic-bucket.target-row-num": "40"}),
}


def rows(n: int, start: int, tag: str) -> pa.Table:
    ids = [(start + i) % 150 for i in range(n)]  # repeated keys: the last one must win
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": [f"{tag}{i}" if i % 7 else None for i in range(n)],
            "d": [i * 0.25 for i in range(n)],
            "ts": pa.array(
                [dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i * 37) for i in range(n)], pa.timestamp("us")
            ),
            "day": pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=i % 40) for i in range(n)]),
            "amt": pa.array([decimal.Decimal(i * 3) / 100 for i in range(n)], pa.decimal128(10, 2)),
            "flag": [i % 3 == 0 for i in range(n)],
            "dt": [f"2024-01-0{k % 3 + 1}" for k in ids],
        }
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    pq.write_table(rows(300, 0, "a"), d / "a.parquet", row_group_size=70)
    pcsv.write_csv(rows(120, 100, "b"), d / "b.csv")
    pq.write_table(rows(200, 50, "c"), d / "c.parquet", row_group_size=64)
    return [str(d / "a.parquet"), str(d / "b.csv"), str(d / "c.parquet")]


def make(catalog, name: str, kind: str):
    parts, pks, opts = KINDS[kind]
    return catalog.create_table(f"db.{name}", Schema(Schema.parse_columns(COLS), parts, pks, dict(opts)))


def sorted_rows(t: pa.Table) -> list:
    return sorted(t.to_pylist(), key=repr)


def data_files(table) -> set:
    out = set()
    for root, _, names in os.walk(table.path):
        out.update(
            os.path.join(root, n) for n in names if n.endswith(".parquet") and "/bucket-" in root + "/"
        )
    return out


# The bucketing of each kind is the same task code on every lane; the remote lanes prove the
# transport (the shipped package, pickled specs, messages back, files written by executors) on a
# partitioned fixed-bucket table and a dynamic-bucket one, whose key index the tasks write too.
REMOTE_KINDS = ("pk_part_b3", "pk_part_dynamic")


def test_lane_equivalence(engine, inputs, tmp_path):
    """Ingest twice, compact, read: the Spark tables read exactly like the local ones (every
    kind on local[2], ``REMOTE_KINDS`` on Connect and standalone)."""
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    for kind in KINDS if engine.lane == "local" else REMOTE_KINDS:
        local, spark = make(cat, f"{kind}_local", kind), make(cat, f"{kind}_spark", kind)
        for batch in (inputs[:2], inputs[2:]):
            ingest_files(local, batch, engine=LocalEngine())
            ingest_files(spark, batch, engine=engine)
        local, spark = cat.get_table(local.identifier), cat.get_table(spark.identifier)
        expected = sorted_rows(local.read())
        assert sorted_rows(spark.read()) == expected, kind
        assert spark.snapshots.latest().total_record_count == local.snapshots.latest().total_record_count, (
            kind
        )

        splits = spark.plan(spark.snapshots.latest(), all_levels=True)
        messages = engine.compact(spark, splits, full=True)
        assert messages, kind
        spark.commit(messages, kind="COMPACT")
        spark = cat.get_table(spark.identifier)
        assert sorted_rows(spark.read()) == expected, kind
        df = to_dataframe(engine.spark, spark, columns=["id", "v", "dt"], where="id < 100")
        want = sorted_rows(local.read(columns=["id", "v", "dt"], where="id < 100"))
        assert sorted_rows(pa.Table.from_pylist([r.asDict() for r in df.collect()])) == want, kind


def test_dataframe_at_snapshot(engine, inputs, tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = make(cat, "snap", "pk_b2")
    ingest_files(t, inputs[:1], engine=engine)
    ingest_files(t, inputs[1:], engine=engine)
    first = to_dataframe(engine.spark, t, snapshot_id=1)
    assert first.count() == t.read(snapshot_id=1).num_rows
    assert set(first.columns) == set(t.schema.field_names)
    assert to_dataframe(engine.spark, cat.get_table("db.snap")).count() == t.read().num_rows


@pytest.mark.parametrize("fault", ["raise:write", "crash:commit"])
def test_failed_task_leaves_no_commit(engine, inputs, tmp_path, fault):
    """A task that fails after other tasks wrote files: no snapshot, no files; the rerun works."""
    if engine.lane == "connect" and fault.startswith("crash"):
        pytest.skip("covered on the classic lanes (the Connect server's workers are the same code)")
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    for kind in ("pk_part_b3", "append"):
        t = make(cat, f"f_{kind}", kind)
        ingest_files(t, inputs[:1], engine=LocalEngine())
        before, snap = data_files(t), t.snapshots.latest().id
        engine.fault = fault
        try:
            with pytest.raises(PaimonError):
                ingest_files(t, inputs, engine=engine)
        finally:
            engine.fault = None
        assert t.snapshots.latest().id == snap
        assert data_files(t) == before, kind
        ingest_files(t, inputs, engine=engine)
        local = make(cat, f"f_{kind}_local", kind)
        ingest_files(local, inputs[:1], engine=LocalEngine())
        ingest_files(local, inputs, engine=LocalEngine())
        assert sorted_rows(cat.get_table(t.identifier).read()) == sorted_rows(local.read())


def test_bad_row_is_a_schema_mismatch(engine, tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = make(cat, "bad", "pk_b2")
    good = rows(50, 0, "g")
    bad = good.set_column(0, "id", pa.array([None if i == 30 else i for i in range(50)], pa.int64()))
    pq.write_table(good, tmp_path / "good.parquet")
    pq.write_table(bad, tmp_path / "bad.parquet")
    with pytest.raises(SchemaMismatch, match="NOT NULL"):
        ingest_files(t, [str(tmp_path / "good.parquet"), str(tmp_path / "bad.parquet")], engine=engine)
    assert t.snapshots.latest() is None and not data_files(t)


def test_auto_engine(engine, inputs, tmp_path):
    """`auto` runs a small input in-process (no Spark job) and a large one on Spark (Spark jobs
    run), and both writes read exactly like the same writes through the local engine."""
    if engine.lane != "local":
        pytest.skip("one lane is enough")
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t, twin = make(cat, "auto", "pk_b2"), make(cat, "auto_local", "pk_b2")
    tracker = engine.spark.sparkContext.statusTracker()

    def jobs() -> int:
        return len(tracker.getJobIdsForGroup(None))

    small = get_engine("auto", session=engine.spark)
    before = jobs()
    ingest_files(t, inputs[:1], engine=small)
    assert small.chosen == "local" and jobs() == before
    ingest_files(twin, inputs[:1], engine=LocalEngine())
    assert sorted_rows(cat.get_table(t.identifier).read()) == sorted_rows(twin.read())
    big = get_engine("auto", spark_threshold="1b", session=engine.spark)
    ingest_files(t, inputs[1:], engine=big)
    assert big.chosen == "spark" and jobs() > before
    ingest_files(twin, inputs[1:], engine=LocalEngine())
    assert sorted_rows(cat.get_table(t.identifier).read()) == sorted_rows(
        cat.get_table(twin.identifier).read()
    )


def test_sql_and_diff_dataframes(engine, inputs, tmp_path):
    """`spark.sql.sql` (time travel, joins) and `diff_dataframe` on every lane (Connect included)."""
    from paimon_core.engines.spark.sql import diff_dataframe, sql
    from paimon_core.read.diff import diff

    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = make(cat, "q", "pk_b2")
    ingest_files(t, inputs[:1], engine=engine)
    ingest_files(t, inputs[1:], engine=engine)
    t = cat.get_table("db.q")
    spark = engine.spark
    got = sql(
        spark, cat, "SELECT count(*) AS n FROM db.q VERSION AS OF 1 a JOIN `db.q$snapshot=2` b ON a.id = b.id"
    ).collect()[0]["n"]
    assert got == t.read(snapshot_id=1).num_rows
    want = diff(t, 1, 2)
    df = diff_dataframe(spark, t, 1, 2)
    assert df.columns == want.column_names
    key = lambda r: (r["_row_kind"], r["id"])  # noqa: E731
    assert sorted((r.asDict() for r in df.select("_row_kind", "id", "v").collect()), key=key) == sorted(
        want.select(["_row_kind", "id", "v"]).to_pylist(), key=key
    )
    per = diff_dataframe(spark, t, 0, 2, "delta", per_snapshot=True)
    assert per.count() == diff(t, 0, 2, "delta", True).num_rows


def test_no_shuffle_ingest_matches_local_and_shuffle(engine, inputs, tmp_path):
    """Parquet inputs into fixed-bucket tables take the no-shuffle path (one task per piece, each
    writing every bucket it touches): reads equal the local engine's and the shuffle path's, and
    within a bucket the level-0 runs of different pieces have disjoint sequence ranges."""
    from paimon_core.engines.spark.plan import PIECE_BYTES, plan_pieces, with_offsets
    from paimon_core.write.input_files import resolve_inputs

    parquet = [inputs[0], inputs[2]]
    pieces = with_offsets(plan_pieces(resolve_inputs(parquet), piece_bytes=1))
    assert len(pieces) == 9 and [p.offset for p in pieces][:3] == [0, 70, 140] and pieces[5].offset == 300
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    # every kind, and the shuffle path beside, on local[2]; on the other lanes the tasks are the
    # same code, so two kinds (a partitioned primary key, a partitioned append) check what the
    # lane changes: pieces planned on the driver and written by executors elsewhere
    every = engine.lane == "local"
    kinds = ("pk_b2", "pk_part_b3", "append_part_b2", "append") if every else ("pk_part_b3", "append_part_b2")
    for kind in kinds:
        local, direct, shuffled = (make(cat, f"{kind}_{n}", kind) for n in ("local", "direct", "shuffled"))
        assert engine._direct_write(direct, pieces)
        engine.piece_bytes = 1  # a piece per row group: several pieces write the same buckets
        try:
            for batch in (parquet[:1], parquet, parquet[1:]):
                ingest_files(local, batch, engine=LocalEngine())
                ingest_files(direct, batch, engine=engine)
                if not every:
                    continue
                engine.shuffle_ingest = True
                try:
                    ingest_files(shuffled, batch, engine=engine)
                finally:
                    engine.shuffle_ingest = False
        finally:
            engine.piece_bytes = PIECE_BYTES
        expected = sorted_rows(cat.get_table(local.identifier).read())
        direct = cat.get_table(direct.identifier)
        assert sorted_rows(direct.read()) == expected, kind
        if every:
            assert sorted_rows(cat.get_table(shuffled.identifier).read()) == expected, kind
        if kind.startswith("pk"):
            for split in direct.plan(direct.snapshots.latest(), all_levels=True):
                ranges = sorted(
                    (f.min_sequence_number, f.max_sequence_number) for f in split.files if f.level == 0
                )
                assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), (kind, ranges)


@pytest.mark.parametrize("fault", ["raise:write", "crash:commit"])
def test_failed_no_shuffle_task_leaves_no_files(engine, inputs, tmp_path, fault):
    if engine.lane == "connect" and fault.startswith("crash"):
        pytest.skip("covered on the classic lanes")
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = make(cat, "nf", "pk_part_b3")
    ingest_files(t, inputs[:1], engine=LocalEngine())
    before, snap = data_files(t), t.snapshots.latest().id
    engine.fault = fault
    try:
        with pytest.raises(PaimonError):
            ingest_files(t, [inputs[0], inputs[2]], engine=engine)
    finally:
        engine.fault = None
    assert t.snapshots.latest().id == snap and data_files(t) == before
