"""Spark lanes: a local[2] session, a Spark Connect server and a standalone master + worker,
each started on 127.0.0.1 by a session fixture and stopped by pid. Lanes run one after the
other (one classic SparkContext per process); each reuses its session for all its tests.

The Connect server's and the standalone worker's Python is the venv's interpreter run with
``-S`` (site-packages on PYTHONPATH, so .pth files are skipped): ``paimon_core`` is not
importable there unless the engine ships it, which is what these lanes prove.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import sysconfig
import time

import pytest

from tests.infra import free_port, missing
from tests.spark.jvm import ensure_archive, java_options, spark_home

try:
    import pyspark  # noqa: F401 - present, or the module skips
except ImportError:
    missing("pyspark is not installed (pip install -e '.[dev]')")

SPARK_HOME = str(spark_home())
LANES = ["local", "connect", "standalone"]


def wait_port(port: int, proc: subprocess.Popen, log: str, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(
                f"process exited with {proc.returncode} before listening on {port}:\n{_tail(log)}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s:\n{_tail(log)}")


def _tail(path: str, n: int = 40) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM then SIGKILL to the process group we started (its pid is the group id)."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory) -> str:
    """A Python with the venv's packages but without this project (no .pth processing)."""
    site = sysconfig.get_paths()["purelib"]
    path = tmp_path_factory.mktemp("py") / "python-bare"
    # the inherited PYTHONPATH is dropped: it may hold this project (a worktree's checkout)
    path.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" -S "$@"\n')
    path.chmod(0o755)
    probe = subprocess.run(
        [
            str(path),
            "-c",
            "import pyarrow, numpy, fsspec, pyspark\ntry:\n import paimon_core\n"
            "except ImportError:\n print('absent')",
        ],
        capture_output=True,
        text=True,
    )
    assert probe.stdout.strip() == "absent", probe.stdout + probe.stderr
    return str(path)


def _env(**extra) -> dict:
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_HOME=SPARK_HOME)
    env.update(extra)
    return env


def _start(cmd: list[str], log: str, env: dict) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )


SMALL = {"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"}


def _small_conf() -> dict:
    opts = java_options()  # drivers and executors
    return {**SMALL, "spark.driver.extraJavaOptions": opts, "spark.executor.extraJavaOptions": opts}


@pytest.fixture(scope="session", params=LANES)
def engine(request, tmp_path_factory, bare_python):
    """A SparkEngine on one lane (local[2], Connect, standalone), reused by all its tests."""
    from paimon_core.engines.spark.engine import SparkEngine

    lane = request.param
    ensure_archive()  # made once per machine (the CI's cache step makes it before the tests)
    logs = tmp_path_factory.mktemp(f"spark-{lane}")
    procs: list[subprocess.Popen] = []
    eng = None
    t0 = time.monotonic()
    try:
        if lane == "local":
            eng = SparkEngine(master="local[2]", conf=_small_conf())
        elif lane == "connect":
            script = os.path.join(SPARK_HOME, "sbin", "start-connect-server.sh")
            jar = [n for n in os.listdir(os.path.join(SPARK_HOME, "jars")) if n.startswith("spark-connect_")]
            if not jar:
                pytest.fail(
                    f"the pyspark package at {SPARK_HOME} has no spark-connect jar: cannot start a "
                    "Spark Connect server from it"
                )
            port = free_port()
            log = str(logs / "connect.log")
            java_opts = java_options()
            cmd = [
                script,
                "--wait",
                "--master",
                "local[2]",
                "--conf",
                "spark.connect.grpc.binding.address=127.0.0.1",
                "--conf",
                f"spark.connect.grpc.binding.port={port}",
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.driver.host=127.0.0.1",
                "--conf",
                "spark.driver.bindAddress=127.0.0.1",
                "--conf",
                "spark.sql.shuffle.partitions=2",
                "--conf",
                "spark.sql.session.timeZone=UTC",
                "--driver-java-options",
                java_opts,
            ]
            procs.append(
                _start(
                    cmd,
                    log,
                    _env(PYSPARK_PYTHON=bare_python, SPARK_LOG_DIR=str(logs), SPARK_PID_DIR=str(logs)),
                )
            )
            wait_port(port, procs[-1], log)
            eng = SparkEngine(remote=f"sc://127.0.0.1:{port}")
        else:
            port = free_port()
            mlog, wlog = str(logs / "master.log"), str(logs / "worker.log")
            java_opts = java_options()
            env = _env(
                SPARK_DAEMON_JAVA_OPTS=java_opts,
                SPARK_WORKER_DIR=str(logs / "work"),
                PYSPARK_PYTHON=bare_python,
            )
            spark_class = os.path.join(SPARK_HOME, "bin", "spark-class")
            procs.append(
                _start(
                    [
                        spark_class,
                        "org.apache.spark.deploy.master.Master",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--webui-port",
                        "0",
                    ],
                    mlog,
                    env,
                )
            )
            wait_port(port, procs[-1], mlog)
            procs.append(
                _start(
                    [
                        spark_class,
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        "127.0.0.1",
                        f"spark://127.0.0.1:{port}",
                        "--cores",
                        "1",
                        "--memory",
                        "1g",
                        "--webui-port",
                        "0",
                    ],
                    wlog,
                    env,
                )
            )
            eng = SparkEngine(
                master=f"spark://127.0.0.1:{port}",
                conf={
                    **_small_conf(),
                    "spark.executor.memory": "512m",
                    "spark.cores.max": "1",
                    # one retry, not Spark's three: a failing task still gets a second attempt
                    # (the retried-attempt sweep runs), and the fault tests wait half as long
                    "spark.task.maxFailures": "2",
                    "spark.pyspark.python": bare_python,
                },
            )
        eng.spark.range(1).count()  # start now: the startup time is reported apart
        print(f"\n[spark lane {lane}] started in {time.monotonic() - t0:.1f}s", file=sys.stderr)
        eng.lane = lane
        yield eng
    finally:
        if eng is not None:
            try:
                eng.stop()
            except Exception:  # noqa: BLE001 - the server may be gone already
                pass
        for p in reversed(procs):
            stop(p)
        if lane != "connect":
            os.environ.pop("PYSPARK_PYTHON", None)
