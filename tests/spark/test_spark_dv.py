"""Deletion-vector tables on the Spark engine: ingest and compaction tasks keep the bucket
index as the local engine does, and read tasks drop deleted rows (a DataFrame of the table
equals the local read, which the core and interop tests check against models and Java)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.engines.spark.frames import to_dataframe
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where
from paimon_core.ops.ingest import ingest_files
from tests.spark.test_spark_engine import COLS, inputs, sorted_rows  # noqa: F401  (fixture)


# local only: the tasks are the same code on every lane, and what differs between lanes (task
# shipping, executors in other processes, Connect's client) is covered by test_spark_engine
@pytest.mark.parametrize("engine", ["local"], indirect=True)
def test_dv_tables_on_spark(engine, inputs, tmp_path):  # noqa: F811
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    for name, pks, opts in (("pk", ("id",), {"bucket": "2"}), ("ap", (), {})):
        t = cat.create_table(
            f"db.{name}",
            Schema(Schema.parse_columns(COLS), (), pks, {**opts, "deletion-vectors.enabled": "true"}),
        )
        for f in inputs:
            ingest_files(t, [f], engine=engine)
        assert delete_where(t, "id < 30 OR v IS NULL").rows > 0
        cols = ["id", "v", "dt"]
        want = sorted_rows(t.read(columns=cols))
        assert len(want) < (150 if pks else 590)  # deleted rows are gone (PK: 150 keys at most)
        df = to_dataframe(engine.spark, cat.get_table(f"db.{name}"), columns=cols)
        assert sorted_rows(pa.Table.from_pylist([r.asDict() for r in df.collect()])) == want, name
        compact(t, full=True, engine=engine)
        assert sorted_rows(cat.get_table(f"db.{name}").read(columns=cols)) == want, name
