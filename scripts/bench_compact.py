"""Benchmark (issue 4): full compaction vs the pyarrow floor vs Java Paimon 0.9, and `diff` rows/s.

    .venv/bin/python scripts/bench_compact.py [--rows 1000000] [--upserts 200000] [--json out.json]
                                                          [--diff-base 100000] [--diff-commits 50] [--diff-rows 2000]
                                                          [--skip-java] [--profile] [--keep]

Compaction input: b.pk5 (bucket 4, write-only) = base + 4 upsert batches, one commit each: 5 sorted runs
per bucket (the data of bench_pk.py). Copies of that warehouse are compacted by:
  floor   pyarrow per bucket: read all run files, sort by (_KEY_id, _SEQUENCE_NUMBER), keep the last row
          per key, write one Parquet file (zstd 1); best of 2
  ours    paimon_core.compaction.compaction.compact(t, full=True); best of 2 (two copies); result read back and checked
  java    tests/interop/harness JavaPaimon op compact (full, write-only=false as a dynamic option, or Java's
          writer would skip compaction), one JVM per call; JVM start + table load measured apart with a
          trivial `snapshots` request (best of 2) and subtracted. Run with the harness's JVM flags (C1 only,
          SerialGC: tuned for start-up) and again with C2 + ParallelGC (throughput flags), for context.
diff: b.cl (bucket 4, changelog-producer=input, write-only) = diff-base rows, then diff-commits upsert commits
of diff-rows existing keys each; diff(t, 1, 1 + commits, mode, per_snapshot=True) for diff, delta, changelog.
Targets: ours <= 2x floor, ours faster than Java (JVM start excluded).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ROOT, Results, best_of  # noqa: E402
from bench_pk import (  # noqa: E402
    PK_COLUMNS,
    PK_OPTIONS,
    bucket_files,
    check_state,
    expected_state,
    meta_info,
    pk_data,
    print_report,
    profile,
    write_parquet,
)

TABLE = "b.pk5"
C2_OPTS = "-XX:TieredStopAtLevel=4 -XX:-UseSerialGC -XX:+UseParallelGC"


def build_runs_table(wh: Path, base: pa.Table, ups: list[pa.Table]) -> None:
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema

    t = FileSystemCatalog(str(wh)).create_table(
        TABLE, Schema(Schema.parse_columns(PK_COLUMNS), (), ("id",), {**PK_OPTIONS, "write-only": "true"})
    )
    for d in [base, *ups]:
        t.write_arrow(d)


def bench_floor(res: Results, wh: Path, out: Path) -> None:
    root = wh / "b.db" / TABLE.split(".")[1]

    def run():
        rows = 0
        for b in sorted(root.glob("bucket-*")):
            t = pa.concat_tables([pq.read_table(f) for f in sorted(b.glob("data-*.parquet"))])
            order = pc.sort_indices(t, [("_KEY_id", "ascending"), ("_SEQUENCE_NUMBER", "ascending")])
            keys = t.column("_KEY_id").take(order).to_numpy()
            last = np.append(keys[1:] != keys[:-1], True)
            merged = t.take(order.filter(pa.array(last)))
            write_parquet(merged, out / f"{b.name}.parquet")
            rows += merged.num_rows
        return rows

    out.mkdir(exist_ok=True)
    s, runs, rows = best_of(run, 2)
    res.add(
        "floor_compact",
        "floor: read runs, sort, dedupe, write",
        s,
        rows,
        runs=runs,
        note="best of 2; per bucket; pyarrow+numpy",
    )


def bench_ours(res: Results, whs: list[Path], want: np.ndarray) -> None:
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.compaction.compaction import compact

    runs, info = [], ""
    try:
        for wh in whs:
            t = FileSystemCatalog(str(wh)).get_table(TABLE)
            t0 = time.perf_counter()
            r = compact(t, full=True)
            runs.append(time.perf_counter() - t0)
            info = f"{r.files_before} files -> {r.files_after}"
        chk = check_state(FileSystemCatalog(str(whs[0])).get_table(TABLE).read(), want)
        res.add(
            "ours_compact",
            "ours: compact(t, full=True)",
            min(runs),
            len(want),
            runs=runs,
            note=f"best of {len(runs)}; {info}; {chk or 'read back OK'}",
        )
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.add(
            "ours_compact",
            "ours: compact(t, full=True)",
            rows=len(want),
            error=f"{type(e).__name__}: {e}"[:200],
        )


def bench_java(res: Results, wh: Path, want: np.ndarray, tag: str, java_opts: str | None) -> None:
    from paimon_core.catalog import FileSystemCatalog

    sys.path.insert(0, str(ROOT))
    from tests.interop.harness import JavaPaimon
    from tests.interop.harness.java_paimon import JAVA_OPTS_ENV

    label = f"java 0.9 compact{tag}"
    saved = os.environ.get(JAVA_OPTS_ENV)
    if java_opts is not None:
        os.environ[JAVA_OPTS_ENV] = java_opts
    try:
        java = JavaPaimon(timeout=3600)
        java.command()  # fetch/compile/CDS once, untimed
        snap = {"op": "snapshots", "warehouse": str(wh), "table": TABLE}
        s_start, start_runs, _ = best_of(lambda: java.run([snap]), 2)
        res.add(
            f"java_start{tag}",
            f"java: JVM start + snapshots{tag}",
            s_start,
            0,
            runs=start_runs,
            note="best of 2; subtracted below",
        )
        req = {
            "op": "compact",
            "warehouse": str(wh),
            "table": TABLE,
            "full": True,
            "options": {"write-only": "false"},
        }
        s, _, out = best_of(lambda: java.run([req]), 1)
        chk = check_state(FileSystemCatalog(str(wh)).get_table(TABLE).read(), want)
        files = list(bucket_files(wh, TABLE).values())
        res.add(
            f"java_compact_total{tag}",
            f"{label} (total, 1 JVM)",
            s,
            len(want),
            note=f"units {out[0].get('compacted_units')}; data files/bucket incl. old {files}; "
            f"ours reads it: {chk or 'OK'}",
        )
        res.add(
            f"java_compact{tag}", f"{label} (minus JVM start)", s - s_start, len(want), note="total - start"
        )
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.add(f"java_compact{tag}", label, rows=len(want), error=f"{type(e).__name__}: {e}"[:200])
    finally:
        if saved is None:
            os.environ.pop(JAVA_OPTS_ENV, None)
        else:
            os.environ[JAVA_OPTS_ENV] = saved


def build_diff_table(wh: Path, n: int, commits: int, per: int):
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema

    base, _ = pk_data(n, 0, 0)
    rng = np.random.default_rng(7)
    t = FileSystemCatalog(str(wh)).create_table(
        "b.cl",
        Schema(
            Schema.parse_columns(PK_COLUMNS),
            (),
            ("id",),
            {**PK_OPTIONS, "changelog-producer": "input", "write-only": "true"},
        ),
    )
    t.write_arrow(base)
    t0 = time.perf_counter()
    for _ in range(commits):
        ids = np.sort(rng.choice(n, size=min(per, n), replace=False).astype(np.int64))
        t.write_arrow(base.take(pa.array(ids)).set_column(2, "value", pa.array(rng.normal(0, 1, len(ids)))))
    print(
        f"  .. built b.cl: {n:,} rows + {commits} commits x {per:,} upserts in "
        f"{time.perf_counter() - t0:.2f} s (untimed)",
        flush=True,
    )
    return t


def bench_diff(res: Results, wh: Path, n: int, commits: int, per: int) -> None:
    from paimon_core.read.diff import diff

    t = build_diff_table(wh, n, commits, per)
    end = t.snapshots.latest().id
    start = end - commits
    for mode in ("diff", "delta", "changelog"):
        label = f"diff --mode {mode} --per-snapshot ({commits} snaps)"
        try:
            s, runs, out = best_of(lambda: diff(t, start, end, mode=mode, per_snapshot=True), 2)  # noqa: B023
            res.add(
                f"diff_{mode}",
                label,
                s,
                out.num_rows,
                runs=runs,
                note=f"best of 2; rows/s = output rows ({out.num_rows:,}) / s",
            )
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            res.add(f"diff_{mode}", label, error=f"{type(e).__name__}: {e}"[:200])
    try:
        s, runs, out = best_of(lambda: diff(t, start, end, mode="diff"), 2)
        res.add(
            "diff_range",
            "diff --mode diff (whole range, ctx)",
            s,
            out.num_rows,
            runs=runs,
            note="best of 2; one state-vs-state diff",
        )
    except Exception as e:  # noqa: BLE001
        res.add("diff_range", "diff --mode diff (whole range, ctx)", error=f"{type(e).__name__}: {e}"[:200])


FLOOR = {
    "ours_compact": "floor_compact",
    "java_compact": "floor_compact",
    "java_compact_c2": "floor_compact",
    "java_compact_total": "floor_compact",
    "java_compact_total_c2": "floor_compact",
}


def checks(res: Results) -> list[dict]:
    out = []

    def ratio(key, ref, max_x, target, info=False):
        a, b = res.get(key), res.get(ref)
        v = a["seconds"] / b["seconds"] if a and b else None
        out.append(
            {
                "check": f"{key} time vs {ref}",
                "value": v,
                "fmt": f"{v:.2f}x" if v else "-",
                "target": target + (" (info)" if info else ""),
                "ok": v <= max_x if v else None,
            }
        )

    ratio("ours_compact", "floor_compact", 2, "<= 2x")
    ratio("ours_compact", "java_compact", 1, "< 1x (faster)")
    ratio("ours_compact", "java_compact_total", 1, "< 1x (faster)", info=True)
    ratio("ours_compact", "java_compact_c2", 1, "< 1x (faster)", info=True)
    for mode in ("diff", "delta", "changelog"):
        it = res.get(f"diff_{mode}")
        v = it["rows_per_s"] if it else None
        out.append(
            {
                "check": f"diff_{mode} rows/s",
                "value": v,
                "fmt": f"{v:,.0f}" if v else "-",
                "target": "report only",
                "ok": None,
            }
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--upserts", type=int, default=200_000)
    ap.add_argument("--diff-base", type=int, default=100_000)
    ap.add_argument("--diff-commits", type=int, default=50)
    ap.add_argument("--diff-rows", type=int, default=2_000)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--skip-java", action="store_true")
    ap.add_argument(
        "--profile", action="store_true", help="afterwards, cProfile our compaction and diff modes"
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="paimon-bench-compact-"))
    print(f"temp dir: {tmp}", flush=True)
    meta = meta_info(args)
    res = Results(args.rows)
    try:
        base, ups = pk_data(args.rows, args.upserts, 4)
        want = expected_state(base, ups)
        src = tmp / "wh_src"
        t0 = time.perf_counter()
        build_runs_table(src, base, ups)
        del base, ups
        copies = {k: tmp / f"wh_{k}" for k in ("ours1", "ours2", "java", "java_c2", "prof")}
        for d in copies.values():
            shutil.copytree(src, d)
        print(
            f"  .. built {TABLE} ({list(bucket_files(src, TABLE).values())} files/bucket) + copies in "
            f"{time.perf_counter() - t0:.1f} s (untimed)",
            flush=True,
        )

        bench_floor(res, src, tmp / "floor_out")
        bench_ours(res, [copies["ours1"], copies["ours2"]], want)
        if args.skip_java:
            res.add("java_compact", "java 0.9 compact", error="--skip-java")
        else:
            bench_java(res, copies["java"], want, "", None)
            bench_java(res, copies["java_c2"], want, "_c2", C2_OPTS)
        bench_diff(res, tmp / "wh_diff", args.diff_base, args.diff_commits, args.diff_rows)

        chk = checks(res)
        print_report(res, chk, meta, FLOOR, {}, "issue 4 compaction/diff benchmark")
        if args.json:
            Path(args.json).write_text(
                json.dumps({"meta": meta, "results": res.items, "checks": chk}, indent=2, default=str)
            )
            print(f"\nJSON written to {args.json}")
        if args.profile:
            from paimon_core.catalog import FileSystemCatalog
            from paimon_core.compaction.compaction import compact
            from paimon_core.read.diff import diff

            profile(
                "compact full",
                lambda: compact(FileSystemCatalog(str(copies["prof"])).get_table(TABLE), full=True),
            )
            t = FileSystemCatalog(str(tmp / "wh_diff")).get_table("b.cl")
            end = t.snapshots.latest().id
            for mode in ("diff", "delta", "changelog"):
                profile(
                    f"diff {mode}",
                    lambda: diff(
                        t,
                        end - args.diff_commits,
                        end,
                        mode=mode,  # noqa: B023
                        per_snapshot=True,
                    ),
                )
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
