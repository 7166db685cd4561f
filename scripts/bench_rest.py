"""Benchmark (issue 27): requests per second through ``paimon rest-server`` for table loads and commits.

    .venv/bin/python scripts/bench_rest.py [--loads 2000] [--commits 300] [--clients 1,8] [--keep]
                                           [--mixed SECONDS] [--mixed-clients 16] [--workers 1,2]

A server process on 127.0.0.1 (bearer token on) over a temporary filesystem warehouse with one
table written once by ``paimon ingest``. Each client is a thread with its own keep-alive HTTP
connection.
  load     GET  /v1/paimon/databases/b/tables/t (the schema read from storage each time)
  commit   POST .../commit of snapshot N+1 built on the latest (the same manifest lists: a snapshot
           that changes no rows, so each commit costs what the server does, not the writer's files);
           with several clients, each retries a lost race ({"success": false}) on the new latest;
           each commit is a GET .../snapshot (the latest, as a writer reads it) plus the POST
Prints one line per (operation, clients): requests, seconds, requests/s, lost races.
  mixed    (``--mixed SECONDS``) ``--mixed-clients`` clients at once, each looping over a load, a
           listing of the tables, a snapshot read and a commit for SECONDS, against a server of
           each ``--workers`` count: requests/s, commits, lost races, 5xx answers and the p50/p99
           latency of each operation (the last commit's snapshot id must equal 1 + the commits).
"""

from __future__ import annotations

import argparse
import contextlib
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
from collections.abc import Iterator
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
    """``n`` commits, each retried on a lost race; returns the races lost."""
    c, lost = Conn(port), 0
    for _ in range(n):
        status, races = _one_commit(c, table_id)
        assert status == 200, status
        lost += races
    return lost


MIXED = ("load", "list", "snapshot", "commit")


def _mixed_client(port: int, until: float, table_id: str, out: dict) -> None:
    """Loop load, list, snapshot, commit until ``until``; latencies and counts into ``out``."""
    c = Conn(port)
    while time.perf_counter() < until:
        for op in MIXED:
            start = time.perf_counter()
            if op == "load":
                status, _ = c.call("GET", BASE)
            elif op == "list":
                status, _ = c.call("GET", "/v1/paimon/databases/b/tables")
            elif op == "snapshot":
                status, _ = c.call("GET", f"{BASE}/snapshot")
            else:
                status, lost = _one_commit(c, table_id)
                out["lost"] += lost
                out["commits"] += status == 200
            out[op].append(time.perf_counter() - start)
            out["5xx"] += status >= 500


def _one_commit(c: Conn, table_id: str) -> tuple[int, int]:
    """A commit, retried on a lost race: (the final status, races lost)."""
    lost = 0
    while True:
        latest = c.call("GET", f"{BASE}/snapshot")[1]["snapshot"]["snapshot"]
        snap = {**latest, "id": latest["id"] + 1, "uuid": str(uuid.uuid4()), "commitKind": "APPEND",
                "deltaRecordCount": 0, "timeMillis": int(time.time() * 1000)}  # fmt: skip
        body = {
            "tableId": table_id,
            "baseSnapshotUuid": latest.get("uuid"),
            "snapshot": snap,
            "statistics": [],
        }
        status, answer = c.call("POST", f"{BASE}/commit", body)
        if status != 200 or answer["success"]:
            return status, lost
        lost += 1


def _mixed(port: int, clients: int, seconds: float, table_id: str, workers: int) -> None:
    first = Conn(port).call("GET", f"{BASE}/snapshot")[1]["snapshot"]["snapshot"]["id"]
    outs = [{"lost": 0, "commits": 0, "5xx": 0, **{op: [] for op in MIXED}} for _ in range(clients)]
    until = time.perf_counter() + seconds
    threads = [threading.Thread(target=_mixed_client, args=(port, until, table_id, o)) for o in outs]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.perf_counter() - t0
    last = Conn(port).call("GET", f"{BASE}/snapshot")[1]["snapshot"]["snapshot"]["id"]
    commits = sum(o["commits"] for o in outs)
    n = sum(len(o[op]) for o in outs for op in MIXED)
    print(
        f"mixed   clients={clients} workers={workers}  {n} operations in {secs:.1f} s  {n / secs:6.0f} ops/s  "
        f"commits {commits} (snapshots {first}->{last}: {'exact' if last - first == commits else 'WRONG'})  "
        f"lost races {sum(o['lost'] for o in outs)}  5xx {sum(o['5xx'] for o in outs)}"
    )
    for op in MIXED:
        lat = sorted(x for o in outs for x in o[op])
        if lat:
            print(f"        {op:9s} n={len(lat):5d}  p50 {lat[len(lat) // 2] * 1000:7.1f} ms  "
                  f"p99 {lat[int(len(lat) * 0.99)] * 1000:7.1f} ms")  # fmt: skip


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
    ap.add_argument("--mixed", type=float, default=0, help="seconds of the mixed load (0: skip it)")
    ap.add_argument("--mixed-clients", type=int, default=16)
    ap.add_argument("--workers", default="1", help="server worker counts for the mixed load, e.g. 1,2")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-rest-"))
    wh = tmp / "wh"
    paimon = [sys.executable, "-m", "paimon_cli", "-w", str(wh)]
    (tmp / "in.csv").write_text("a,b\n" + "".join(f"{i},v{i}\n" for i in range(1000)))
    subprocess.run(
        [*paimon, "create-table", "b.t", "--schema", "a INT, b STRING"], check=True, capture_output=True
    )
    subprocess.run([*paimon, "ingest", "-t", "b.t", str(tmp / "in.csv")], check=True, capture_output=True)
    try:
        with _server(paimon, 1) as port:
            table_id = Conn(port).call("GET", BASE)[1]["id"]
            for clients in (int(x) for x in a.clients.split(",")):
                _run("load", clients, a.loads, _loads, port)
                _run("commit", clients, a.commits, _commits, port, table_id)
        for workers in (int(x) for x in a.workers.split(",")) if a.mixed else ():
            with _server(paimon, workers) as port:
                _mixed(port, a.mixed_clients, a.mixed, Conn(port).call("GET", BASE)[1]["id"], workers)
    finally:
        if not a.keep:
            shutil.rmtree(tmp)


@contextlib.contextmanager
def _server(paimon: list[str], workers: int) -> Iterator[int]:
    """A server process of ``workers`` workers on a free port, until the block ends."""
    port = _port()
    proc = subprocess.Popen(
        [*paimon, "rest-server", "--port", str(port), "--workers", str(workers)],
        env={**os.environ, "PAIMON_REST_TOKEN": TOKEN},
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        for _ in range(300):
            try:
                Conn(port).call("GET", "/v1/config")
                break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        os.kill(proc.pid, 15)
        proc.wait(30)


if __name__ == "__main__":
    main()
