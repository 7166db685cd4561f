"""The `paimon` PySpark data source on local[2]: batch read (time travel, `where` and column
pushdown), batch write (append, overwrite, CDC), and a real Structured Streaming query from one
table's changelog into an aggregation table, with a replayed micro-batch (as after a crash
between our commit and Spark's checkpoint commit) and restarts by checkpoint and by consumer id,
checked against a plain model."""

from __future__ import annotations

import os
import time

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema import Schema

pytestmark = pytest.mark.parametrize("engine", ["local"], indirect=True)


@pytest.fixture(scope="session")
def bare_python():
    """Only the local lane runs here (the Python workers are this interpreter); the conftest's
    check that the project is absent from a bare Python fails under a worktree PYTHONPATH."""
    import sys

    return sys.executable


@pytest.fixture
def spark(engine, tmp_path):
    from paimon_core.engines.spark.engine import register

    register(engine.spark, str(tmp_path / "wh"))
    return engine.spark


def _cat(tmp_path):
    return FileSystemCatalog(str(tmp_path / "wh"))


def _pk(cat, name="db.src", producer="input", extra=None):
    opts = {"bucket": "2", "changelog-producer": producer, **(extra or {})}
    return cat.create_table(
        name,
        Schema(
            Schema.parse_columns("id INT NOT NULL, cat STRING, dt STRING NOT NULL"),
            ("dt",),
            ("id", "dt"),
            opts,
        ),
    )


def _write(t, ids, cats, dts, kinds=None):
    data = {"id": pa.array(ids, pa.int32()), "cat": cats, "dt": dts}
    if kinds:
        data["k"] = kinds
    t.write_arrow(pa.table(data), row_kind_column="k" if kinds else None)


def _rows(df, cols=("id", "cat", "dt")):
    return sorted(tuple(r[c] for c in cols) for r in df.collect())


def test_batch_read_time_travel_and_pushdown(spark, tmp_path):
    t = _pk(_cat(tmp_path))
    _write(t, [1, 2, 3], ["a", "b", "a"], ["x", "x", "y"])
    _write(t, [2], ["c"], ["x"])
    from paimon_core.maintain.tags import create_tag

    create_tag(t, "first", 1)
    df = spark.read.format("paimon").load("db.src")
    assert df.columns == ["_row_kind", "id", "cat", "dt"]
    assert _rows(df) == [(1, "a", "x"), (2, "c", "x"), (3, "a", "y")]
    assert {r["_row_kind"] for r in df.collect()} <= {"+I", "+U"}
    assert _rows(spark.read.format("paimon").option("snapshot", "1").load("db.src")) == [
        (1, "a", "x"),
        (2, "b", "x"),
        (3, "a", "y"),
    ]
    assert _rows(spark.read.format("paimon").option("tag", "first").load("db.src")) == [
        (1, "a", "x"),
        (2, "b", "x"),
        (3, "a", "y"),
    ]
    when = t.snapshots.snapshot(1).time_millis
    assert len(spark.read.format("paimon").option("as-of", str(when)).load("db.src").collect()) == 3
    # filters given to Spark are Spark's; option `where` goes into the core's planning and reading
    assert _rows(df.filter("dt = 'y' AND id >= 2")) == [(3, "a", "y")]
    assert _rows(df.filter("cat IN ('c') OR id = 1")) == [(1, "a", "x"), (2, "c", "x")]  # the same df again
    pruned = spark.read.format("paimon").option("where", "dt = 'y'").load("db.src")
    assert _rows(pruned) == [(3, "a", "y")]
    assert pruned.rdd.getNumPartitions() < df.rdd.getNumPartitions()  # splits of dt=x not even planned
    narrow = spark.read.format("paimon").option("columns", "id").option("row-kind", "false").load("db.src")
    assert narrow.columns == ["id"] and sorted(r["id"] for r in narrow.collect()) == [1, 2, 3]


def test_batch_write_append_overwrite_cdc_and_refusals(spark, tmp_path):
    cat = _cat(tmp_path)
    t = _pk(cat, producer="none")
    df = spark.createDataFrame(
        [(i, f"c{i % 3}", "x" if i % 2 else "y") for i in range(40)], "id INT, cat STRING, dt STRING"
    )
    df.repartition(4).write.format("paimon").mode("append").save("db.src")
    assert len(t.read().to_pylist()) == 40
    assert t.snapshots.latest_id() == 1  # one commit for all tasks
    spark.createDataFrame(
        [("-D", 1, "c1", "x"), ("+U", 2, "new", "y")], "_row_kind STRING, id INT, cat STRING, dt STRING"
    ).write.format("paimon").mode("append").save("db.src")
    got = {r["id"]: r["cat"] for r in t.read().to_pylist()}
    assert 1 not in got and got[2] == "new" and len(got) == 39
    spark.createDataFrame([(7, "z", "x")], "id INT, cat STRING, dt STRING").write.format("paimon").mode(
        "overwrite"
    ).save("db.src")
    assert [(r["id"], r["cat"]) for r in t.read().to_pylist()] == [(7, "z")]
    cat.create_table("db.dyn", Schema(Schema.parse_columns("id INT NOT NULL"), (), ("id",), {"bucket": "-1"}))
    with pytest.raises(Exception, match="dynamic buckets"):
        spark.createDataFrame([(1,)], "id INT").write.format("paimon").mode("append").save("db.dyn")


def _await(query, timeout=300):
    query.processAllAvailable()
    deadline = time.time() + timeout
    while query.isActive and time.time() < deadline and query.status["isDataAvailable"]:
        time.sleep(0.2)


def _pipeline(spark, checkpoint, consumer=None):
    """changelog of db.src -> +1/-1 per category -> db.counts (aggregation: sum)."""
    from pyspark.sql import functions as F

    reader = spark.readStream.format("paimon").option("max-snapshots-per-trigger", "2")
    if consumer:
        reader = reader.option("consumer-id", consumer)
    changes = reader.load("db.src")
    deltas = changes.select(
        F.col("cat"),
        F.when(F.col("_row_kind").isin("+I", "+U"), F.lit(1)).otherwise(F.lit(-1)).cast("bigint").alias("n"),
    )
    return (
        deltas.writeStream.format("paimon")
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="200 milliseconds")
        .start("db.counts")
    )


def _model_counts(src):
    out: dict = {}
    for r in src.read().to_pylist():
        out[r["cat"]] = out.get(r["cat"], 0) + 1
    return out


def _counts(cat):
    return {r["cat"]: r["n"] for r in cat.get_table("db.counts").read().to_pylist() if r["n"] != 0}


def test_structured_streaming_changelog_aggregation_exactly_once(spark, tmp_path):
    cat = _cat(tmp_path)
    src = _pk(cat)
    cat.create_table(
        "db.counts",
        Schema(
            Schema.parse_columns("cat STRING NOT NULL, n BIGINT"),
            (),
            ("cat",),
            {"bucket": "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
        ),
    )
    _write(src, [1, 2, 3], ["a", "b", "a"], ["x", "x", "y"])
    ck = tmp_path / "ck"
    q = _pipeline(spark, ck, consumer="agg")
    _await(q)
    _write(src, [2, 4], ["a", "c"], ["x", "x"], ["+U", "+I"])  # input producer: the +U has no -U
    _write(src, [1], ["a"], ["x"], ["-D"])
    _await(q)
    q.stop()
    # +U without -U counts the new category only: the model is the changes as +1/-1
    expected = {"a": 2 + 1 - 1, "b": 1, "c": 1}
    assert _counts(cat) == expected
    # a crash after our commit but before Spark's commit log: Spark replays the last batch
    commits = sorted(int(n) for n in os.listdir(ck / "commits") if n.isdigit())
    last = commits[-1]
    for d, names in (("commits", [last]), ("offsets", range(last + 1, last + 100))):  # and later plans
        for n in names:
            for f in (ck / d / str(n), ck / d / f".{n}.crc"):  # Spark keeps a checksum file beside each
                if f.exists():
                    f.unlink()
    snaps_before = cat.get_table("db.counts").snapshots.latest_id()
    q = _pipeline(spark, ck, consumer="agg")
    _await(q)
    assert _counts(cat) == expected  # the replayed batch committed nothing
    counts = cat.get_table("db.counts")
    assert all(s.commit_identifier != last + 1 for s in counts.snapshots.snapshots() if s.id > snaps_before)
    # restart from the checkpoint with more input: only the new changes arrive
    _write(src, [5, 6], ["b", "b"], ["y", "y"])
    _await(q)
    expected["b"] += 2
    deadline = time.time() + 60
    while consumer_manager(src).get("agg") != src.snapshots.latest_id() + 1 and time.time() < deadline:
        time.sleep(0.2)
    q.stop()
    assert _counts(cat) == expected
    assert consumer_manager(src).get("agg") == src.snapshots.latest_id() + 1
    _java_reads_the_same(cat.get_table("db.counts"), str(tmp_path / "wh"))


def _java_reads_the_same(table, wh):
    """Java Paimon 0.9 and 1.4.2 read the table the stream writer committed as we do (skipped
    without a JDK; both releases here, so the Spark work runs once)."""
    import shutil

    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        return
    from tests.interop.harness import JavaPaimon
    from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow
    from tests.interop.harness.java_paimon import VERSIONS as JAVA_VERSIONS

    for version in JAVA_VERSIONS:
        res = JavaPaimon(version=version).run(
            [
                {"op": "read", "warehouse": wh, "table": table.identifier},
                {"op": "snapshots", "warehouse": wh, "table": table.identifier},
            ]
        )
        label = f"java {version}"
        assert_same_rows(rows_from_arrow(table.read()), res[0]["rows"], label_a="paimon-cli", label_b=label)
        ids = [s["commitIdentifier"] for s in res[1]["snapshots"] if s["commitKind"] == "APPEND"]
        assert ids == sorted(set(ids))  # one commit per micro-batch id, increasing


def test_stream_reader_resumes_from_its_consumer(spark, tmp_path):
    cat = _cat(tmp_path)
    src = _pk(cat)
    _write(src, [1, 2], ["a", "b"], ["x", "x"])

    def run(ck):
        q = (
            spark.readStream.format("paimon")
            .option("consumer-id", "c")
            .load("db.src")
            .writeStream.format("memory")
            .queryName(f"q{ck.name}")
            .option("checkpointLocation", str(ck))
            .start()
        )
        _await(q)
        deadline = time.time() + 60  # the consumer moves once Spark has committed the batch
        while consumer_manager(src).get("c") != src.snapshots.latest_id() + 1 and time.time() < deadline:
            time.sleep(0.2)
        q.stop()
        return sorted(
            (r["_row_kind"], r["id"], r["cat"]) for r in spark.sql(f"select * from q{ck.name}").collect()
        )

    assert run(tmp_path / "one") == [("+I", 1, "a"), ("+I", 2, "b")]
    _write(src, [2, 3], ["b2", "c"], ["x", "x"], ["+U", "+I"])
    # a new query (new checkpoint) with the same consumer starts where the first stopped
    assert run(tmp_path / "two") == [("+I", 3, "c"), ("+U", 2, "b2")]
    assert consumer_manager(src).get("c") == 3


def test_branches_by_name_and_option_and_in_sql(spark, tmp_path):
    """``db.t$branch_NAME`` (and option ``branch``) reads and writes that branch; `paimon sql`
    takes the same spelling."""
    from paimon_core.engines.spark.sql import sql
    from paimon_core.maintain.branches import create_branch
    from paimon_core.maintain.tags import create_tag

    cat = _cat(tmp_path)
    t = _pk(cat, producer="none")
    _write(t, [1, 2], ["a", "b"], ["x", "x"])
    create_tag(t, "t1", 1)
    create_branch(t, "b", tag="t1")
    spark.createDataFrame([(3, "br", "y")], "id INT, cat STRING, dt STRING").write.format("paimon").mode(
        "append"
    ).save("db.src$branch_b")
    assert _rows(spark.read.format("paimon").load("db.src")) == [(1, "a", "x"), (2, "b", "x")]
    on_branch = [(1, "a", "x"), (2, "b", "x"), (3, "br", "y")]
    assert _rows(spark.read.format("paimon").load("db.src$branch_b")) == on_branch
    assert _rows(spark.read.format("paimon").option("branch", "b").load("db.src")) == on_branch
    assert cat.get_table("db.src", branch="b").snapshots.latest_id() == 2
    got = sql(spark, cat, "SELECT id FROM `db.src$branch_b` WHERE id > 1 ORDER BY id").collect()
    assert [r["id"] for r in got] == [2, 3]
    got = sql(spark, cat, "SELECT count(*) AS n FROM db.`src$branch_b` VERSION AS OF 1").collect()
    assert got[0]["n"] == 2


def test_system_tables_through_the_source(spark, tmp_path):
    """load("db.t$snapshots") and sys.* give Java's columns; `where` and `columns` apply."""
    cat = _cat(tmp_path)
    t = _pk(cat)
    _write(t, [1, 2], ["a", "b"], ["d1", "d2"])
    _write(t, [3], ["c"], ["d1"])
    df = spark.read.format("paimon").load("db.src$snapshots")
    assert df.columns[:3] == ["snapshot_id", "schema_id", "commit_user"]
    assert sorted(r.snapshot_id for r in df.collect()) == [1, 2]
    parts = spark.read.format("paimon").option("columns", "partition,record_count").load("db.src$partitions")
    assert sorted((r.partition, r.record_count) for r in parts.collect()) == [("dt=d1", 2), ("dt=d2", 1)]
    files = spark.read.format("paimon").option("where", "bucket = 0").load("db.src$files").collect()
    assert files and all(r.bucket == 0 for r in files)
    assert spark.read.format("paimon").load("sys.all_table_options").collect()[0].table_name == "src"
