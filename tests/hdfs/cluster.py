"""One real HDFS per test session: Hadoop's MiniDFSCluster (a NameNode and two DataNodes, one
JVM, 127.0.0.1 only; ``MiniHdfs.java``), from ``hadoop-client-minicluster`` fetched once from
Maven Central (SHA-1 pinned) and the Hadoop client jars the Java interop driver uses.

    python -m tests.hdfs.cluster      # fetch the jars (CI's caches step)
"""

from __future__ import annotations

import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from tests.interop.harness._common import LEAN_JVM_FLAGS, cache_root, file_lock
from tests.interop.harness.java_paimon import PAIMON_14_JARS, _fetch_hadoop_jars, _java_bin
from tests.interop.harness.maven import MavenJar, fetch_jars

MINICLUSTER = MavenJar(
    "org.apache.hadoop", "hadoop-client-minicluster", "3.5.0", "7688184cfbf679736d81f5642c6e80fca18a02c0"
)
SLF4J = next(j for j in PAIMON_14_JARS if j.artifact == "slf4j-api")  # Hadoop logs through both
COMMONS_LOGGING = MavenJar(
    "commons-logging", "commons-logging", "1.3.5", "a3fcc5d3c29b2b03433aa2d2f2d2c1b1638924a1"
)
SOURCE = Path(__file__).with_name("MiniHdfs.java")
START_TIMEOUT_S = 180


def jars(cache_dir: str | None = None) -> list[Path]:
    """The minicluster jar, the logging APIs and the Hadoop 3.5.0 client jars it runs on."""
    root = cache_root(cache_dir) / "hdfs"
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root / ".lock"):
        return [*fetch_jars(root, (MINICLUSTER, SLF4J, COMMONS_LOGGING)), *_fetch_hadoop_jars(root)]


@dataclass
class MiniHdfs:
    """A running cluster: ``url`` is ``hdfs://127.0.0.1:PORT``, ``webhdfs_url`` its WebHDFS."""

    proc: subprocess.Popen
    rpc_port: int
    http_port: int

    @property
    def url(self) -> str:
        return f"hdfs://127.0.0.1:{self.rpc_port}"

    @property
    def webhdfs_url(self) -> str:
        return f"webhdfs://127.0.0.1:{self.http_port}"

    def restart_namenode(self) -> None:
        """Stop the NameNode and start it again on the same port; returns once it is active."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("restart\n")
        self.proc.stdin.flush()
        line = _line_starting(self.proc, "RESTARTED")
        assert int(line.split()[1]) == self.rpc_port, line

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # end of input: the cluster shuts down
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _line_starting(proc: subprocess.Popen, word: str) -> str:
    """The first stdout line starting with ``word`` (the JVM logs go to stderr)."""
    assert proc.stdout is not None
    found: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(word):
                found.append(line.strip())
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(START_TIMEOUT_S)
    if not found:
        proc.kill()
        raise RuntimeError(
            f"MiniDFSCluster did not print {word} (exit code {proc.poll()}, or {START_TIMEOUT_S}s passed)"
        )
    return found[0]


def start(base_dir: Path, log: Path) -> MiniHdfs:
    """Start a cluster whose NameNode and DataNodes keep their data under ``base_dir``."""
    cp = os.pathsep.join(map(str, jars()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HADOOP_", "SPARK_"))}
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [_java_bin("java"), *LEAN_JVM_FLAGS, "-Xmx512m", "-cp", cp, str(SOURCE), str(base_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        )
    try:
        _, rpc, http = _line_starting(proc, "READY").split()
    except RuntimeError as e:
        raise RuntimeError(f"{e}; its log: {log}") from None
    return MiniHdfs(proc, int(rpc), int(http))


if __name__ == "__main__":
    print("hdfs jars:", ", ".join(map(str, jars())))
