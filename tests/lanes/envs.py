"""The lanes' own environments: a venv per engine and the Paimon connector jars, cached once.

Everything lives under the interop cache root (``$PAIMON_CLI_INTEROP_CACHE`` or
``~/.cache/paimon-cli-interop``) and is built under a file lock, so parallel runs build it once:

* ``flink-1.20/venv``, ``flink-2.0/venv``: PyFlink 1.20 and 2.0 (``apache-flink==1.20.*``, ``==2.0.*``);
* ``spark-3.5/venv``: PySpark 3.5 (``pyspark==3.5.*``), also the source of the Hadoop client
  jars the Flink lane puts on its JVM's class path;
* ``chdb-4.4/venv``: chDB 4.4 (ClickHouse 26.9 embedded, with its native Paimon reader);
* ``duckdb-1.5/venv``: DuckDB 1.5.5 with its iceberg and avro extensions (PyPI wheels), and
  ``duckdb-1.5/overlay``: DuckDB 1.5.5 alone, put first on ``PYTHONPATH`` to run this project's
  SQL tests on DuckDB 1.5 (the project's venv has the newest DuckDB the range allows);
* ``lanes-jars/``: ``paimon-flink-1.20`` 1.3.1, ``paimon-flink-2.0`` 2.0.0 and ``paimon-spark-3.5``
  0.9.0 from Maven Central, each moved into place only after its digest equals the pinned one.

A venv is complete only when its stamp file holds the exact requirement list it was built with
(``ensure_venv``, shared with the pypaimon harness).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.interop.harness._common import InteropError, cache_root, file_lock
from tests.interop.harness.maven import MavenJar, fetch_jars
from tests.interop.harness.pypaimon_env import _clean_env, ensure_venv

SPARK_REQUIREMENTS = ["pyspark==3.5.*"]
CHDB_REQUIREMENTS = ["chdb==4.4.0"]
DUCKDB_VERSION = "1.5.5"
DUCKDB_REQUIREMENTS = [
    f"duckdb=={DUCKDB_VERSION}",
    f"duckdb-extension-iceberg=={DUCKDB_VERSION}",
    f"duckdb-extension-avro=={DUCKDB_VERSION}",
    "pyarrow>=17",
]
# (group path, artifact, version, sha1)
PAIMON_FLINK = MavenJar(
    "org.apache.paimon", "paimon-flink-1.20", "1.3.1", "500be697f0cb81b68d5356e9025aba756c7b42c9"
)
PAIMON_SPARK = MavenJar(
    "org.apache.paimon", "paimon-spark-3.5", "0.9.0", "8dfa6c87a1b9ca142bbb40fc0dbf4329746ca699"
)
PAIMON_FLINK_20 = MavenJar(
    "org.apache.paimon",
    "paimon-flink-2.0",
    "2.0.0",
    "f9999454cd1827da1a96556a6ef0525a98fddcfa4370837a51119fecc181f5f0",
)
# Flink version -> (the PyFlink requirement of its venv, Paimon's connector for it)
FLINK_VERSIONS = {
    "1.20": (["apache-flink==1.20.*"], PAIMON_FLINK),
    "2.0": (["apache-flink==2.0.*"], PAIMON_FLINK_20),
}
HADOOP_JARS = ("hadoop-client-api-", "hadoop-client-runtime-")

__all__ = [
    "lane_env",
    "ensure_venv",
    "flink_python",
    "spark_python",
    "chdb_python",
    "duckdb_python",
    "duckdb_overlay",
    "connector_jar",
    "hadoop_jars",
]


def lane_env() -> dict[str, str]:
    """The environment of a lane's driver: no project venv leaking in, UTC, loopback only."""
    env = _clean_env()
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    env["TZ"] = "UTC"
    return env


def flink_python(version: str = "1.20", cache_dir: str | os.PathLike[str] | None = None) -> str:
    return ensure_venv(f"flink-{version}", FLINK_VERSIONS[version][0], cache_dir)


def spark_python(cache_dir: str | os.PathLike[str] | None = None) -> str:
    return ensure_venv("spark-3.5", SPARK_REQUIREMENTS, cache_dir)


def chdb_python(cache_dir: str | os.PathLike[str] | None = None) -> str:
    return ensure_venv("chdb-4.4", CHDB_REQUIREMENTS, cache_dir)


def duckdb_python(cache_dir: str | os.PathLike[str] | None = None) -> str:
    return ensure_venv("duckdb-1.5", DUCKDB_REQUIREMENTS, cache_dir)


def duckdb_overlay(cache_dir: str | os.PathLike[str] | None = None) -> str:
    """A folder holding only DuckDB 1.5.5 (links into its venv): first on ``PYTHONPATH``, it
    replaces the project venv's DuckDB and nothing else."""
    site = next(Path(duckdb_python(cache_dir)).parent.parent.glob("lib/python*/site-packages"))
    overlay = cache_root(cache_dir) / "duckdb-1.5" / "overlay"
    with file_lock(cache_root(cache_dir) / "duckdb-1.5" / ".lock"):
        if not (overlay / "duckdb").exists():  # duckdb, _duckdb.*.so, duckdb-<version>.dist-info
            tmp = overlay.with_name("overlay.tmp")
            tmp.mkdir(exist_ok=True)
            for entry in site.iterdir():
                if entry.name == "duckdb" or entry.name.startswith(("_duckdb.", "duckdb-")):
                    link = tmp / entry.name
                    if not link.is_symlink():
                        link.symlink_to(entry)
            tmp.rename(overlay)
    return str(overlay)


def connector_jar(jar: MavenJar, cache_dir: str | os.PathLike[str] | None = None) -> str:
    """Path of a pinned connector jar in ``<cache>/lanes-jars`` (downloaded and SHA-1 checked once)."""
    root = cache_root(cache_dir) / "lanes-jars"
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root / ".lock"):
        return str(fetch_jars(root, (jar,))[0])


def hadoop_jars(cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """The Hadoop client jars (api, runtime) that PySpark 3.5 ships, for Flink's classpath."""
    python = Path(spark_python(cache_dir))
    found = sorted(python.parent.parent.glob("lib/python*/site-packages/pyspark/jars/hadoop-client-*.jar"))
    out = [next((str(p) for p in found if p.name.startswith(prefix)), "") for prefix in HADOOP_JARS]
    if not all(out):
        raise InteropError(f"PySpark 3.5's venv has no Hadoop client jars: {[p.name for p in found]}")
    return out
