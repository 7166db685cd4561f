"""Benchmark (issue 6): PK ingest of N rows + a full compaction of it, local engine vs Spark local[2].

    .venv/bin/python scripts/bench_spark.py [--rows 10000000] [--files 4] [--buckets 4]
                                                        [--spark-master local[2]] [--json out.json] [--keep]

Same data for both (bench.gen_table: id BIGINT NOT NULL (unique, shuffled), name, value, ts), written as
--files Parquet files; same table (primary key id, bucket --buckets, write-only so ingest does not
auto-compact); each run is its own child process:
  local       ingest_files(engine=LocalEngine) at N rows, then compact(full, engine=LocalEngine)
  spark N/10  the same with SparkEngine(local[2]) at N/10 rows   (driver memory must stay flat...)
  spark N     ... and at N rows                                   (...when the input grows 10x)
Each child reports: session start-up (Spark: create the session, ship paimon_core and start the Python
worker pool with one trivial task per core; reported apart),
ingest and compaction wall time, the Python driver's peak RSS (VmHWM of the child) and, for
Spark, the driver JVM's peak RSS (VmHWM; in local mode the executors live in that JVM too).
Every result table is read back and checked (row count, key set) against the input.
Targets: Spark (ingest + compaction, start-up apart) within 1.5x of the local engine; the Python
driver's peak RSS flat (< 1.25x) from N/10 to N.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PK_COLUMNS = "id BIGINT NOT NULL, name STRING, value DOUBLE, ts TIMESTAMP(6)"


def make_inputs(rows: int, files: int, folder: Path) -> list[str]:
    import pyarrow.parquet as pq
    from bench import gen_table

    folder.mkdir(parents=True, exist_ok=True)
    data = gen_table(rows)
    paths, per = [], -(-rows // files)
    for i in range(files):
        part = data.slice(i * per, per)
        if part.num_rows:
            p = folder / f"part-{i}.parquet"
            pq.write_table(part, p, row_group_size=256 * 1024, compression="zstd")
            paths.append(str(p))
    return paths


def peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM (reset by exec; ru_maxrss is not, so a child forked from a
    parent holding the generated data would report the parent's size), else ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            return int(next(line for line in f if line.startswith("VmHWM")).split()[1]) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _warm(batches):
    import paimon_core.engines.spark.tasks  # noqa: F401 - what every task imports first
    import paimon_core.write.kv_writer  # noqa: F401

    yield from batches


def child(args) -> None:
    """One engine run in this process; prints one JSON line."""
    t0 = time.perf_counter()
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.compaction.compaction import compact
    from paimon_core.metadata.schema import Schema
    from paimon_core.ops.ingest import ingest_files

    out = {"engine": args.child, "rows": args.rows}
    if args.child == "spark":
        from paimon_core.engines.spark.engine import SparkEngine

        eng = SparkEngine(
            master=args.spark_master,
            conf={
                "spark.sql.shuffle.partitions": str(args.buckets),
                "spark.driver.memory": args.driver_memory,
            },
        )
        from paimon_core.engines.spark.frames import ship_core

        # start-up = the JVM + the Python worker pool (Spark reuses the workers for later tasks)
        ship_core(eng.spark)
        slots = eng.spark.sparkContext.defaultParallelism
        eng.spark.range(0, slots, 1, slots).mapInArrow(_warm, "id long").collect()
    else:
        from paimon_core.engines.local import LocalEngine

        eng = LocalEngine()
    out["startup_s"] = time.perf_counter() - t0
    rss_start = peak_rss_mb()
    t = FileSystemCatalog(args.wh).create_table(
        "b.pk",
        Schema(
            Schema.parse_columns(PK_COLUMNS),
            (),
            ("id",),
            {"bucket": str(args.buckets), "file.format": "parquet", "write-only": "true"},
        ),
    )
    t1 = time.perf_counter()
    res = ingest_files(t, args.inputs, engine=eng)
    out["ingest_s"] = time.perf_counter() - t1
    t = FileSystemCatalog(args.wh).get_table("b.pk")
    t2 = time.perf_counter()
    c = compact(t, full=True, engine=eng)
    out["compact_s"] = time.perf_counter() - t2
    out["ingested_rows"], out["compacted_buckets"] = res.rows, c.buckets
    out["driver_py_maxrss_mb"] = peak_rss_mb()
    out["driver_py_rss_after_startup_mb"] = rss_start
    if args.child == "spark":
        try:
            pid = eng.spark.sparkContext._gateway.proc.pid
            with open(f"/proc/{pid}/status") as f:
                hwm = next(line for line in f if line.startswith("VmHWM"))
            out["driver_jvm_maxrss_mb"] = int(hwm.split()[1]) / 1024
        except Exception:  # noqa: BLE001 - best effort
            out["driver_jvm_maxrss_mb"] = None
        eng.stop()
    # check: every input key once, nothing else
    import pyarrow.compute as pc

    t = FileSystemCatalog(args.wh).get_table("b.pk")
    ids = t.read(columns=["id"]).column("id")
    out["check"] = bool(
        len(ids) == args.rows
        and pc.count_distinct(ids).as_py() == args.rows
        and pc.min(ids).as_py() == 0
        and pc.max(ids).as_py() == args.rows - 1
    )
    print("RESULT " + json.dumps(out), flush=True)


def run_child(engine: str, rows: int, inputs: list[str], wh: Path, args) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--child",
        engine,
        "--rows",
        str(rows),
        "--wh",
        str(wh),
        "--buckets",
        str(args.buckets),
        "--spark-master",
        args.spark_master,
        "--driver-memory",
        args.driver_memory,
        "--inputs",
        *inputs,
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=7200)
    wall = time.perf_counter() - t0
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(
            f"{engine} run failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        )
    r = json.loads(line[len("RESULT ") :])
    r["process_wall_s"] = wall
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--buckets", type=int, default=4)
    ap.add_argument("--spark-master", default="local[2]")
    ap.add_argument("--driver-memory", default="2g")
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument(
        "--skip-pypaimon", action="store_true", help="leave out pypaimon 2.1.0 (slow: ~50k rows/s)"
    )
    ap.add_argument("--child", choices=["local", "spark"], help=argparse.SUPPRESS)
    ap.add_argument("--wh", help=argparse.SUPPRESS)
    ap.add_argument("--inputs", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)

    root = Path(tempfile.mkdtemp(prefix="paimon-bench-spark-"))
    try:
        n, small = args.rows, max(1, args.rows // 10)
        print(f"generating {n:,} + {small:,} rows into {args.files} Parquet files each ...", flush=True)
        big_in = make_inputs(n, args.files, root / "in_big")
        small_in = make_inputs(small, args.files, root / "in_small")
        runs = []
        for label, eng, rows, inputs in (
            ("local", "local", n, big_in),
            (f"spark {args.spark_master} N/10", "spark", small, small_in),
            (f"spark {args.spark_master}", "spark", n, big_in),
        ):
            print(f"running {label} ({rows:,} rows) ...", flush=True)
            r = run_child(eng, rows, inputs, root / f"wh_{len(runs)}", args)
            r["label"] = label
            runs.append(r)
            print("  " + json.dumps(r), flush=True)
        pyp = None if args.skip_pypaimon else run_pypaimon(big_in, root / "wh_pypaimon", args.buckets)
        report(runs, args, n, pyp)
        if args.json:
            Path(args.json).write_text(json.dumps(runs, indent=2))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")


def run_pypaimon(inputs: list[str], wh: Path, buckets: int) -> dict | None:
    """pypaimon 2.1.0 (own venv, subprocess) ingesting the same files into the same PK table."""
    import subprocess
    import sys as _sys

    _sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    try:
        from tests.interop.harness.pypaimon_env import ensure_pypaimon_python

        py = ensure_pypaimon_python()
        print(f"running pypaimon 2.1.0 ({len(inputs)} files) ...", flush=True)
        p = subprocess.run(
            [py, str(Path(__file__).with_name("bench_pypaimon_ingest.py")), str(wh), str(buckets), *inputs],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if p.returncode != 0:
            print(f"  pypaimon failed: {p.stderr.strip().splitlines()[-1:]}")
            return None
        return json.loads(p.stdout.strip().splitlines()[-1])
    except Exception as e:  # report and go on: the engines' numbers still stand
        print(f"  pypaimon skipped: {type(e).__name__}: {e}")
        return None


def report(runs: list[dict], args, n: int, pyp: dict | None = None) -> None:
    print()
    print(
        f"bench_spark: PK ingest + full compaction, bucket {args.buckets}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    hdr = (
        f"{'run':<24}{'rows':>12}{'startup s':>11}{'ingest s':>10}{'compact s':>11}{'work s':>9}"
        f"{'rows/s':>11}{'w/ startup s':>14}{'py RSS MB':>11}{'JVM RSS MB':>12}{'check':>7}"
    )
    print(hdr)
    print("-" * len(hdr))
    for r in runs:
        work = r["ingest_s"] + r["compact_s"]
        jvm = r.get("driver_jvm_maxrss_mb")
        print(
            f"{r['label']:<24}{r['rows']:>12,}{r['startup_s']:>11.1f}{r['ingest_s']:>10.1f}{r['compact_s']:>11.1f}"
            f"{work:>9.1f}{r['rows'] / work:>11,.0f}{work + r['startup_s']:>14.1f}{r['driver_py_maxrss_mb']:>11.0f}"
            f"{(f'{jvm:.0f}' if jvm else '-'):>12}{'ok' if r['check'] else 'FAIL':>7}"
        )
    local, s_small, s_big = runs
    lw = local["ingest_s"] + local["compact_s"]
    sw = s_big["ingest_s"] + s_big["compact_s"]
    ratio = sw / lw
    flat = s_big["driver_py_maxrss_mb"] / s_small["driver_py_maxrss_mb"]
    if pyp:
        print(
            f"{'pypaimon 2.1.0 (ingest)':<24}{pyp['rows']:>12,}{'-':>11}{pyp['ingest_s']:>10.1f}{'n/a':>11}"
            f"{pyp['ingest_s']:>9.1f}{pyp['rows'] / pyp['ingest_s']:>11,.0f}{'-':>14}{pyp['maxrss_mb']:>11.0f}"
            f"{'-':>12}{'-':>7}"
        )
        print(
            f"\ningest rows/s: local {n / local['ingest_s']:,.0f}, spark {n / s_big['ingest_s']:,.0f}, "
            f"pypaimon {pyp['rows'] / pyp['ingest_s']:,.0f} (local = {pyp['ingest_s'] / local['ingest_s']:.1f}x "
            f"pypaimon, spark = {pyp['ingest_s'] / s_big['ingest_s']:.1f}x pypaimon; pypaimon cannot compact)"
        )
    print()
    print(
        f"spark / local work time (start-up apart): {ratio:.2f}x  (target <= 1.5x: {'met' if ratio <= 1.5 else 'NOT met'})"
    )
    print(
        f"spark driver (Python) peak RSS, N vs N/10: {s_big['driver_py_maxrss_mb']:.0f} MB vs "
        f"{s_small['driver_py_maxrss_mb']:.0f} MB = {flat:.2f}x  (flat target <= 1.25x: "
        f"{'met' if flat <= 1.25 else 'NOT met'}); local engine at N: {local['driver_py_maxrss_mb']:.0f} MB"
    )


if __name__ == "__main__":
    main()
