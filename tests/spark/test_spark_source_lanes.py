"""The `paimon` PySpark data source on the cluster lanes (Spark Connect and a standalone cluster):
executors that do not have the project installed read and write through it once the session
registered it. The full behaviour is covered on local[2] in test_spark_source.py; this proves
the data source itself travels to remote Python workers."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema

pytestmark = pytest.mark.parametrize("engine", ["connect", "standalone"], indirect=True)


def test_data_source_reads_and_writes_on_cluster_workers(engine, tmp_path):
    from paimon_core.engines.spark.engine import register

    wh = str(tmp_path / "wh")
    spark = engine.spark
    register(spark, wh)
    cat = FileSystemCatalog(wh)
    t = cat.create_table(
        "db.src",
        Schema(
            Schema.parse_columns("id INT NOT NULL, v STRING, dt STRING NOT NULL"),
            ("dt",),
            ("id", "dt"),
            {"bucket": "2"},
        ),
    )
    t.write_arrow(
        pa.table({"id": pa.array([1, 2, 3], pa.int32()), "v": ["a", "b", "c"], "dt": ["x", "x", "y"]})
    )
    t.write_arrow(pa.table({"id": pa.array([2], pa.int32()), "v": ["B"], "dt": ["x"]}))

    df = spark.read.format("paimon").option("row-kind", "false").load("db.src")
    assert sorted(tuple(r) for r in df.collect()) == [(1, "a", "x"), (2, "B", "x"), (3, "c", "y")]
    old = spark.read.format("paimon").option("snapshot", "1").option("row-kind", "false").load("db.src")
    assert sorted(r["v"] for r in old.collect()) == ["a", "b", "c"]

    rows = [(i, f"w{i}", "x" if i % 2 else "y") for i in range(10, 30)]
    spark.createDataFrame(rows, "id INT, v STRING, dt STRING").repartition(3).write.format("paimon").mode(
        "append"
    ).save("db.src")
    got = {(r["id"], r["dt"]): r["v"] for r in t.read().to_pylist()}
    assert len(got) == 23 and got[(11, "x")] == "w11" and got[(2, "x")] == "B"
    assert t.snapshots.latest_id() == 3  # the tasks' files in one commit
