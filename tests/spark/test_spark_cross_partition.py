"""The Spark paths refuse cross-partition upsert tables by name (they do not route keys through
the global key index), before any Spark job: the engine's ingest and the ``paimon`` data
source's batch and streaming writers (built on the driver)."""

from __future__ import annotations

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.errors import UnsupportedFeature
from paimon_core.metadata.schema import Schema


@pytest.fixture
def table(tmp_path):
    schema = Schema(
        Schema.parse_columns("id BIGINT NOT NULL, v STRING, dt STRING"),
        partition_keys=("dt",),
        primary_keys=("id",),
        options={"bucket": "-1"},
    )
    return FileSystemCatalog(str(tmp_path / "wh")).create_table("db.x", schema)


def test_the_engine_refuses_before_starting_spark(table):
    from paimon_core.engines.spark import SparkEngine

    engine = SparkEngine(master="local[1]")
    with pytest.raises(
        UnsupportedFeature, match="the Spark engine's write is not supported on cross-partition"
    ):
        engine.write(table, [])
    assert engine._spark is None


@pytest.mark.parametrize("streaming", [False, True])
def test_the_data_source_writers_refuse(table, streaming):
    from paimon_core.engines.spark.source import PaimonStreamWriter, PaimonWriter

    with pytest.raises(
        UnsupportedFeature, match="data source's (streaming )?write is not supported on cross-partition"
    ):
        PaimonStreamWriter(table, {}) if streaming else PaimonWriter(table, False)
