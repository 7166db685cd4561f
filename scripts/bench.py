"""Benchmark: our append write/read vs plain pyarrow Parquet (the floor) vs pypaimon 2.1.0,
plus `paimon snapshots` wall time on a 200-snapshot table. One run, same data, warm OS caches.

    .venv/bin/python scripts/bench.py [--rows 1000000] [--json out.json] [--keep]
                                                  [--snapshots 200] [--profile]

Steps (time.perf_counter; slow steps once, floor writes best of 2, reads best of 3):
  floor      pyarrow: write the in-memory table to Parquet (zstd level 1, as Paimon), read it back
  ours       paimon_core: ingest_files(input.parquet) into an append table (bucket -1), full read;
             also t.write_arrow(in-memory table) (what pypaimon is timed on) and the CLI ingest
  pypaimon   2.1.0 in its own venv (scripts/bench_pypaimon.py): write_arrow + commit, full read
  snapshots  `paimon -w WH snapshots -t bench.snaps` on 200 snapshots, best of 3 (+ the core call)

Nothing here changes the project; temp dirs are removed unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).resolve().parent
VENV_BIN = ROOT / ".venv" / "bin"
PAIMON = VENV_BIN / "paimon"
PYTHON = VENV_BIN / "python"
COLUMNS = "id BIGINT, name STRING, value DOUBLE, ts TIMESTAMP(6)"
SEED = 20240601

TARGET_RATIO_FLOOR = 1.5  # ours / floor
TARGET_SNAPSHOTS_S = 0.5


# ------------------------------------------------------------------ helpers


def best_of(fn, n: int = 1):
    """(best seconds, all runs, last result) of n calls to fn."""
    runs, res = [], None
    for _ in range(n):
        res = None
        t0 = time.perf_counter()
        res = fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), runs, res


def gen_table(n: int) -> pa.Table:
    rng = np.random.default_rng(SEED)
    ids = np.arange(n, dtype=np.int64)
    rng.shuffle(ids)
    # names: "name_" + 11 zero-padded digits = 16 chars, ~n/4 distinct values
    num = pa.array(rng.integers(0, max(1, n // 4), n, dtype=np.int64)).cast(pa.string())
    names = pc.binary_join_element_wise("name_", pc.utf8_lpad(num, 11, "0"), "")
    values = rng.normal(100.0, 25.0, n)
    base_us = 1_704_067_200_000_000  # 2024-01-01T00:00:00
    ts = np.sort(base_us + rng.integers(0, 86_400_000_000 * 30, n, dtype=np.int64))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": names,
            "value": pa.array(values, pa.float64()),
            "ts": pa.array(ts, pa.timestamp("us")),
        }
    )


def run_cmd(cmd: list[str], timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)


def cmd_error(proc: subprocess.CompletedProcess) -> str:
    tail = (proc.stderr or proc.stdout or "").strip().splitlines()
    return f"exit {proc.returncode}: {tail[-1] if tail else '(no output)'}"[:200]


class Results:
    def __init__(self, rows: int):
        self.rows = rows
        self.items: list[dict] = []

    def add(
        self,
        key: str,
        label: str,
        seconds: float | None = None,
        rows: int | None = None,
        *,
        runs: list[float] | None = None,
        note: str = "",
        error: str | None = None,
    ) -> dict:
        rows = self.rows if rows is None else rows
        item = {
            "key": key,
            "label": label,
            "seconds": seconds,
            "runs": runs,
            "rows": rows,
            "rows_per_s": (rows / seconds) if seconds and not key.startswith("snaps") else None,
            "note": note,
            "error": error,
        }
        self.items.append(item)
        status = f"{seconds:8.3f} s" if seconds is not None else f"ERROR {error}"
        print(f"  .. {label}: {status} {note}", flush=True)
        return item

    def get(self, key: str) -> dict | None:
        for it in self.items:
            if it["key"] == key and it["seconds"] is not None:
                return it
        return None


# ------------------------------------------------------------------ steps


def bench_floor(res: Results, data: pa.Table, tmp: Path, input_path: Path) -> None:
    out = tmp / "floor.parquet"

    def write():
        pq.write_table(data, out, compression="zstd", compression_level=1)

    def read():
        return pq.read_table(out)

    s, runs, _ = best_of(write, 2)
    res.add("floor_write", "floor: pq.write_table (zstd 1)", s, runs=runs, note="best of 2")
    s, runs, t = best_of(read, 3)
    assert t.num_rows == res.rows
    res.add("floor_read", "floor: pq.read_table", s, runs=runs, note="best of 3")

    def copy():  # what ingest does at minimum: read the input file, write Parquet
        pq.write_table(pq.read_table(input_path), out, compression="zstd", compression_level=1)

    s, runs, _ = best_of(copy, 2)
    res.add("floor_copy", "floor: read input + write (ctx)", s, runs=runs, note="best of 2; context only")


def bench_ours(res: Results, data: pa.Table, wh: Path, input_path: Path) -> None:
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema
    from paimon_core.ops.ingest import ingest_files

    cat = FileSystemCatalog(str(wh))
    try:
        t = cat.create_table("bench.append", Schema(Schema.parse_columns(COLUMNS)))
        s, _, r = best_of(lambda: ingest_files(t, [str(input_path)]))
        res.add("ours_ingest", "ours: ingest_files(input.parquet)", s, note=f"{r.files} file(s)")
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.add("ours_ingest", "ours: ingest_files(input.parquet)", error=f"{type(e).__name__}: {e}"[:200])
        return

    try:

        def read():
            return cat.get_table("bench.append").read()

        s, runs, out = best_of(read, 3)
        ok = out.num_rows == res.rows
        res.add(
            "ours_read",
            "ours: get_table().read()",
            s,
            runs=runs,
            note="best of 3" + ("" if ok else f"; ROW COUNT {out.num_rows} != {res.rows}"),
        )
        del out
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.add("ours_read", "ours: get_table().read()", error=f"{type(e).__name__}: {e}"[:200])

    try:  # same input as pypaimon is timed on: an in-memory Arrow table
        t2 = cat.create_table("bench.append_mem", Schema(Schema.parse_columns(COLUMNS)))
        s, _, _ = best_of(lambda: t2.write_arrow(data))
        res.add("ours_write_arrow", "ours: t.write_arrow(in-memory)", s, note="like pypaimon's timing")
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.add("ours_write_arrow", "ours: t.write_arrow(in-memory)", error=f"{type(e).__name__}: {e}"[:200])


def bench_cli_ingest(res: Results, wh: Path, input_path: Path) -> None:
    label = "ours CLI: paimon ingest (subprocess)"
    if not PAIMON.exists():
        res.add("cli_ingest", label, error=f"{PAIMON} not found")
        return
    proc = run_cmd([PAIMON, "-w", wh, "create-table", "bench.cli", "--schema", COLUMNS])
    if proc.returncode != 0:
        res.add("cli_ingest", label, error=f"create-table {cmd_error(proc)}")
        return
    t0 = time.perf_counter()
    proc = run_cmd([PAIMON, "-w", wh, "ingest", "-t", "bench.cli", input_path])
    s = time.perf_counter() - t0
    if proc.returncode != 0:
        res.add("cli_ingest", label, error=f"ingest {cmd_error(proc)}")
        return
    res.add("cli_ingest", label, s, note="incl. interpreter start")


def bench_pypaimon(res: Results, wh: Path, input_path: Path) -> dict:
    labels = ("pypaimon 2.1.0: write_arrow+commit", "pypaimon 2.1.0: full read")
    try:
        sys.path.insert(0, str(ROOT))
        from tests.interop.harness.pypaimon_env import _clean_env, ensure_pypaimon_python

        t0 = time.perf_counter()
        python = ensure_pypaimon_python()
        print(f"  .. pypaimon venv ready in {time.perf_counter() - t0:.1f} s: {python}", flush=True)
        proc = subprocess.run(
            [python, str(SCRIPTS / "bench_pypaimon.py"), str(input_path), str(wh)],
            capture_output=True,
            text=True,
            timeout=3600,
            env=_clean_env(),
        )
        if proc.returncode != 0:
            raise RuntimeError(cmd_error(proc) + "\n" + proc.stderr[-3000:])
        info = json.loads(proc.stdout)
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {e}"
        print(msg, file=sys.stderr)
        for key, label in zip(("pypaimon_write", "pypaimon_read"), labels, strict=True):
            res.add(key, label, error=msg.splitlines()[0][:200])
        return {"error": msg}
    res.add(
        "pypaimon_write",
        labels[0],
        info["write_s"],
        rows=info["rows_written"],
        note="in-memory input (file read untimed)",
    )
    ok = info["rows_read"] == res.rows
    res.add(
        "pypaimon_read",
        labels[1],
        info["read_s"],
        runs=info["read_runs_s"],
        rows=info["rows_read"],
        note="best of 3" + ("" if ok else f"; ROW COUNT {info['rows_read']} != {res.rows}"),
    )
    return info


def bench_snapshots(res: Results, wh: Path, n_snaps: int) -> None:
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema

    cat = FileSystemCatalog(str(wh))
    t = cat.create_table("bench.snaps", Schema(Schema.parse_columns(COLUMNS)))
    small = gen_table(10)
    t0 = time.perf_counter()
    for _ in range(n_snaps):
        t.write_arrow(small)
    build = time.perf_counter() - t0
    print(
        f"  .. built bench.snaps: {n_snaps} commits in {build:.2f} s "
        f"({build / n_snaps * 1000:.1f} ms/commit)",
        flush=True,
    )
    res.add(
        "snaps_build",
        f"setup: {n_snaps} x t.write_arrow(10 rows)",
        build,
        rows=n_snaps,
        note=f"{build / n_snaps * 1000:.1f} ms/commit; untargeted",
    )

    label = f"paimon snapshots ({n_snaps} snaps, CLI)"
    proc = None
    if PAIMON.exists():
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            proc = run_cmd([PAIMON, "-w", wh, "snapshots", "-t", "bench.snaps"], timeout=120)
            runs.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                break
        if proc.returncode == 0:
            res.add("snaps_cli", label, min(runs), rows=n_snaps, runs=runs, note="best of 3, wall")
        else:
            res.add("snaps_cli", label, rows=n_snaps, error=cmd_error(proc))
    else:
        res.add("snaps_cli", label, rows=n_snaps, error=f"{PAIMON} not found")

    # the core call in-process (always; it is what the CLI does on top of its start-up)
    def core():
        return FileSystemCatalog(str(wh)).get_table("bench.snaps").snapshots.snapshots()

    s, runs, snaps = best_of(core, 3)
    res.add(
        "snaps_core",
        "core: t.snapshots.snapshots()",
        s,
        rows=n_snaps,
        runs=runs,
        note=f"in-process, best of 3, {len(snaps)} listed",
    )

    # the same in a fresh interpreter: the floor any CLI pays (start-up + import + list)
    code = (
        "import sys; from paimon_core.catalog import FileSystemCatalog as C; "
        "s = C(sys.argv[1]).get_table('bench.snaps').snapshots.snapshots(); print(len(s))"
    )
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        p = run_cmd([PYTHON, "-c", code, wh], timeout=120)
        runs.append(time.perf_counter() - t0)
    if p.returncode == 0:
        res.add(
            "snaps_core_proc",
            "core in fresh python (subprocess)",
            min(runs),
            rows=n_snaps,
            runs=runs,
            note="best of 3, wall, start-up + import + list",
        )
    else:
        res.add("snaps_core_proc", "core in fresh python (subprocess)", rows=n_snaps, error=cmd_error(p))


# ------------------------------------------------------------------ report


def ratios(res: Results) -> list[dict]:
    """Target checks: (step, compared-to, ratio, target, ok)."""
    out = []

    def cmp(key, ref, limit, target):
        a, b = res.get(key), res.get(ref)
        if a and b:
            r = a["seconds"] / b["seconds"]
            out.append({"step": key, "vs": ref, "ratio": r, "target": target, "ok": r <= limit})
        else:
            out.append({"step": key, "vs": ref, "ratio": None, "target": target, "ok": None})

    # like for like: ingesting a file against the floor that reads that file and writes Parquet;
    # writing an in-memory table against pq.write_table and against pypaimon (whose timing
    # excludes reading the input)
    cmp("ours_ingest", "floor_copy", TARGET_RATIO_FLOOR, "<= 1.5x floor (read+write)")
    cmp("ours_write_arrow", "floor_write", TARGET_RATIO_FLOOR, "<= 1.5x floor")
    cmp("ours_read", "floor_read", TARGET_RATIO_FLOOR, "<= 1.5x floor")
    cmp("ours_write_arrow", "pypaimon_write", 1.0, "<= 1.0x pypaimon")
    cmp("ours_ingest", "pypaimon_write", 1.5, "<= 1.5x pypaimon (info: ours reads the file)")
    cmp("ours_read", "pypaimon_read", 1.0, "<= 1.0x pypaimon")
    cmp("cli_ingest", "floor_write", TARGET_RATIO_FLOOR, "<= 1.5x floor (info)")
    for key in ("snaps_cli", "snaps_core", "snaps_core_proc"):
        it = res.get(key)
        out.append(
            {
                "step": key,
                "vs": "absolute",
                "ratio": it["seconds"] if it else None,
                "target": f"< {TARGET_SNAPSHOTS_S} s"
                if key != "snaps_core_proc"
                else f"< {TARGET_SNAPSHOTS_S} s (info)",
                "ok": (it["seconds"] < TARGET_SNAPSHOTS_S) if it else None,
            }
        )
    return out


def print_report(res: Results, checks: list[dict], meta: dict) -> None:
    floor = {
        "ours_ingest": "floor_copy",
        "ours_write_arrow": "floor_write",
        "cli_ingest": "floor_write",
        "pypaimon_write": "floor_write",
        "ours_read": "floor_read",
        "pypaimon_read": "floor_read",
    }
    pyp = {
        "ours_ingest": "pypaimon_write",
        "ours_write_arrow": "pypaimon_write",
        "cli_ingest": "pypaimon_write",
        "ours_read": "pypaimon_read",
    }
    print()
    print(
        f"rows={res.rows:,}  python {meta['python']}  pyarrow {meta['pyarrow']}  "
        f"cpus={meta['cpus']}  (warm OS caches, no cache drop)"
    )
    hdr = f"{'step':<40} {'seconds':>9} {'rows/s':>13} {'vs floor':>9} {'vs pypaimon':>12}  note"
    print(hdr)
    print("-" * len(hdr))
    for it in res.items:
        if it["seconds"] is None:
            print(f"{it['label']:<40} {'-':>9} {'-':>13} {'-':>9} {'-':>12}  SKIPPED: {it['error']}")
            continue
        f = res.get(floor.get(it["key"], ""))
        p = res.get(pyp.get(it["key"], ""))
        vf = f"{it['seconds'] / f['seconds']:.2f}x" if f else ""
        vp = f"{it['seconds'] / p['seconds']:.2f}x" if p else ""
        rps = f"{it['rows_per_s']:13,.0f}" if it["rows_per_s"] else f"{'-':>13}"
        print(f"{it['label']:<40} {it['seconds']:9.3f} {rps} {vf:>9} {vp:>12}  {it['note']}")
    print()
    print(f"{'target check':<44} {'value':>9}  {'target':<22} result")
    print("-" * 86)
    for c in checks:
        name = f"{c['step']} vs {c['vs']}" if c["vs"] != "absolute" else c["step"]
        if c["ratio"] is None:
            val, ok = "-", "n/a"
        else:
            val = f"{c['ratio']:.3f} s" if c["vs"] == "absolute" else f"{c['ratio']:.2f}x"
            ok = "PASS" if c["ok"] else "FAIL"
            if "(info)" in c["target"]:
                ok = "within" if c["ok"] else "over (info only)"
        print(f"{name:<44} {val:>9}  {c['target']:<22} {ok}")


def profile_ours(data_path: Path, tmp: Path, top: int = 25) -> None:
    """cProfile our ingest and read (separate run: profiling slows them down)."""
    import cProfile
    import pstats

    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema
    from paimon_core.ops.ingest import ingest_files

    wh = tmp / "wh_profile"
    cat = FileSystemCatalog(str(wh))
    t = cat.create_table("bench.p", Schema(Schema.parse_columns(COLUMNS)))
    for name, fn in (
        ("ingest", lambda: ingest_files(t, [str(data_path)])),
        ("read", lambda: cat.get_table("bench.p").read()),
    ):
        prof = cProfile.Profile()
        prof.enable()
        fn()
        prof.disable()
        out = tmp / f"profile_{name}.prof"
        prof.dump_stats(str(out))
        print(f"\n===== cProfile: ours {name} (saved {out}) — top by cumulative time")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(top)
        print(f"===== cProfile: ours {name} — top by own time")
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON to FILE")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    ap.add_argument("--snapshots", type=int, default=200, help="snapshots in the `paimon snapshots` table")
    ap.add_argument("--skip-pypaimon", action="store_true")
    ap.add_argument(
        "--profile", action="store_true", help="after the timed runs, cProfile our ingest and read"
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="paimon-bench-"))
    print(f"temp dir: {tmp}", flush=True)
    meta = {
        "rows": args.rows,
        "seed": SEED,
        "python": platform.python_version(),
        "pyarrow": pa.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "caches": "warm (no OS cache drop)",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    res = Results(args.rows)
    try:
        t0 = time.perf_counter()
        data = gen_table(args.rows)
        input_path = tmp / "input.parquet"
        pq.write_table(data, input_path, compression="zstd", compression_level=1)
        meta["input_bytes"] = input_path.stat().st_size
        meta["arrow_bytes"] = data.nbytes
        print(
            f"  .. data: {args.rows:,} rows, {data.nbytes / 1e6:.1f} MB in Arrow, "
            f"{meta['input_bytes'] / 1e6:.1f} MB Parquet input ({time.perf_counter() - t0:.1f} s, untimed)",
            flush=True,
        )

        bench_floor(res, data, tmp, input_path)
        bench_ours(res, data, tmp / "wh_ours", input_path)
        bench_cli_ingest(res, tmp / "wh_ours", input_path)
        if args.skip_pypaimon:
            res.add("pypaimon_write", "pypaimon 2.1.0: write_arrow+commit", error="--skip-pypaimon")
        else:
            meta["pypaimon"] = bench_pypaimon(res, tmp / "wh_pypaimon", input_path)
        bench_snapshots(res, tmp / "wh_snaps", args.snapshots)

        checks = ratios(res)
        print_report(res, checks, meta)
        if args.json:
            Path(args.json).write_text(
                json.dumps({"meta": meta, "results": res.items, "checks": checks}, indent=2, default=str)
            )
            print(f"\nJSON written to {args.json}")
        if args.profile:
            profile_ours(input_path, tmp)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
