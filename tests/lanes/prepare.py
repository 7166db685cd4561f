"""Warm the lanes' caches before pytest (CI): the PyFlink 1.20 and 2.0, PySpark 3.5, chDB and
DuckDB 1.5 venvs, Trino 476's server, the HDFS lane's MiniDFSCluster jars (tests/hdfs/cluster.py),
the pinned paimon-flink / paimon-spark jars (see envs.py), and the class-data archive of the
Spark 4 JVMs of tests/spark (tests/spark/jvm.py: a warm-up session).

    python -m tests.lanes.prepare [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from tests.spark.jvm import ensure_archive as spark_archive

from .engines import flink_jars
from .envs import (
    FLINK_VERSIONS,
    PAIMON_SPARK,
    chdb_python,
    connector_jar,
    duckdb_overlay,
    flink_python,
    spark_python,
)
from .trino import trino_home


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--cache-dir", default=None, help="default: $PAIMON_CLI_INTEROP_CACHE or ~/.cache/paimon-cli-interop"
    )
    args = ap.parse_args(argv)
    cache = args.cache_dir
    t = time.time()

    def spark() -> str:
        return f"spark lane: python {spark_python(cache)}; jar {connector_jar(PAIMON_SPARK, cache)}"

    def flink(version: str) -> str:
        python, jars = flink_python(version, cache), flink_jars(version, cache)
        return f"flink {version} lane: python {python}; jars {', '.join(jars)}"

    def chdb() -> str:
        return f"clickhouse lane: python {chdb_python(cache)}"

    def trino() -> str:
        return f"trino lane: server {trino_home(cache)}"

    def duckdb() -> str:
        return f"duckdb lane: overlay {duckdb_overlay(cache)}"

    def hdfs() -> str:
        from tests.hdfs.cluster import jars as hdfs_jars

        return f"hdfs lane: jars {', '.join(map(str, hdfs_jars(cache)))}"

    def spark4() -> str:
        return f"spark 4 (tests/spark): class-data archive {spark_archive()}"

    # the venvs build at once (mostly downloads; each is file-locked, so a venv two jobs need,
    # PySpark 3.5's for the Flink lanes' Hadoop jars, is built once)
    jobs = [spark, spark4, chdb, duckdb, trino, hdfs, *(lambda v=v: flink(v) for v in FLINK_VERSIONS)]
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        for line in pool.map(lambda job: job(), jobs):
            print(line, flush=True)
    print(f"lanes: ready in {time.time() - t:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
