"""Benchmark: `paimon sql` count and group-by on 3M rows, DuckDB (the default) vs Spark
(`--engine spark --spark-master local[2]`) vs pyarrow's own compute over the same rows. One
run, same table, warm OS caches; each figure is a whole `paimon sql` process (best of 3 for
DuckDB, one Spark run each) against the floor: a Python process that imports pyarrow, reads
the table's Parquet files and computes the same answer with pyarrow's own compute (best of 3;
the in-process compute time alone is shown too).

    .venv/bin/python scripts/bench_sql.py [--rows 3000000] [--no-spark] [--keep]

Targets (#25): DuckDB within 1.5x of pyarrow + process start; the count under 1 s.

Bytecode: pyarrow, DuckDB and the other installed packages start from the ``.pyc`` files pip
compiled when it installed them. An editable checkout run with ``PYTHONDONTWRITEBYTECODE=1``
has none for ``core/`` and ``paimon_cli/`` and compiles ~100 modules from source in every
process (0.2-0.7 s here). The script compiles them once first (``compileall``, what an install
does; Python reads ``.pyc`` files even when told not to write them), so both sides start from
bytecode; ``--no-compile`` measures without.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds

ROOT = Path(__file__).resolve().parents[1]
PAIMON = ROOT / ".venv" / "bin" / "paimon"

COUNT = "SELECT count(*) AS n FROM bench.t"
GROUP = "SELECT dt, count(*) AS n, sum(amount) AS s FROM bench.t GROUP BY dt ORDER BY dt"


FLOOR = """
import pyarrow.dataset as ds
d = ds.dataset(open({listing!r}).read().split(), format="parquet")
if {which!r} == "count":
    print(d.count_rows())
else:
    print(d.to_table(columns=["dt", "amount"]).group_by("dt").aggregate([("amount", "count"), ("amount", "sum")]))
"""


def data(rows: int) -> pa.Table:
    rng = np.random.default_rng(7)
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "name": pa.array(np.char.add("n", (np.arange(rows) % 1000).astype(str))),
            "amount": pa.array(rng.random(rows) * 100),
            "dt": pa.array(np.array([f"2024-01-{d:02d}" for d in range(1, 11)])[np.arange(rows) % 10]),
        }
    )


def timed(cmd: list[str], runs: int, env: dict) -> tuple[float, str]:
    best, out = float("inf"), ""
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        best = min(best, time.perf_counter() - t0)
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr}")
        out = p.stdout
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-compile", action="store_true", help="do not compile core/ and paimon_cli/ first")
    args = ap.parse_args()
    if not args.no_compile:
        for package in ("core", "paimon_cli"):
            compileall.compile_dir(str(ROOT / package), quiet=1)
    tmp = Path(tempfile.mkdtemp(prefix="bench_sql_"))
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("PAIMON_WAREHOUSE", None)
    try:
        from paimon_core import FileSystemCatalog, Schema

        wh = tmp / "wh"
        cat = FileSystemCatalog(str(wh))
        cols = Schema.parse_columns("id BIGINT NOT NULL, name STRING, amount DOUBLE, dt STRING")
        t = cat.create_table("bench.t", Schema(cols, ("dt",)))
        t.write_arrow(data(args.rows))
        files = [str(p) for p in Path(t.path).rglob("*.parquet")]

        def floor(which: str) -> float:
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                d = ds.dataset(files, format="parquet")
                if which == "count":
                    assert d.to_table(columns=["id"]).num_rows >= 0
                else:
                    d.to_table(columns=["dt", "amount"]).group_by("dt").aggregate(
                        [("amount", "count"), ("amount", "sum")]
                    )
                best = min(best, time.perf_counter() - t0)
            return best

        listing = tmp / "files.txt"
        listing.write_text("\n".join(files))
        start, _ = timed([sys.executable, "-c", "pass"], 3, env)
        base = [str(PAIMON), "-w", str(wh), "-o", "csv", "sql"]
        results = {}
        for label, q in (("count", COUNT), ("group-by", GROUP)):
            which = "count" if label == "count" else "group"
            f = floor(which)
            floor_process, _ = timed(
                [sys.executable, "-c", FLOOR.format(listing=str(listing), which=which)], 3, env
            )
            duck, _ = timed([*base, q], 3, env)
            spark = None
            if not args.no_spark:
                spark, _ = timed(
                    [
                        str(PAIMON),
                        "--engine",
                        "spark",
                        "--spark-master",
                        "local[2]",
                        "-w",
                        str(wh),
                        "-o",
                        "csv",
                        "sql",
                        q,
                    ],
                    1,
                    env,
                )
            results[label] = (f, floor_process, duck, spark)
        compiled = "no (--no-compile)" if args.no_compile else "yes"
        print(
            f"rows: {args.rows:,}; python start {start:.3f} s; pyarrow {pa.__version__}; our bytecode compiled: {compiled}"
        )
        head = ("query", "pyarrow", "process", "duckdb", "spark", "duck/floor", "spark/duck")
        print("{:10} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}".format(*head))
        for label, (f, floor_total, duck, spark) in results.items():
            sp = f"{spark:9.3f}" if spark is not None else f"{'-':>9}"
            ratio = f"{spark / duck:11.1f}" if spark is not None else f"{'-':>11}"
            print(
                f"{label:10} {f:9.3f} {floor_total:9.3f} {duck:9.3f} {sp} {duck / floor_total:11.2f} {ratio}"
            )
        print("pyarrow: compute in this process; process: python + import pyarrow + the same compute")
        print("targets: duck/floor <= 1.5 (floor = the pyarrow process); DuckDB count under 1 s")
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
