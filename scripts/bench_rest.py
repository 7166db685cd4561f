"""Benchmark (issue 27): requests per second through ``paimon rest-server`` for table loads and commits.

    .venv/bin/python scripts/bench_rest.py [--loads 2000] [--commits 300] [--clients 1,8] [--keep]

A server process on 127.0.0.1 (bearer token on) over a temporary filesystem warehouse with one
table written once by ``paimon ingest``. Each client is a thread with its own keep-alive HTTP
connection.
  load     GET  /v1/paimon/databases/b/tables/t (the schema read from storage each time)
  commit   POST .../commit of snapshot N+1 built on the latest (the same manifest lists: a snapshot
           that changes no rows, so each commit costs what the server does, not the writer's files);
           with several clients, each retries a lost race ({"success": false}) on the new latest;
           each commit is a GET .../snapshot (the latest, as a writer reads it) plus the POST
Prints one line per (operation, clients): requests, seconds, requests/s, lost races.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

TOKEN = "bench-token"
ROOT = Path(__file__).resolve().parents[1]
BASE = "/v1/paimon/databases/b/tables/t"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Conn:
    def __init__(self, port: int):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.h = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        self.c.request(method, path, body=json.dumps(body) if body is not None else None, headers=self.h)
        r = self.c.getresponse()
        raw = r.read()
        return r.status, (json.loads(raw) if raw else None)


def _loads(port: int, n: int) -> int:
    c = Conn(port)
    for _ in range(n):
        status, _ = c.call("GET", BASE)
        assert status == 200, status
    return 0


def _commits(port: int, n: int, table_id: str) -> int:
    c, lost = Conn(port), 0
    done = 0
    while done < n:
        latest = c.call("GET", f"{BASE}/snapshot")[1]["snapshot"]["snapshot"]
        snap = {
            **latest,
            "id": latest["id"] + 1,
            "uuid": str(uuid.uuid4()),
            "commitKind": "APPEND",
            "deltaRecordCount": 0,
            "timeMillis": int(time.time() * 1000),
        }
        body = {
            "tableId": table_id,
            "baseSnapshotUuid": latest.get("uuid"),
            "snapshot": snap,
            "statistics": [],
        }
        status, answer = c.call("POST", f"{BASE}/commit", body)
        assert status == 200, (status, answer)
        if answer["success"]:
            done += 1
        else:
            lost += 1
    return lost


def _run(label: str, clients: int, total: int, fn, *args) -> None:
    per = max(1, total // clients)
    lost: list[int] = []
    threads = [
        threading.Thread(target=lambda: lost.append(fn(*args[:1], per, *args[1:]))) for _ in range(clients)
    ]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.perf_counter() - t0
    n = per * clients
    print(
        f"{label:7s} clients={clients}  {n} requests in {secs:.2f} s  {n / secs:8.0f} req/s  lost races {sum(lost)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loads", type=int, default=2000)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--clients", default="1,8")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-rest-"))
    wh = tmp / "wh"
    paimon = [sys.executable, "-m", "paimon_cli", "-w", str(wh)]
    (tmp / "in.csv").write_text("a,b\n" + "".join(f"{i},v{i}\n" for i in range(1000)))
    subprocess.run(
        [*paimon, "create-table", "b.t", "--schema", "a INT, b STRING"], check=True, capture_output=True
    )
    subprocess.run([*paimon, "ingest", "-t", "b.t", str(tmp / "in.csv")], check=True, capture_output=True)
    port = _port()
    proc = subprocess.Popen(
        [*paimon, "rest-server", "--port", str(port)],
        env={**os.environ, "PAIMON_REST_TOKEN": TOKEN},
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        table_id = Conn(port).call("GET", BASE)[1]["id"]
        for clients in (int(x) for x in a.clients.split(",")):
            _run("load", clients, a.loads, _loads, port)
            _run("commit", clients, a.commits, _commits, port, table_id)
    finally:
        os.kill(proc.pid, 15)
        proc.wait(10)
        if not a.keep:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
