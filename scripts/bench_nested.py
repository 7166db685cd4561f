"""Benchmark: `paimon ingest` of nested JSON lines (ROW, ARRAY<ROW<..., DECIMAL, TIMESTAMP>>) against
pyarrow doing the least of the same work: `pyarrow.json.read_json` of the file plus a Parquet
write (zstd level 1, as Paimon). Each side runs in its own process (wall time and peak RSS);
same file, one run.

    .venv/bin/python scripts/bench_nested.py [--rows 500000] [--keep]

Target (the performance issue): ours at most 3x the floor's time, memory bounded by a block.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAIMON = ROOT / ".venv" / "bin" / "paimon"
COLUMNS = (
    "id BIGINT NOT NULL, name STRING, "
    "addr ROW<city STRING, zip INT, geo ROW<lat DOUBLE, lon DOUBLE>>, "
    "items ARRAY<ROW<sku STRING, qty INT, price DECIMAL(12, 2), at TIMESTAMP(3)>>"
)
TARGET = 3.0
FLOOR = """
import sys, pyarrow.json as pj, pyarrow.parquet as pq
pq.write_table(pj.read_json(sys.argv[1]), sys.argv[2], compression="zstd", compression_level=1)
"""


def write_input(path: Path, rows: int) -> None:
    rng = random.Random(20261129)
    with open(path, "w") as f:
        for i in range(rows):
            items = [
                {
                    "sku": f"sku-{rng.randrange(10_000)}",
                    "qty": rng.randrange(1, 20),
                    "price": f"{rng.randrange(100, 10_000_000) / 100:.2f}",
                    "at": f"2026-11-{rng.randrange(1, 29):02d} 10:{rng.randrange(60):02d}:00.123",
                }
                for _ in range(rng.randrange(0, 4))
            ]
            addr = {
                "city": f"city-{i % 997}",
                "zip": 10_000 + i % 90_000,
                "geo": {"lat": i % 90, "lon": -(i % 180)},
            }
            f.write(json.dumps({"id": i, "name": f"name-{i}", "addr": addr, "items": items}) + "\n")


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one command that must succeed (its own rusage: wait4)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])}... failed: {err[-500:]}")
    return wall, usage.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=500_000)
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-nested-"))
    try:
        src = tmp / "nested.jsonl"
        write_input(src, args.rows)
        print(f"{args.rows} nested rows, {src.stat().st_size / 1e6:.0f} MB of JSON lines")
        floor_s, floor_mb = timed([sys.executable, "-c", FLOOR, str(src), str(tmp / "floor.parquet")])
        print(f"  floor  pyarrow read_json + Parquet write: {floor_s:6.2f} s, peak {floor_mb:5.0f} MB")
        wh = str(tmp / "wh")
        subprocess.run(
            [str(PAIMON), "-w", wh, "create-table", "b.t", "--schema", COLUMNS, "-k", "id"], check=True
        )
        ours_s, ours_mb = timed([str(PAIMON), "-w", wh, "ingest", "-t", "b.t", str(src)])
        print(f"  ours   paimon ingest:                     {ours_s:6.2f} s, peak {ours_mb:5.0f} MB")
        ratio = ours_s / floor_s
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(f"ours / floor: {ratio:.2f}x (target <= {TARGET}x: {verdict})")
        return 0
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
