"""PySpark 3.5 driver with Paimon's Spark connector (runs in the lane's own venv; see spark.py).

argv: a JSON object {"jar": PATH, "warehouse": DIR}. One local Spark session (``local[1]``, UI
off, driver bound to 127.0.0.1) with the catalog ``paimon`` = ``org.apache.paimon.spark.
SparkCatalog`` on the warehouse and Paimon's SQL extensions (MERGE INTO, UPDATE, DELETE, CALL).

Requests:
* ``sql(statements)``: run each statement; a query returns its rows as {column: value}, any
  other statement returns null.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import lane_protocol  # sibling file; the script's folder is on sys.path
from pyspark.sql import SparkSession

ARGS = json.loads(sys.argv[1])
SPARK: SparkSession | None = None


def _session() -> SparkSession:
    global SPARK
    if SPARK is None:
        SPARK = (
            SparkSession.builder.master("local[1]")
            .appName("paimon-cli-spark-lane")
            .config("spark.jars", ARGS["jar"])
            .config("spark.ui.enabled", "false")
            # C1 only, one GC thread: small jobs on 2 cores (tests/lanes/engines.py FAST_JVM)
            .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .config("spark.sql.warehouse.dir", str(Path.cwd() / "spark-warehouse"))
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.extensions", "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions")
            .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
            .config("spark.sql.defaultCatalog", "paimon")
            .config("spark.sql.catalog.paimon.warehouse", Path(ARGS["warehouse"]).resolve().as_uri())
            .getOrCreate()
        )
        SPARK.sparkContext.setLogLevel("WARN")
    return SPARK


def sql(statements: list[str]) -> list:
    spark = _session()
    out = []
    for stmt in statements:
        df = spark.sql(stmt)
        head = stmt.lstrip().split(None, 1)[0].upper()
        if head in ("SELECT", "WITH", "CALL", "SHOW", "DESCRIBE"):
            out.append([r.asDict(recursive=True) for r in df.collect()])
        else:
            df.collect()
            out.append(None)
    return out


def ready() -> dict:
    import pyspark  # noqa: PLC0415

    spark = _session()
    return {"pyspark": pyspark.__version__, "spark": spark.version}


if __name__ == "__main__":
    lane_protocol.serve({"sql": sql}, ready)
