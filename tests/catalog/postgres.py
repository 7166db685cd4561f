"""A throwaway PostgreSQL server for tests: Debian's ``postgresql`` binaries, a fresh data folder,
listening on 127.0.0.1 on a free port (and a socket in the data folder); stopped by pid.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

from tests.infra import free_port

USER = "paimon"
PASSWORD = "paimon-secret"


def bin_dir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return os.path.dirname(found[-1]) if found else None


@dataclass
class PgServer:
    proc: subprocess.Popen
    data: str
    port: int

    def uri(self, database: str = "postgres", user: str = USER, password: str = PASSWORD) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import pg8000.dbapi

        conn = pg8000.dbapi.connect(
            user=USER, password=PASSWORD, host="127.0.0.1", port=self.port, database="postgres"
        )
        conn.autocommit = True
        conn.cursor().execute(f'CREATE DATABASE "{name}"')
        conn.close()
        return self.uri(name)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGINT)  # fast shutdown
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.data, ignore_errors=True)


def start() -> PgServer:
    bindir = bin_dir()
    assert bindir, "no PostgreSQL server binaries under /usr/lib/postgresql"
    data = tempfile.mkdtemp(prefix="paimon-pg-")
    as_user: dict = {}
    if os.geteuid() == 0:  # the server's own process runs as postgres, so its pid is the server's
        pw = pwd.getpwnam("postgres")
        os.chown(data, pw.pw_uid, pw.pw_gid)
        as_user = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    pwfile = os.path.join(data, "pw")
    with open(pwfile, "w") as f:
        f.write(PASSWORD)
    if as_user:
        os.chown(pwfile, as_user["user"], -1)
    db = os.path.join(data, "db")
    subprocess.run(
        [
            f"{bindir}/initdb",
            "-D",
            db,
            "-U",
            USER,
            "--pwfile",
            pwfile,
            "-A",
            "scram-sha-256",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
        cwd=data,
        **as_user,
    )
    port = free_port()
    log = open(os.path.join(data, "log"), "w")
    proc = subprocess.Popen(
        [f"{bindir}/postgres", "-D", db, "-k", data, "-h", "127.0.0.1", "-p", str(port), "-c", "fsync=off"],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=data,
        **as_user,
    )
    server = PgServer(proc, data, port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"postgres exited: {open(os.path.join(data, 'log')).read()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
            import pg8000.dbapi

            pg8000.dbapi.connect(
                user=USER, password=PASSWORD, host="127.0.0.1", port=port, database="postgres"
            ).close()
            return server
        except Exception:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError("postgres did not start within 60 s")
