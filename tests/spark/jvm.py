"""The flags of every Spark 4 JVM the tests start (drivers, executors, the Connect server, the
standalone master and worker, the streaming job): C1 only, one GC thread, Spark's quiet log4j2
config, and the class-data archive of PySpark's jars (tests/interop/harness/cds.py), made once by
a warm-up session (``python -m tests.spark.jvm``, run by the CI's cache step) and mapped by
every later JVM: a local session and its first job start in about half the time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.interop.harness import cds
from tests.interop.harness._common import LEAN_JVM_FLAGS

ROOT = Path(__file__).resolve().parents[2]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def archive() -> Path:
    """The archive's path for PySpark's jars and the java that Spark's launcher picks."""
    import pyspark

    jars = sorted((spark_home() / "jars").glob("*.jar"))
    return cds.archive_path(f"spark-{pyspark.__version__}", cds.java_on_path(), jars)


def java_options() -> str:
    """``spark.driver.extraJavaOptions`` (and the executors', the daemons') of the tests."""
    from paimon_core.engines.spark.session import log4j2_config_path

    flags = [f"-Dlog4j2.configurationFile=file:{log4j2_config_path()}", *LEAN_JVM_FLAGS]
    return " ".join([*flags, *cds.use_flags(archive())])


def ensure_archive() -> Path | None:
    """Make the archive once: a local session writes, reads, aggregates and runs SQL through the
    ``paimon`` data source, then ends normally (the archive is written at the JVM's exit)."""

    def warm_up(flags: list[str]) -> None:
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
        subprocess.run(
            [sys.executable, "-m", "tests.spark.jvm", "--warm-up", " ".join(flags)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )

    return cds.build(archive(), warm_up, prune=True)  # a fresh venv has new jar paths: a new archive


def _warm_up(extra_flags: str) -> None:
    import tempfile

    import pyarrow as pa
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.engines.spark.engine import register
    from paimon_core.engines.spark.session import create_session
    from paimon_core.metadata.schema import Schema

    opts = f"{java_options()} {extra_flags}"  # no archive yet: the tests' flags alone
    spark = create_session(
        "local[2]",
        conf={"spark.sql.shuffle.partitions": "2", "spark.driver.extraJavaOptions": opts},
    )
    with tempfile.TemporaryDirectory() as wh:
        cat = FileSystemCatalog(wh)
        cat.create_database("db")
        schema = Schema(Schema.parse_columns("id BIGINT NOT NULL, cat STRING"), (), ("id",), {"bucket": "2"})
        cat.create_table("db.t", schema)
        register(spark, wh)
        rows = pa.table({"id": pa.array(range(100), pa.int64()), "cat": [f"c{i % 3}" for i in range(100)]})
        spark.createDataFrame(rows.to_pandas()).write.format("paimon").mode("append").save("db.t")
        df = spark.read.format("paimon").load("db.t")
        df.groupBy("cat").count().orderBy("cat").collect()
        df.createOrReplaceTempView("t")
        spark.sql("SELECT cat, sum(id) FROM t WHERE id > 3 GROUP BY cat").toArrow()
        spark.range(1000).repartition(2).selectExpr("id % 7 AS k").distinct().count()
    spark.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--warm-up"]:
        _warm_up(sys.argv[2])
    else:
        print(f"spark class-data archive: {ensure_archive()}")
