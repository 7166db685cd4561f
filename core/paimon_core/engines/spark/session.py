"""Spark sessions for the engine: a quiet log4j2 config, the default settings (UI off,
loopback driver, UTC), local/standalone masters and Spark Connect remotes, and a filter that
keeps the driver JVM's unconditional warnings off the user's stderr. Imports pyspark lazily."""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import threading
import uuid

_LOG4J2 = """\
status = error
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
logger.netty.name = io.netty
logger.netty.level = error
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = error
"""

DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.python.worker.reuse": "true",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "65536",
}


def log4j2_config_path() -> str:
    """A quiet log4j2 config (WARN to stderr, Spark/Hadoop chatter at ERROR) in a temp file."""
    path = os.path.join(
        tempfile.gettempdir(), f"paimon-log4j2-{hashlib.sha1(_LOG4J2.encode()).hexdigest()[:10]}.properties"
    )
    if not os.path.exists(path):
        tmp = f"{path}.{uuid.uuid4().hex}"
        with open(tmp, "w") as f:
            f.write(_LOG4J2)
        os.replace(tmp, path)
    return path


def _endpoints(url: str, default_port: int) -> list[tuple[str, int]]:
    """host:port pairs of a ``spark://h1:p1,h2:p2`` master or ``sc://host[:port][/;params]`` remote."""
    rest = url.split("://", 1)[1].split("/", 1)[0].split(";", 1)[0]
    out = []
    for part in rest.split(","):
        host, _, port = part.rpartition(":") if ":" in part else (part, "", "")
        out.append((host.strip("[]") or "127.0.0.1", int(port) if port.isdigit() else default_port))
    return out


def check_reachable(url: str, timeout_s: float = 5.0) -> None:
    """Raise EngineUnavailable, naming ``url``, unless a ``spark://`` master or ``sc://`` Connect
    server accepts a TCP connection: Spark itself retries an unreachable master for minutes and
    then fails with a Java stack trace."""
    import socket

    from paimon_core.errors import EngineUnavailable

    if not url.startswith(("spark://", "sc://")):
        return
    why = ""
    for host, port in _endpoints(url, 7077 if url.startswith("spark://") else 15002):
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return
        except OSError as e:
            why = e.strerror or type(e).__name__
    kind = "Spark master" if url.startswith("spark://") else "Spark Connect server"
    raise EngineUnavailable(f"cannot reach the {kind} {url} ({why.lower()}); nothing was done")


_MASTER = re.compile(
    r"local(\[(\*|\d+)(,\s*\d+)?\])?|local-cluster\[\d+,\s*\d+,\s*\d+\]|yarn|"
    r"(spark|k8s|mesos)://\S+"
)


def check_master(master: str) -> None:
    """InvalidInput naming ``master`` unless it is a master URL Spark takes (local, local[N],
    local[*], local-cluster[...], spark://, yarn, k8s://, mesos://): Spark answers anything else
    with a Java stack trace."""
    from paimon_core.errors import InvalidInput

    if not _MASTER.fullmatch(master.strip()):
        raise InvalidInput(
            f"not a Spark master URL: {master!r} (local, local[N], local[*], spark://HOST:PORT, yarn, "
            "k8s://..., or a Spark Connect remote sc://HOST:PORT)"
        )


def create_session(master: str | None = None, remote: str | None = None, conf: dict | None = None):
    """Get or create a quiet SparkSession; ``remote`` (sc://host:port) means Spark Connect. A
    master URL Spark does not take (``check_master``) and an unreachable standalone master or
    Connect server (``check_reachable``) are refused at once."""
    if not remote and master:
        check_master(master)
    check_reachable(remote or master or "local")
    conf = dict(conf or {})
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYARROW_IGNORE_TIMEZONE", "1")
    from pyspark.sql import SparkSession

    # creating a Connect session sets environment variables that turn every later builder into
    # a Connect one; this engine picks the kind explicitly
    for var in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE"):
        os.environ.pop(var, None)
    if remote:
        builder = SparkSession.builder.remote(remote)
        for k, v in conf.items():
            builder = builder.config(k, v)
        return builder.getOrCreate()
    os.environ["PYSPARK_PYTHON"] = conf.get(
        "spark.pyspark.python", os.environ.get("PYSPARK_PYTHON") or sys.executable
    )
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

    log = f"-Dlog4j2.configurationFile=file:{log4j2_config_path()}"
    merged = dict(DEFAULT_CONF)
    merged["spark.driver.extraJavaOptions"] = log
    merged["spark.executor.extraJavaOptions"] = log
    master = master or "local[*]"
    if master.startswith("local") and os.environ["PYSPARK_PYTHON"] == sys.executable:
        # the workers are this interpreter: pyspark's daemon from the installed package
        merged["spark.python.daemon.module"] = "paimon_core.engines.spark.worker_daemon"
    else:  # PySpark's builder keeps the options of earlier sessions of this process
        merged["spark.python.daemon.module"] = "pyspark.daemon"
    merged.update(conf)
    builder = SparkSession.builder.master(master).appName("paimon")
    for k, v in merged.items():
        builder = builder.config(k, v)
    return _launch_filtered(builder.getOrCreate)


# lines the driver JVM prints whatever log4j says (the launcher adds --add-modules=jdk.incubator.vector)
_STDERR_NOISE = (b"WARNING: Using incubator modules",)


def _copy_filtered(read_fd: int, out_fd: int) -> None:
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        for line in iter(pipe.readline, b""):
            if not line.startswith(_STDERR_NOISE):
                try:
                    os.write(out_fd, line)
                except OSError:
                    pass


def _launch_filtered(launch):
    """Call ``launch`` (which may start the driver JVM) with stderr on a pipe: the JVM keeps that
    stderr for life, and a daemon thread copies it to the real stderr without the JVM's
    unconditional 'Using incubator modules' warning. Log4j output still comes through.
    ``PAIMON_SPARK_RAW_STDERR=1`` turns this off."""
    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None or os.environ.get("PAIMON_SPARK_RAW_STDERR"):
        return launch()
    try:
        sys.stderr.flush()
        real = os.dup(2)
    except (OSError, ValueError):
        return launch()
    r, w = os.pipe()
    threading.Thread(target=_copy_filtered, args=(r, real), daemon=True, name="paimon-jvm-stderr").start()
    os.dup2(w, 2)
    os.close(w)
    try:
        return launch()
    finally:
        os.dup2(real, 2)  # our stderr is the real one again; only the JVM (and its children) hold the pipe
