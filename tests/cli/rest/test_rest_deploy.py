"""``paimon rest-server`` run for a team: HTTPS, several worker processes, a health endpoint, a
Common Log Format access log, a graceful stop on SIGTERM, and no open server by accident.

Every server here is a real process on 127.0.0.1, stopped by its pid; the certificate is a
self-signed one made by ``openssl`` for 127.0.0.1, which the clients trust through
``SSL_CERT_FILE`` (Python's default TLS context, which our REST client uses, reads it)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request

import pyarrow as pa
import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.metadata.schema import Schema
from tests.cli.conftest import Cli
from tests.rest_support import TOKEN, RestServer, self_signed_certificate

pytestmark = pytest.mark.slow


def _get(url: str, token: str | None = TOKEN, context: ssl.SSLContext | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=30, context=context) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _flags(uri: str) -> list[str]:
    return ["--catalog", "rest", "--catalog-option", f"uri={uri}", "--catalog-option", f"token={TOKEN}"]


def test_https_round_trip_with_our_client(tmp_path, monkeypatch):
    cert, key = self_signed_certificate(tmp_path)
    server = RestServer(tmp_path / "wh", args=("--tls-cert", str(cert), "--tls-key", str(key)))
    try:
        uri = f"https://127.0.0.1:{server.port}"
        trusted = ssl.create_default_context(cafile=str(cert))
        assert _get(f"{uri}/v1/config?warehouse=x", context=trusted)[0] == 200
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            _get(f"{uri}/v1/config", context=ssl.create_default_context())  # not trusted: refused
        with pytest.raises((urllib.error.URLError, ConnectionError)):  # plain HTTP to a TLS port
            _get(f"http://127.0.0.1:{server.port}/v1/config")
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        cli = Cli(tmp_path / "unused")
        (tmp_path / "a.csv").write_text("id,v\n1,a\n2,b\n")
        cli(*_flags(uri), "create-table", "tls.t", "--schema", "id INT, v STRING", warehouse=False)
        cli(*_flags(uri), "ingest", "-t", "tls.t", str(tmp_path / "a.csv"), warehouse=False)
        rows = cli.json(*_flags(uri), "read", "-t", "tls.t", warehouse=False)
        assert sorted(r["id"] for r in rows) == [1, 2]
    finally:
        server.stop()
    assert server.proc.returncode == 0


def test_tls_and_open_address_mistakes_are_one_line(tmp_path):
    cert, key = self_signed_certificate(tmp_path)
    (tmp_path / "wh").mkdir()
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    cli = Cli(tmp_path / "wh")
    for args, text in (
        (["--tls-cert", str(cert)], "--tls-cert and --tls-key go together"),
        (["--tls-cert", str(tmp_path / "none.pem"), "--tls-key", str(key)], "none.pem: no such file"),
        (
            ["--tls-cert", str(tmp_path / "junk.pem"), "--tls-key", str(key)],
            "not a PEM certificate and its key",
        ),
        (["--tls-cert", str(key), "--tls-key", str(cert)], "not a PEM certificate and its key"),
        (["--workers", "0"], "bad --workers 0"),
        (["--host", "0.0.0.0"], "--insecure"),
        (["--host", "192.0.2.7"], "no --token is set"),
    ):
        r = cli("rest-server", "--port", "1", *args, code=None)
        assert r.exit_code != 0 and text in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_health_needs_no_token_and_the_access_log_is_common_log_format(tmp_path):
    server = RestServer(tmp_path / "wh")
    try:
        assert _get(f"{server.uri}/healthz", token=None) == (200, b'{"status":"ok"}')
        assert _get(f"{server.uri}/v1/paimon/databases", token=None)[0] == 401
        assert _get(f"{server.uri}/v1/paimon/databases?maxResults=5")[0] == 200
        lines = server.log.read_text().splitlines()
    finally:
        server.stop()
    clf = re.compile(
        r'^127\.0\.0\.1 - - \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\] "(\S+) (\S+) HTTP/1\.1" (\d{3}) (\d+|-)$'
    )
    logged = [m.groups() for m in map(clf.match, lines) if m]
    assert ("GET", "/v1/paimon/databases", "401") == logged[-2][:3], lines
    method, target, status, size = logged[-1]
    assert (method, target, status) == ("GET", "/v1/paimon/databases?maxResults=5", "200") and int(size) > 0


def test_two_workers_commit_concurrently_and_lose_nothing(tmp_path):
    """Four clients, each its own catalog connection, append to one table through a server of two
    worker processes: every commit lands once (one snapshot each, every row once)."""
    server = RestServer(tmp_path / "wh", args=("--workers", "2"))
    try:
        workers = _children(server.proc.pid)
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:  # the supervisor starts them
            time.sleep(0.2)
            workers = _children(server.proc.pid)
        assert len(workers) >= 2, workers
        options = {"uri": server.uri, "token": TOKEN}
        create_catalog("rest", "unused", options).create_table(
            "wk.t", Schema(Schema.parse_columns("client INT, n INT"))
        )
        errors: list[BaseException] = []

        def client(c: int) -> None:
            try:
                t = create_catalog("rest", "unused", options).get_table("wk.t")
                for n in range(6):
                    t.write_arrow(
                        pa.table({"client": pa.array([c], pa.int32()), "n": pa.array([n], pa.int32())})
                    )
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=client, args=(c,)) for c in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        assert not errors, errors
        t = create_catalog("rest", "unused", options).get_table("wk.t")
        rows = sorted((r["client"], r["n"]) for r in t.read().to_pylist())
        assert rows == [(c, n) for c in range(4) for n in range(6)]
        assert t.snapshots.list_ids() == list(range(1, 25))
    finally:
        server.stop()
    assert server.proc.returncode == 0


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def test_sigterm_lets_a_request_in_flight_finish(tmp_path):
    """A create-database request whose body is still arriving when SIGTERM comes is completed and
    answered, then the server exits 0; the database exists."""
    server = RestServer(tmp_path / "wh")
    body = json.dumps({"name": "late_db", "options": {}}).encode()
    head = (
        f"POST /v1/paimon/databases HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(head + body[:10])
        time.sleep(0.5)
        os.kill(server.proc.pid, signal.SIGTERM)
        time.sleep(0.5)
        assert server.proc.poll() is None, "the server stopped with a request in flight"
        s.sendall(body[10:])
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert server.proc.wait(30) == 0
    assert (tmp_path / "wh" / "late_db.db").is_dir()


def test_sigkill_during_commits_keeps_every_acknowledged_commit(tmp_path):
    """Four clients append through the server; it is killed (SIGKILL) while they commit and
    started again on the same port, and they go on. Every commit a client saw succeed is in the
    table once; a commit whose answer was lost with the server is in it at most once; every
    snapshot reads whole (no half commit)."""
    from paimon_core.catalog import FileSystemCatalog

    wh = tmp_path / "wh"
    server = RestServer(wh)
    options = {"uri": server.uri, "token": TOKEN}
    create_catalog("rest", "unused", options).create_table(
        "kl.t", Schema(Schema.parse_columns("client INT, n INT"))
    )
    acked: set[tuple[int, int]] = set()
    tried: set[tuple[int, int]] = set()
    up = threading.Event()
    up.set()

    def client(c: int) -> None:
        for n in range(12):
            up.wait(60)
            tried.add((c, n))
            try:
                t = create_catalog("rest", "unused", options).get_table("kl.t")
                t.write_arrow(pa.table({"client": pa.array([c], pa.int32()), "n": pa.array([n], pa.int32())}))
                acked.add((c, n))
            except Exception:  # noqa: BLE001 - the server went away: an unknown outcome
                time.sleep(0.2)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(4)]
    for th in threads:
        th.start()
    try:
        deadline = time.monotonic() + 60
        while len(acked) < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)
        up.clear()
        time.sleep(0.5)
        server = RestServer(wh, port=server.port)
        up.set()
        for th in threads:
            th.join(180)
    finally:
        up.set()
        server.stop()
    t = FileSystemCatalog(str(wh)).get_table("kl.t")
    rows = [(r["client"], r["n"]) for r in t.read().to_pylist()]
    assert len(rows) == len(set(rows)), "a commit landed twice"
    assert acked <= set(rows) <= tried, (sorted(acked - set(rows)), sorted(set(rows) - tried))
    assert tried - acked, "the kill came while no commit was in flight"
    for sid in t.snapshots.list_ids():  # every snapshot's files are all there
        assert t.read(snapshot_id=sid).num_rows == sid
