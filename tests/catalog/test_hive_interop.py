"""Java Paimon 0.9's HiveCatalog (with PySpark's Hive jars) and ours on one metastore: Java lists
and reads our tables and registers its own exactly as we do; we read and write Java's. A Spark
session with Hive support on the same metastore sees our databases and tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pyarrow as pa
import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.metadata.schema import Schema
from tests.catalog.test_hive_catalog import fresh_db, raw_client
from tests.interop.harness.pypaimon_env import SPARK_SESSION_MARKS
from tests.spark.jvm import java_options

pytestmark = [pytest.mark.interop, pytest.mark.slow]

COLUMNS = "k INT NOT NULL, v STRING, amount DECIMAL(12, 3), tags ARRAY<STRING>, dt STRING"
JAVA_SCHEMA = [
    {"name": "k", "type": "INT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "amount", "type": "DECIMAL(12, 3)"},
    {"name": "tags", "type": "ARRAY<STRING>"},
    {"name": "dt", "type": "STRING"},
]
OPTIONS = {"bucket": "1", "metastore.partitioned-table": "true", "hive.owner.team": "lake"}


def registration(hms, db: str, table: str) -> dict:
    """What a metastore holds for a table, minus names, times and owner."""
    t = hms.get_table(db, table)
    return {
        "type": t.tableType,
        "params": {k: v for k, v in t.parameters.items() if k != "transient_lastDdlTime"},
        "formats": (
            t.sd.inputFormat,
            t.sd.outputFormat,
            t.sd.serdeInfo.serializationLib,
            t.sd.serdeInfo.parameters,
        ),
        "cols": [(c.name, c.type, c.comment) for c in t.sd.cols],
        "parts": [(c.name, c.type) for c in t.partitionKeys],
        "partitions": sorted(
            (p.values, p.sd.location.rsplit("/", 2)[-2:]) for p in hms.get_partitions(db, table, -1)
        ),
        "retention": t.retention,
    }


def test_java_and_we_share_a_metastore(hive_ms, java_hive, tmp_path):
    db_ours, db_java = fresh_db(), fresh_db()
    wh = str(tmp_path / "wh")
    ours = create_catalog("hive", wh, {"uri": hive_ms.uri})
    t = ours.create_table(
        f"{db_ours}.items",
        Schema(
            columns=Schema.parse_columns(COLUMNS),
            partition_keys=("dt",),
            primary_keys=("dt", "k"),
            options=OPTIONS,
        ),
    )
    t.write_arrow(
        pa.table(
            {
                "k": pa.array([1, 2], pa.int32()),
                "v": ["a", "b"],
                "amount": pa.array([None, None], pa.decimal128(12, 3)),
                "tags": [["x"], None],
                "dt": ["p1", "p2"],
            }
        )
    )
    cat = {"metastore": "hive", "uri": hive_ms.uri}
    res = java_hive.run(
        [
            {"op": "catalog", "action": "list_databases", "warehouse": wh, "catalog": cat},
            {"op": "catalog", "action": "list_tables", "database": db_ours, "warehouse": wh, "catalog": cat},
            {"op": "read", "table": f"{db_ours}.items", "warehouse": wh, "catalog": cat},
            {
                "op": "create_table",
                "table": f"{db_java}.items",
                "warehouse": wh,
                "catalog": cat,
                "schema": JAVA_SCHEMA,
                "partition_keys": ["dt"],
                "primary_keys": ["dt", "k"],
                "options": OPTIONS,
            },
            {
                "op": "write",
                "table": f"{db_java}.items",
                "warehouse": wh,
                "catalog": cat,
                "rows": [{"k": 1, "v": "x", "dt": "p1"}, {"k": 2, "v": "y", "dt": "p2"}],
            },
        ]
    )
    assert {db_ours, db_java} - set(res[0]["databases"]) == {db_java}  # Java's db did not exist yet
    assert res[1]["tables"] == ["items"]
    assert sorted((r["k"], r["v"], r["dt"]) for r in res[2]["rows"]) == [(1, "a", "p1"), (2, "b", "p2")]
    hms = raw_client(hive_ms)
    mine, theirs = registration(hms, db_ours, "items"), registration(hms, db_java, "items")
    if java_hive.version == "1.4.2":
        # Java 1.4.2's HiveCatalog also copies the table's options into the table parameters (and
        # keeps `hive.`-prefixed ones with their prefix, which 0.9 strips): we register as 0.9
        assert theirs.pop("params") == {
            "bucket": "1",
            "bucket-key": "k",
            "hive.owner.team": "lake",
            "metastore.partitioned-table": "true",
            "partition": "dt",
            "primary-key": "dt,k",
            "storage_handler": "org.apache.paimon.hive.PaimonStorageHandler",
            "table_type": "PAIMON",
        }
        mine.pop("params")
    assert mine == theirs
    for db in (db_ours, db_java):
        assert hms.get_table(db, "items").sd.location == f"file:{wh}/{db}.db/items"
    assert hms.get_database(db_ours).locationUri == f"file:{wh}/{db_ours}.db"
    assert hms.get_database(db_java).locationUri == f"file:{wh}/{db_java}.db"
    # we read Java's table and write a new partition into it; Java reads that
    jt = ours.get_table(f"{db_java}.items")
    assert sorted(jt.read().column("v").to_pylist()) == ["x", "y"]
    jt.write_arrow(
        pa.table(
            {
                "k": pa.array([3], pa.int32()),
                "v": ["z"],
                "amount": pa.array([None], pa.decimal128(12, 3)),
                "tags": pa.array([None], pa.list_(pa.string())),
                "dt": ["p3"],
            }
        )
    )
    assert ["p3"] in [p.values for p in hms.get_partitions(db_java, "items", -1)]
    res = java_hive.run(
        [
            {"op": "read", "table": f"{db_java}.items", "warehouse": wh, "catalog": cat},
            {
                "op": "catalog",
                "action": "drop_table",
                "table": f"{db_ours}.items",
                "warehouse": wh,
                "catalog": cat,
            },
        ]
    )
    assert sorted(r["v"] for r in res[0]["rows"]) == ["x", "y", "z"]
    assert ours.list_tables(db_ours) == [] and not os.path.exists(f"{wh}/{db_ours}.db/items")


SPARK = """
import json, sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").appName("hive-check")
         .config("spark.sql.catalogImplementation", "hive")
         .config("spark.hadoop.hive.metastore.uris", sys.argv[1])
         .config("spark.sql.warehouse.dir", sys.argv[2])
         .config("spark.ui.enabled", "false")
         .config("spark.driver.extraJavaOptions", sys.argv[4])
         .enableHiveSupport().getOrCreate())
dbs = [r[0] for r in spark.sql("SHOW DATABASES").collect()]
tables = [r.tableName for r in spark.sql(f"SHOW TABLES IN {sys.argv[3]}").collect()]
print(json.dumps({"databases": dbs, "tables": tables}))
spark.stop()
"""


def test_spark_with_hive_support_sees_our_tables(hive_ms, tmp_path):
    db = fresh_db()
    cat = create_catalog("hive", str(tmp_path / "wh"), {"uri": hive_ms.uri})
    cat.create_table(
        f"{db}.events", Schema(columns=Schema.parse_columns("id BIGINT, dt STRING"), partition_keys=("dt",))
    )
    cat.create_table(f"{db}.users", Schema(columns=Schema.parse_columns("id BIGINT")))
    env = {k: v for k, v in os.environ.items() if k not in SPARK_SESSION_MARKS} | {
        "SPARK_LOCAL_IP": "127.0.0.1"
    }
    proc = subprocess.run(
        [sys.executable, "-c", SPARK, hive_ms.uri, str(tmp_path / "spark-wh"), db, java_options()],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert db in seen["databases"]
    assert sorted(seen["tables"]) == ["events", "users"]
