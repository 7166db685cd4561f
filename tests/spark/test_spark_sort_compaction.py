"""Sort compaction (``compact --order-by/--zorder/--hilbert``) on Spark: a task per partition
writes the files the local engine writes (same rows in the same order, file by file), committed
as one OVERWRITE; a failed task leaves no snapshot and no file; Java reads the result."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.sort_compaction import sort_compact
from paimon_core.errors import PaimonError
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from tests.interop.conftest import java_releases  # noqa: F401
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow
from tests.spark.test_spark_engine import data_files

TYPES = {"a": "INT", "s": "STRING", "d": "DOUBLE", "dt": "STRING NOT NULL"}
STRATEGIES = (("order", ["s", "a"]), ("zorder", ["a", "d"]), ("hilbert", ["a", "d"]))


def _table(cat, name: str):
    """Four commits of 4,000 random rows over three partitions (several files each after a sort)."""
    ddl = ", ".join(f"{k} {v}" for k, v in TYPES.items())
    t = cat.create_table(name, Schema(Schema.parse_columns(ddl), ("dt",), (), {"target-file-size": "8kb"}))
    rng = random.Random(5)
    n = 4000
    for k in range(4):
        batch = {
            "a": pa.array([rng.randrange(-500, 500) for _ in range(n)], pa.int32()),
            "s": [f"v{rng.randrange(99)}" for _ in range(n)],
            "d": [rng.random() for _ in range(n)],
            "dt": [f"d{k % 3}"] * n,
        }
        t.write_arrow(pa.table(batch, t.schema.arrow_schema()))
    return t


def _files_in_order(t) -> list[tuple[list[int], list[dict]]]:
    """Per split of the plan: its files' row counts in order and the rows read, in order."""
    reader = t.new_read()
    return [
        ([f.row_count for f in s.files], reader.read_split(s).to_pylist())
        for s in t.plan(t.snapshots.latest())
    ]


def test_sort_compaction_on_spark_writes_what_local_writes(engine, tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    for strategy, cols in STRATEGIES:
        local, spark = _table(cat, f"db.l_{strategy}"), _table(cat, f"db.s_{strategy}")
        before = spark.snapshots.latest_id()
        want = sort_compact(local, strategy, cols)
        got = sort_compact(spark, strategy, cols, engine=engine)
        assert (got.partitions, got.rows, got.files_before, got.files_after) == (
            want.partitions,
            want.rows,
            want.files_before,
            want.files_after,
        )
        assert got.files_after > got.partitions  # several files per partition: their order counts
        assert got.snapshot is not None and got.snapshot.id == before + 1
        assert got.snapshot.commit_kind == "OVERWRITE"
        assert _files_in_order(spark) == _files_in_order(local), strategy
        sizes = sorted(
            (e.file.row_count, e.file.min_sequence_number)
            for e in live_entries(spark.manifests, got.snapshot)
        )
        assert sizes == sorted(
            (e.file.row_count, e.file.min_sequence_number)
            for e in live_entries(local.manifests, want.snapshot)
        )


def test_failed_sort_task_leaves_nothing(engine, tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = _table(cat, "db.f")
    files, latest = data_files(t), t.snapshots.latest_id()
    engine.fault = "raise:rewrite"
    try:
        with pytest.raises(PaimonError):
            sort_compact(t, "zorder", ["a", "d"], engine=engine)
    finally:
        engine.fault = None
    assert t.snapshots.latest_id() == latest and data_files(t) == files
    assert sort_compact(t, "zorder", ["a", "d"], engine=engine).snapshot is not None


@pytest.mark.interop
@pytest.mark.parametrize("engine", ["local"], indirect=True)
def test_java_reads_after_spark_sort_compaction(engine, tmp_path, java_releases):  # noqa: F811
    wh = str(tmp_path / "wh")
    t = _table(FileSystemCatalog(wh), "db.t")
    reqs, wants = [], []
    for strategy, cols in STRATEGIES:
        res = sort_compact(t, strategy, cols, engine=engine)
        assert res.snapshot is not None
        reqs.append({"op": "read", "warehouse": wh, "table": "db.t", "snapshot": res.snapshot.id})
        wants.append(rows_from_arrow(t.read(snapshot_id=res.snapshot.id), TYPES))
    for java in java_releases:  # one Spark run, read by each release
        for res, want in zip(java.run(reqs), wants, strict=True):
            assert_same_rows(res["rows"], want, label_a=f"java {java.version}", label_b="paimon-cli")
