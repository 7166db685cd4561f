"""A throwaway Hive Metastore 2.3 for tests: PySpark's jars (Hive, Derby, DataNucleus) run
``HiveMetaStore`` on 127.0.0.1 on a free port with an embedded Derby database in a temp folder;
stopped by pid. Transactions are on (DbTxnManager) so that the metastore's lock API works."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.infra import free_port
from tests.interop.harness._common import LEAN_JVM_FLAGS

SITE = """<?xml version="1.0"?>
<configuration>
{props}
</configuration>
"""


def pyspark_jars() -> Path | None:
    try:
        import pyspark
    except ImportError:
        return None
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    return jars if any(jars.glob("hive-metastore-*.jar")) else None


def site_properties(folder: str, uri: str | None = None) -> dict[str, str]:
    props = {
        "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={folder}/metastore_db;create=true",
        "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
        "datanucleus.schema.autoCreateAll": "true",
        "datanucleus.connectionPoolingType": "DBCP",
        "hive.metastore.schema.verification": "false",
        "hive.async.log.enabled": "false",
        "hive.metastore.warehouse.dir": f"file://{folder}/hive-warehouse",
        "hive.txn.manager": "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager",
        "hive.support.concurrency": "true",
        "hive.in.test": "true",  # creates the transaction tables (locks) in Derby
        "hive.compactor.initiator.on": "false",
    }
    if uri:
        props["hive.metastore.uris"] = uri
    return props


def write_site(conf_dir: str, props: dict[str, str]) -> None:
    os.makedirs(conf_dir, exist_ok=True)
    body = "\n".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items())
    Path(conf_dir, "hive-site.xml").write_text(SITE.format(props=body))


@dataclass
class Metastore:
    proc: subprocess.Popen
    folder: str
    port: int

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start(timeout: float = 240.0) -> Metastore:
    jars = pyspark_jars()
    assert jars is not None, "pyspark's jars folder with Hive is needed"
    folder = tempfile.mkdtemp(prefix="paimon-hms-")
    conf = os.path.join(folder, "conf")
    write_site(conf, site_properties(folder))
    port = free_port()
    log = open(os.path.join(folder, "log"), "w")
    java = shutil.which("java") or "java"
    proc = subprocess.Popen(
        [
            java,
            "-Xmx1g",
            *LEAN_JVM_FLAGS,
            "-cp",
            f"{jars}/*:{conf}",
            "org.apache.hadoop.hive.metastore.HiveMetaStore",
            "-p",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    ms = Metastore(proc, folder, port)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"metastore exited: {Path(folder, 'log').read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return ms
        except OSError:
            time.sleep(0.5)
    ms.stop()
    raise RuntimeError(f"the metastore did not start within {timeout} s")
