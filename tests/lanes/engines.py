"""The engines of the lanes as objects the tests hold: a Flink driver (1.20 with paimon-flink
1.3.1, or 2.0 with paimon-flink 2.0.0) and a Spark 3.5 driver (paimon-spark 0.9.0), each a
LaneDriver process in its own venv.

`start_flink(log, ...)` starts one PyFlink process (the session's, or a streaming job's that a
test kills and restarts); `start_spark(log, warehouse)` starts the session's Spark.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.interop.harness._common import LEAN_JVM_FLAGS

from .driver import LaneDriver
from .envs import (
    FLINK_VERSIONS,
    PAIMON_SPARK,
    connector_jar,
    flink_python,
    hadoop_jars,
    lane_env,
    spark_python,
)

HERE = Path(__file__).resolve().parent

__all__ = ["Flink", "Spark", "start_flink", "start_spark", "flink_jars"]


def flink_jars(version: str = "1.20", cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    return [connector_jar(FLINK_VERSIONS[version][1], cache_dir), *hadoop_jars(cache_dir)]


class Flink(LaneDriver):
    """PyFlink with Paimon's connector for it (flink_driver.py); `version` is Flink's ("1.20", "2.0")."""

    def __init__(self, *args: Any, version: str, **kw: Any):
        super().__init__(*args, **kw)
        self.version = version

    def sql(self, warehouse: Path, *statements: str, mode: str = "batch") -> list[Any]:
        return self.call("sql", mode=mode, statements=list(statements), warehouse=str(warehouse))

    def query(self, warehouse: Path, statement: str) -> list[dict[str, Any]]:
        return self.sql(warehouse, statement)[0]

    def submit(self, warehouse: Path, *statements: str) -> str:
        """Run `statements` in the streaming environment; the job id of the last (an INSERT)."""
        return self.sql(warehouse, *statements, mode="streaming")[-1]["job"]

    def wait(self, job: str, timeout: float = 600) -> None:
        self.call("wait", job=job, timeout=timeout)


class Spark(LaneDriver):
    """PySpark 3.5 with paimon-spark-3.5 0.9.0 (spark_driver.py), catalog `paimon` on `warehouse`."""

    def __init__(self, *args: Any, warehouse: Path, **kw: Any):
        super().__init__(*args, **kw)
        self.warehouse = warehouse

    def sql(self, *statements: str) -> list[Any]:
        return self.call("sql", statements=list(statements))

    def query(self, statement: str) -> list[dict[str, Any]]:
        return self.sql(statement)[0]


def start_flink(
    log: Path,
    checkpoints: Path | None = None,
    restore: Path | None = None,
    checkpoint_interval: str = "2s",
    version: str = "1.20",
) -> Flink:
    args = {
        "checkpoints": str(checkpoints) if checkpoints else None,
        "restore": str(restore) if restore else None,
        "checkpoint_interval": checkpoint_interval,
    }
    python = flink_python(version)
    cmd = [python, str(HERE / "flink_driver.py"), json.dumps(args)]
    jar = FLINK_VERSIONS[version][1]
    env = {
        **lane_env(),
        "FLINK_ENV_JAVA_OPTS": _flink_java_opts(python),
        # PyFlink's launcher appends HADOOP_CLASSPATH to the gateway JVM's class path
        "HADOOP_CLASSPATH": os.pathsep.join(flink_jars(version)),
    }
    return Flink(f"Flink {version} ({jar.artifact} {jar.version})", cmd, env, log, version=version)


FAST_JVM = " ".join(LEAN_JVM_FLAGS)


def _flink_java_opts(python: str) -> str:
    """PyFlink's JVM options (``env.java.opts.all`` of its config.yaml: the module openings Java
    17 needs) plus FAST_JVM. FLINK_ENV_JAVA_OPTS replaces the config's, so both are given."""
    import re

    conf = next(Path(python).parent.parent.glob("lib/python*/site-packages/pyflink/conf/config.yaml"))
    found = re.search(r"^\s+all:\s*(--add-.*)$", conf.read_text(), re.M)
    return f"{found.group(1).strip() if found else ''} {FAST_JVM}".strip()


def start_spark(log: Path, warehouse: Path) -> Spark:
    args = {"jar": connector_jar(PAIMON_SPARK), "warehouse": str(warehouse)}
    cmd = [spark_python(), str(HERE / "spark_driver.py"), json.dumps(args)]
    return Spark("Spark 3.5 (paimon-spark 0.9.0)", cmd, lane_env(), log, warehouse=warehouse)
