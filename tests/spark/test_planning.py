"""Driver-side planning of the Spark engine, without a Spark session."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_core.catalog import FileSystemCatalog
from paimon_core.engines import get_engine
from paimon_core.engines.base import AutoEngine
from paimon_core.engines.spark.engine import SparkEngine
from paimon_core.engines.spark.frames import core_zip
from paimon_core.engines.spark.plan import job_prefix, plan_pieces, sweep_job_files
from paimon_core.metadata.schema import Schema
from paimon_core.write.input_files import resolve_inputs


def test_pieces_split_parquet_at_row_groups_in_input_order(tmp_path):
    pq.write_table(pa.table({"a": list(range(1000))}), tmp_path / "a.parquet", row_group_size=100)
    (tmp_path / "b.csv").write_text("a\n1\n2\n")
    inputs = resolve_inputs([str(tmp_path / "a.parquet"), str(tmp_path / "b.csv")])
    pieces = plan_pieces(inputs, piece_bytes=1)
    assert [p.index for p in pieces] == list(range(11))
    assert [p.row_groups for p in pieces[:10]] == [(i,) for i in range(10)]
    assert pieces[10].format == "csv" and pieces[10].row_groups is None
    assert len(plan_pieces(inputs)) == 2


def test_sweep_deletes_only_the_jobs_uncommitted_files(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT, dt STRING"), ("dt",)))
    prefix = job_prefix(t)
    d = t.bucket_path(("x",), 0)
    t.io.mkdirs(d)
    for name in (f"{prefix}1-0.parquet", f"{prefix}2-0.parquet", "data-other-0.parquet"):
        t.io.write_bytes(t.io.join(d, name), b"x")
    assert sweep_job_files(t, prefix, keep={f"{prefix}2-0.parquet"}) == 1
    assert sorted(t.io.list_names(d)) == sorted([f"{prefix}2-0.parquet", "data-other-0.parquet"])


def test_core_zip_holds_the_package():
    import zipfile

    names = zipfile.ZipFile(core_zip()).namelist()
    assert "paimon_core/__init__.py" in names and "paimon_core/engines/spark/tasks.py" in names


def test_get_engine():
    assert get_engine("local").name == "local"
    eng = get_engine("spark", master="local[1]", conf={"a": "b"})
    assert isinstance(eng, SparkEngine) and eng.master == "local[1]" and eng._spark is None
    auto = get_engine("auto", spark_threshold="2gb")
    assert isinstance(auto, AutoEngine) and auto.threshold == 2 << 30
    assert auto.pick(1).name == "local" and auto._spark is None
