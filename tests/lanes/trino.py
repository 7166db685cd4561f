"""Trino 476 for the Trino lane: fetched once from Maven Central, started per test session on
127.0.0.1, queried over its HTTP protocol.

* The server tarball (``io.trino:trino-server:476``, SHA-1 pinned) is unpacked once into
  ``<interop cache>/trino-476``, with only the Iceberg plugin (Trino loads every plugin folder at
  start; one plugin starts in a fraction of the time).
* Trino 476 needs Java 24+: the Temurin 25 JDK in ``/usr/lib/jvm`` (or ``$PAIMON_CLI_TRINO_JAVA_HOME``).
* Two catalogs, both Trino's Iceberg connector with a file metastore in the session's folder:
  ``local`` (Hadoop's file system: ``file:`` and plain paths) and, when the tests' SeaweedFS
  server is given, ``s3`` (Trino's native S3 client, path-style, on that endpoint).
* Queries go to ``POST /v1/statement`` and follow ``nextUri``; no client library.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tarfile
import time
import urllib.request
from pathlib import Path

from tests.infra import free_port
from tests.interop.harness._common import LEAN_JVM_FLAGS, InteropError, cache_root, file_lock
from tests.interop.harness.maven import MavenJar, _download

VERSION = "476"
JAVA_HOMES = ("/usr/lib/jvm/temurin-25-jdk-amd64", "/usr/lib/jvm/temurin-25-jdk-arm64")
KEEP = ("bin/", "lib/", "plugin/iceberg/")  # what is unpacked from the tarball


class _Tarball(MavenJar):
    @property
    def file_name(self) -> str:
        return f"{self.artifact}-{self.version}.tar.gz"


SERVER = _Tarball("io.trino", "trino-server", VERSION, "c9b38be4017ebd2f7095455aaac772fb40247ebe")


def trino_home(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<cache>/trino-476/trino-server-476``, unpacked once (bin, lib and the Iceberg plugin)."""
    root = cache_root(cache_dir) / f"trino-{VERSION}"
    home = root / f"trino-server-{VERSION}"
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root / ".lock"):
        if (home / ".complete").exists():
            return home
        archive = root / SERVER.file_name
        if not archive.exists():
            _download(SERVER, archive)
        shutil.rmtree(home, ignore_errors=True)
        prefix = f"trino-server-{VERSION}/"
        with tarfile.open(archive) as tar:
            members = [
                m
                for m in tar.getmembers()
                if m.name.startswith(prefix) and m.name[len(prefix) :].startswith(KEEP)
            ]
            tar.extractall(root, members=members, filter="tar")
        (home / ".complete").write_text(VERSION)
        archive.unlink()  # 800 MB; the unpacked plugin is all the lane needs
    return home


def java_home() -> str:
    for home in (os.environ.get("PAIMON_CLI_TRINO_JAVA_HOME"), *JAVA_HOMES):
        if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
            return home
    raise InteropError(
        f"Trino {VERSION} needs Java 24 or later: install the Temurin 25 JDK "
        "(apt package temurin-25-jdk) or set PAIMON_CLI_TRINO_JAVA_HOME"
    )


def _properties(path: Path, values: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()))


def _iceberg_catalog(metastore: Path) -> dict[str, str]:
    return {
        "connector.name": "iceberg",
        # a metastore of JSON files in a folder: Trino's own, made for tests
        "iceberg.catalog.type": "TESTING_FILE_METASTORE",
        "hive.metastore.catalog.dir": metastore.as_uri(),
        "iceberg.register-table-procedure.enabled": "true",
    }


class Trino:
    """A Trino server of this session. `query` returns ``{"columns", "rows"}`` or raises
    `TrinoError` with Trino's message."""

    def __init__(self, root: Path, s3: dict | None = None, timeout: float = 180.0):
        self.root = root
        self.port = free_port()
        etc, data = root / "etc", root / "data"
        _properties(
            etc / "node.properties",
            {
                "node.environment": "paimon_cli_lane",
                "node.id": "lane",
                "node.data-dir": str(data),
                "node.bind-ip": "127.0.0.1",
                "node.internal-address": "127.0.0.1",
            },
        )
        _properties(
            etc / "config.properties",
            {
                "coordinator": "true",
                "node-scheduler.include-coordinator": "true",
                "http-server.http.port": str(self.port),
                "discovery.uri": f"http://127.0.0.1:{self.port}",
                "query.max-memory": "512MB",
                # one node on a busy machine: a heartbeat late under load must not take the
                # only node away ("No nodes available to run query", seen in CI)
                "failure-detector.enabled": "false",
            },
        )
        (etc / "jvm.config").write_text(
            "\n".join(
                [
                    "-server",
                    "-Xmx1G",
                    *LEAN_JVM_FLAGS,
                    "-Djdk.attach.allowAttachSelf=true",
                    "-XX:+ExitOnOutOfMemoryError",
                ]
            )
            + "\n"
        )
        _properties(etc / "log.properties", {"io.trino": "WARN"})
        _properties(
            etc / "catalog" / "local.properties",
            {**_iceberg_catalog(root / "metastore-local"), "fs.hadoop.enabled": "true"},
        )
        if s3 is not None:
            _properties(
                etc / "catalog" / "s3.properties",
                {
                    **_iceberg_catalog(root / "metastore-s3"),
                    "fs.hadoop.enabled": "true",  # for the metastore's local folder
                    "fs.native-s3.enabled": "true",
                    "s3.endpoint": s3["endpoint"],
                    "s3.region": s3.get("region", "us-east-1"),
                    "s3.path-style-access": "true",
                    "s3.aws-access-key": s3["access_key_id"],
                    "s3.aws-secret-key": s3["secret_access_key"],
                },
            )
        self.log = root / "trino.log"
        home = trino_home()
        env = dict(os.environ, JAVA_HOME=java_home())
        env["PATH"] = f"{env['JAVA_HOME']}/bin:{env.get('PATH', '')}"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(home / "bin" / "launcher"), "run", f"--etc-dir={etc}", f"--data-dir={data}"],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        self._wait_started(timeout)

    def _wait_started(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise InteropError(f"Trino exited {self.proc.returncode}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/info", timeout=5) as r:
                    started = not json.load(r).get("starting", True)
                if started and self._query_once("SELECT 1")["rows"] == [[1]]:
                    return  # the node has announced itself: queries run
            except (OSError, TrinoError):
                pass
            time.sleep(0.5)
        self.close()
        raise InteropError(f"Trino did not start in {timeout:.0f}s:\n{self.tail()}")

    def tail(self, n: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def query(self, sql: str) -> dict:
        """Runs `sql`; a query refused because the one node is between announcements is run again
        (for up to a minute), any other error is raised."""
        deadline = time.monotonic() + 60
        while True:
            try:
                return self._query_once(sql)
            except TrinoError as e:
                if "No nodes available" not in str(e) or time.monotonic() > deadline:
                    raise
            time.sleep(1)

    def _query_once(self, sql: str) -> dict:
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/v1/statement",
            data=sql.encode(),
            # PARAMETRIC_DATETIME: timestamps in their own precision (else rounded to milliseconds)
            headers={"X-Trino-User": "lane", "X-Trino-Client-Capabilities": "PARAMETRIC_DATETIME"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=120) as r:
            out = json.load(r)
        columns, rows = None, []
        while True:
            if "error" in out:
                raise TrinoError(out["error"].get("message", str(out["error"])))
            columns = out.get("columns", columns)
            rows += out.get("data", [])
            if "nextUri" not in out:
                return {"columns": columns or [], "rows": rows}
            with urllib.request.urlopen(out["nextUri"], timeout=120) as r:
                out = json.load(r)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class TrinoError(Exception):
    pass
