"""The Spark engine merges like the local engine on the merge-engine matrix tables (every merge
engine and changelog producer over a column of every type, tests/interop/merge_matrix.py):
the same commits ingested and then fully compacted by each engine read the same. Local[2] lane
only. Each matrix commit is its own ingest (one file, one Spark job): the grouping of records
into runs then matches the local engine's, which matters for FLOAT sums (not associative)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.engines.local import LocalEngine
from paimon_core.metadata.schema import Schema
from paimon_core.ops.ingest import ingest_files
from tests.interop import merge_matrix as M
from tests.interop.harness.canonical import arrow_from_rows, assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.parametrize("engine", ["local"], indirect=True)


def test_matrix_tables_read_the_same_as_with_the_local_engine(engine, tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    schema = M.arrow_schema()
    for name, (_, retract, unordered) in M.TABLES.items():
        files = []
        for i, rows in enumerate(M.commits(retract)):
            data = arrow_from_rows(rows, schema).append_column(
                "_kind", pa.array([r.get("_row_kind", "+I") for r in rows])
            )
            files.append(str(tmp_path / f"{name}-{i}.parquet"))
            pq.write_table(data, files[-1])
        tables = {}
        for side, eng in (("local", LocalEngine()), ("spark", engine)):
            t = cat.create_table(
                f"{side}.{name}", Schema(Schema.parse_columns(M.schema_ddl()), (), ("id",), M.options(name))
            )
            for f in files:
                ingest_files(t, [f], engine=eng, row_kind_column="_kind")
            tables[side] = cat.get_table(t.identifier)
        local = rows_from_arrow(tables["local"].read(), M.TYPES)
        assert local, name
        assert_same_rows(
            M.normalize(rows_from_arrow(tables["spark"].read(), M.TYPES), unordered),
            M.normalize(local, unordered),
            label_a=f"spark-ingested {name}",
            label_b="local",
        )
        compact(tables["local"], full=True)
        spark = tables["spark"]
        messages = engine.compact(spark, spark.plan(spark.snapshots.latest(), all_levels=True), full=True)
        if messages:
            spark.commit(messages, kind="COMPACT")
        after_local = rows_from_arrow(cat.get_table(f"local.{name}").read(), M.TYPES)
        after_spark = rows_from_arrow(cat.get_table(f"spark.{name}").read(), M.TYPES)
        assert_same_rows(
            M.normalize(after_local, unordered),
            M.normalize(local, unordered),
            label_a=f"local {name} compacted",
            label_b="before",
        )
        assert_same_rows(
            M.normalize(after_spark, unordered),
            M.normalize(local, unordered),
            label_a=f"spark {name} compacted by Spark",
            label_b="local",
        )
