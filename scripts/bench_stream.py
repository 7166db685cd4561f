"""Benchmark (issue 12): latency of `paimon stream` and throughput of `paimon ingest -`.

    .venv/bin/python scripts/bench_stream.py [--commits 60] [--rows 2000000] [--json out.json]

latency  `paimon stream db.lat --mode latest --poll 100ms --snapshot-column` runs as a subprocess;
         this process commits --commits small snapshots (10 rows, 50..250 ms apart) and a reader
         thread stamps each JSON line as it arrives. Latency of a snapshot = arrival of its first
         row - the snapshot's timeMillis (set just before the snapshot file is created). p50/p99.
ingest   --rows small JSON lines ({"id", "name", "v"}, ~45 bytes) are written to a file first (not
         timed), then `cat FILE | paimon -o json ingest - -t db.ing --commit-interval 2s --commit-rows 250000`.
         Reported: wall rows/s (process start to exit, startup included) and sustained rows/s
         between the first and the last commit (snapshot timeMillis). Target >= 200k rows/s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]


def paimon(wh: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "paimon_cli", "-w", wh, *args]


def bench_latency(wh: str, commits: int) -> dict:
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema

    t = FileSystemCatalog(wh).create_table(
        "db.lat", Schema(Schema.parse_columns("id BIGINT, v STRING"), (), (), {})
    )
    proc = subprocess.Popen(
        paimon(wh, "stream", "db.lat", "--mode", "latest", "--poll", "100ms", "--snapshot-column"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    arrivals: dict[int, float] = {}

    def read():
        for line in proc.stdout:
            now = time.time() * 1000
            sid = json.loads(line)["_snapshot"]
            arrivals.setdefault(sid, now)

    th = threading.Thread(target=read, daemon=True)
    th.start()
    time.sleep(8)  # start-up of the streaming process (not measured)
    rng = random.Random(1)
    ids = []
    for i in range(commits):
        snap = t.write_arrow(
            pa.table({"id": pa.array(range(i * 10, i * 10 + 10), pa.int64()), "v": ["x"] * 10})
        )
        ids.append((snap.id, snap.time_millis))
        time.sleep(rng.uniform(0.05, 0.25))
    deadline = time.time() + 30
    while time.time() < deadline and len([s for s, _ in ids if s in arrivals]) < len(ids):
        time.sleep(0.1)
    proc.terminate()
    proc.wait(30)
    lat = sorted(arrivals[s] - ms for s, ms in ids if s in arrivals)
    if not lat:
        return {"error": "no snapshot arrived"}

    def pct(p):
        return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))]

    return {
        "snapshots": len(lat),
        "missing": len(ids) - len(lat),
        "p50_ms": round(pct(50), 1),
        "p99_ms": round(pct(99), 1),
        "max_ms": round(lat[-1], 1),
    }


def bench_ingest(wh: str, rows: int, tmp: str) -> dict:
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema

    t = FileSystemCatalog(wh).create_table(
        "db.ing", Schema(Schema.parse_columns("id BIGINT, name STRING, v DOUBLE"), (), (), {})
    )
    path = os.path.join(tmp, "rows.jsonl")
    with open(path, "w") as f:
        chunk = 100_000
        for start in range(0, rows, chunk):
            f.write(
                "".join(
                    f'{{"id": {i}, "name": "n{i % 1000}", "v": {i % 97}.5}}\n'
                    for i in range(start, min(rows, start + chunk))
                )
            )
    size = os.path.getsize(path)
    t0 = time.time()
    cmd = f"cat {path} | {' '.join(paimon(wh, '-o', 'json', 'ingest', '-', '-t', 'db.ing', '--commit-interval', '2s', '--commit-rows', '250000'))}"
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True, check=True).stdout
    wall = time.time() - t0
    commits = [json.loads(x) for x in out.splitlines() if x.strip()]
    snaps = [t.snapshots.snapshot(c["snapshot"]) for c in commits if c["snapshot"]]
    total = sum(c["rows"] for c in commits)
    assert total == rows and t.snapshots.latest().total_record_count == rows, (total, rows)
    res = {
        "rows": rows,
        "input_mb": round(size / 1e6, 1),
        "commits": len(snaps),
        "wall_s": round(wall, 2),
        "wall_rows_per_s": int(rows / wall),
    }
    if len(snaps) >= 2:
        span = (snaps[-1].time_millis - snaps[0].time_millis) / 1000
        res["sustained_rows_per_s"] = int(sum(c["rows"] for c in commits[1:]) / span) if span > 0 else None
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=60)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    out = {"cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        wh = os.path.join(tmp, "wh")
        out["latency"] = bench_latency(wh, args.commits)
        print("latency:", out["latency"], flush=True)
        out["ingest"] = bench_ingest(wh, args.rows, tmp)
        print("ingest -:", out["ingest"], flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
